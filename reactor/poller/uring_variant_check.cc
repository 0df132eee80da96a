// -----------------------------------------------------------------------------
// reactor/poller/uring_variant_check.cc
// -----------------------------------------------------------------------------
//
// Linked into every reactor test. Where a test target asks for io_uring
// (SERVERKIT_REACTOR_BACKEND=uring) and io_uring cannot be set up here, its
// loops fall back to epoll, so the target tested epoll, not io_uring: it says
// so in the line .ci/run counts as a skip ("serverkit-test: SKIPPED").

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>

#include "reactor/event_loop.h"
#include "reactor/poller.h"
#include "reactor/poller/uring_poller.h"

namespace serverkit::reactor {
namespace {

class UringVariantCheck : public ::testing::Environment {
 public:
  void SetUp() override {
    if (DefaultPollerBackend() != PollerBackend::kUring) return;
    EventLoopOptions options;
    options.backend = PollerBackend::kEpoll;
    EventLoop loop(std::move(options));
    std::string why;
    if (UringPoller::Create(&loop, &why) != nullptr) return;
    std::printf(
        "serverkit-test: SKIPPED io_uring is not available here (%s); this "
        "io_uring target ran on epoll\n",
        why.c_str());
  }
};

[[maybe_unused]] ::testing::Environment* const kCheck =
    ::testing::AddGlobalTestEnvironment(new UringVariantCheck);

}  // namespace
}  // namespace serverkit::reactor
