// -----------------------------------------------------------------------------
// reactor/poller/uring_probe.cc
// -----------------------------------------------------------------------------
//
//   uring_probe
//
// Says whether our io_uring poller can be set up here, with the same call the
// loops make (UringPoller::Create): exit 0 and "io_uring: available", or exit
// 1 and "io_uring: not available (<why>)". The io_uring variants of the
// server tests run it first, so a fallback to epoll is reported as a skip.

#include <cstdio>
#include <string>
#include <utility>

#include "reactor/event_loop.h"
#include "reactor/poller/uring_poller.h"

int main() {
  serverkit::reactor::EventLoopOptions options;
  options.backend = serverkit::reactor::PollerBackend::kEpoll;
  serverkit::reactor::EventLoop loop(std::move(options));
  std::string why;
  if (serverkit::reactor::UringPoller::Create(&loop, &why) != nullptr) {
    std::printf("io_uring: available\n");
    return 0;
  }
  std::printf("io_uring: not available (%s)\n", why.c_str());
  return 1;
}
