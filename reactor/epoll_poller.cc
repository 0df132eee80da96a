#include "reactor/epoll_poller.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "reactor/channel.h"
#include "reactor/internal/report_errno.h"
#include "reactor/uring_poller.h"

namespace serverkit::reactor {
namespace {
constexpr int kNew = -1;     // never added to epoll
constexpr int kAdded = 1;    // in epoll
constexpr int kDeleted = 2;  // known, but removed from epoll (no interest)
}  // namespace

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

void Poller::send(Channel* /*channel*/, BufferStorage /*data*/) {
  std::fprintf(stderr, "reactor: send() on a poller that does not send\n");
  std::abort();
}

std::unique_ptr<Poller> NewPoller(EventLoop* loop, PollerBackend backend) {
  if (backend == PollerBackend::kUring) {
    std::string why;
    if (auto p = UringPoller::Create(loop, &why)) return p;
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

EpollPoller::EpollPoller(EventLoop* loop)
    : loop_(loop), epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)), events_(16) {
  if (epoll_fd_ < 0) {
    reactor_internal::ReportErrno("reactor: epoll_create1 failed");
    std::abort();
  }
}

EpollPoller::~EpollPoller() { ::close(epoll_fd_); }

Clock::time_point EpollPoller::poll(int timeout_ms, ChannelList* active) {
  const int n = ::epoll_wait(epoll_fd_, events_.data(),
                             static_cast<int>(events_.size()), timeout_ms);
  const int saved = errno;
  const auto now = Clock::now();
  if (n > 0) {
    for (int i = 0; i < n; ++i) {
      auto* channel = static_cast<Channel*>(events_[i].data.ptr);
      channel->set_revents(static_cast<int>(events_[i].events));
      active->push_back(channel);
    }
    if (static_cast<std::size_t>(n) == events_.size()) {
      events_.resize(events_.size() * 2);
    }
  } else if (n < 0 && saved != EINTR) {
    reactor_internal::ReportErrno(saved, "reactor: epoll_wait failed");
  }
  return now;
}

void EpollPoller::update_channel(Channel* channel) {
  const int index = channel->index();
  if (index == kNew || index == kDeleted) {
    if (index == kNew) channels_[channel->fd()] = channel;
    channel->set_index(kAdded);
    ctl(EPOLL_CTL_ADD, channel);
  } else if (channel->is_none_event()) {
    ctl(EPOLL_CTL_DEL, channel);
    channel->set_index(kDeleted);
  } else {
    ctl(EPOLL_CTL_MOD, channel);
  }
}

void EpollPoller::remove_channel(Channel* channel) {
  channels_.erase(channel->fd());
  if (channel->index() == kAdded) ctl(EPOLL_CTL_DEL, channel);
  channel->set_index(kNew);
}

bool EpollPoller::has_channel(Channel* channel) const {
  auto it = channels_.find(channel->fd());
  return it != channels_.end() && it->second == channel;
}

void EpollPoller::ctl(int op, Channel* channel) {
  struct epoll_event event;
  std::memset(&event, 0, sizeof(event));
  event.events = static_cast<std::uint32_t>(channel->events());
  event.data.ptr = channel;
  if (::epoll_ctl(epoll_fd_, op, channel->fd(), &event) < 0) {
    reactor_internal::ReportErrno("reactor: epoll_ctl(op=%d, fd=%d) failed", op,
                                  channel->fd());
  }
}

}  // namespace serverkit::reactor
