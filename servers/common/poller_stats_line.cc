#include "servers/common/poller_stats_line.h"

#include <cstdio>
#include <future>
#include <string>

namespace serverkit::servers {

std::string PollerName(const reactor::EventLoop& loop) {
  if (loop.backend() != reactor::PollerBackend::kUring) return "epoll";
  return loop.completion_io() != nullptr ? "uring (completion I/O)"
                                         : "uring (readiness I/O)";
}

reactor::PollerStats CollectPollerStats(
    const std::vector<reactor::EventLoop*>& loops, reactor::EventLoop* self) {
  reactor::PollerStats sum;
  for (reactor::EventLoop* l : loops) {
    if (l == self) {
      sum.add(l->poller_stats());
      continue;
    }
    std::promise<reactor::PollerStats> got;
    std::future<reactor::PollerStats> stats = got.get_future();
    l->run_in_loop([l, &got] { got.set_value(l->poller_stats()); });
    sum.add(stats.get());
  }
  return sum;
}

void PrintPollerStats(const std::vector<reactor::EventLoop*>& loops,
                      reactor::EventLoop* self) {
  const reactor::PollerStats s = CollectPollerStats(loops, self);
  const std::string line = self->backend() == reactor::PollerBackend::kUring
                               ? reactor::FormatUringStats(s)
                               : reactor::FormatEpollStats(s);
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace serverkit::servers
