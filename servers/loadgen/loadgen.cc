// -----------------------------------------------------------------------------
// servers/loadgen/loadgen.cc
// -----------------------------------------------------------------------------
//
// loadgen --protocol=http|echo --port=N --rate=R [flags] (flags.cc: Usage)
//
// An open-loop load generator corrected for coordinated omission (Gil Tene;
// wrk2's method): every request's send time is fixed in advance by the
// schedule, requests are pipelined whether or not replies came back, and
// latency is measured from the intended send time. The uncorrected figure
// is printed beside it, and the generator's own send lag decides whether
// the run is valid at all (report.h).
//
// main: parse the flags, connect every connection (non-blocking, 5 s each),
// spread them round-robin over the worker threads, start all workers at one
// instant, join them, merge, judge, print, write the JSON.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "servers/common/process.h"
#include "servers/loadgen/flags.h"
#include "servers/loadgen/report.h"
#include "servers/loadgen/worker.h"

namespace serverkit::loadgen {
namespace {

constexpr int kConnectTimeoutMs = 5000;

// Connects one non-blocking socket; returns the fd, or -1 with `error` set.
int Connect(const sockaddr_storage& addr, socklen_t len, std::string* error) {
  const int fd =
      ::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  int err = 0;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), len) < 0) {
    err = errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const int n = ::poll(&p, 1, kConnectTimeoutMs);
      socklen_t elen = sizeof err;
      if (n == 0) {
        err = ETIMEDOUT;
      } else if (n < 0 ||
                 ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0) {
        err = errno;
      }
    }
  }
  if (err != 0) {
    *error = std::strerror(err);
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool ParseAddress(const Options& o, sockaddr_storage* addr, socklen_t* len) {
  *addr = {};
  auto* v4 = reinterpret_cast<sockaddr_in*>(addr);
  if (inet_pton(AF_INET, o.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(o.port));
    *len = sizeof(sockaddr_in);
    return true;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(addr);
  if (inet_pton(AF_INET6, o.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(o.port));
    *len = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

int Finish(const Report& report) {
  std::fputs(Summary(report).c_str(), stdout);
  std::fflush(stdout);
  if (!report.options.json.empty()) {
    std::FILE* f = std::fopen(report.options.json.c_str(), "w");
    const std::string json = ToJson(report);
    if (f == nullptr || std::fputs(json.c_str(), f) < 0 ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "loadgen: cannot write %s: %s\n",
                   report.options.json.c_str(), std::strerror(errno));
      return 1;
    }
  }
  return ExitStatus(report);
}

int Main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  const ParsedFlags flags =
      ParseFlags(std::vector<std::string_view>(argv + 1, argv + argc));
  if (flags.help) {
    std::fputs(Usage().data(), stdout);
    return 0;
  }
  if (!flags.error.empty()) {
    std::fprintf(stderr, "loadgen: %s\n%s", flags.error.c_str(),
                 Usage().data());
    return 2;
  }
  Report report;
  report.options = flags.options;
  const Options& o = report.options;
  sockaddr_storage addr;
  socklen_t addr_len = 0;
  ParseAddress(o, &addr, &addr_len);  // the flags checked it is numeric
  servers::RaiseFdLimit();

  std::vector<std::vector<int>> fds(o.threads);
  std::vector<std::vector<int>> indices(o.threads);
  for (int i = 0; i < o.connections; ++i) {
    std::string error;
    const int fd = Connect(addr, addr_len, &error);
    if (fd < 0) {
      report.error = "cannot connect to " + o.host + ":" +
                     std::to_string(o.port) + " (connection " +
                     std::to_string(i) + "): " + error;
      std::fprintf(stderr, "loadgen: %s\n", report.error.c_str());
      for (const auto& list : fds) {
        for (const int f : list) ::close(f);
      }
      Judge(&report);
      Finish(report);
      return 1;
    }
    fds[i % o.threads].push_back(fd);
    indices[i % o.threads].push_back(i);
  }

  std::atomic<bool> abort{false};
  RunPlan plan;
  plan.options = o;
  plan.request = o.protocol == Protocol::kHttp
                     ? HttpRequest(o.path, o.host_header)
                     : EchoRequest(o.size);
  plan.warmup_ns = static_cast<std::int64_t>(o.warmup_s * 1e9);
  plan.end_ns = plan.warmup_ns + static_cast<std::int64_t>(o.duration_s * 1e9);
  plan.max_lag_ns = o.max_lag_us * 1000;
  plan.abort = &abort;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < o.threads; ++t) {
    workers.push_back(
        std::make_unique<Worker>(&plan, fds[t], std::move(indices[t])));
  }
  // A common start, late enough for every thread to have registered its
  // connections and be waiting (about 1 us per epoll_ctl, 10x for margin).
  plan.start = Clock::now() + std::chrono::milliseconds(20) +
               std::chrono::microseconds(10 * o.connections / o.threads);
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->Run(); });
  for (auto& t : threads) t.join();
  for (auto& w : workers) MergeInto(&report, w->result());
  Judge(&report);
  return Finish(report);
}

}  // namespace
}  // namespace serverkit::loadgen

int main(int argc, char** argv) { return serverkit::loadgen::Main(argc, argv); }
