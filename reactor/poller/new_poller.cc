// -----------------------------------------------------------------------------
// reactor/poller/new_poller.cc
// -----------------------------------------------------------------------------
//
// The poller factory of reactor/poller.h, muduo's DefaultPoller: the one
// place that knows both pollers, and how a backend is named and chosen.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "reactor/poller.h"
#include "reactor/poller/epoll_poller.h"
#include "reactor/poller/uring_poller.h"

namespace serverkit::reactor {

std::optional<PollerBackend> ParsePollerBackend(std::string_view name) {
  if (name == "epoll") return PollerBackend::kEpoll;
  if (name == "uring") return PollerBackend::kUring;
  return std::nullopt;
}

std::string_view PollerBackendName(PollerBackend backend) {
  return backend == PollerBackend::kUring ? "uring" : "epoll";
}

PollerBackend DefaultPollerBackend() {
  const char* env = std::getenv("SERVERKIT_REACTOR_BACKEND");
  if (env == nullptr || *env == '\0') return PollerBackend::kEpoll;
  if (auto b = ParsePollerBackend(env)) return *b;
  static std::once_flag warned;
  std::call_once(warned, [env] {
    std::fprintf(stderr,
                 "reactor: SERVERKIT_REACTOR_BACKEND='%s' is neither epoll "
                 "nor uring; using epoll\n",
                 env);
  });
  return PollerBackend::kEpoll;
}

std::optional<UringIo> ParseUringIo(std::string_view name) {
  if (name == "readiness") return UringIo::kReadiness;
  if (name == "completion") return UringIo::kCompletion;
  return std::nullopt;
}

std::string_view UringIoName(UringIo io) {
  return io == UringIo::kCompletion ? "completion" : "readiness";
}

UringIo DefaultUringIo() {
  const char* env = std::getenv("SERVERKIT_URING_IO");
  if (env == nullptr || *env == '\0') return UringIo::kReadiness;
  if (auto io = ParseUringIo(env)) return *io;
  static std::once_flag warned;
  std::call_once(warned, [env] {
    std::fprintf(stderr,
                 "reactor: SERVERKIT_URING_IO='%s' is neither readiness nor "
                 "completion; using readiness\n",
                 env);
  });
  return UringIo::kReadiness;
}

std::unique_ptr<Poller> NewPoller(EventLoop* loop, PollerBackend backend,
                                  UringIo io) {
  if (backend == PollerBackend::kUring) {
    std::string why;
    if (auto p = UringPoller::Create(loop, &why, io)) return p;
    static std::once_flag said;
    std::call_once(said, [&why] {
      std::fprintf(stderr,
                   "reactor: io_uring is not available here (%s); using "
                   "epoll\n",
                   why.c_str());
    });
  }
  return std::make_unique<EpollPoller>(loop);
}

}  // namespace serverkit::reactor
