// SpinThenYield pauses kSpinsBeforeYield times, then yields; SpinThenYieldUntil
// returns on the first true answer, also when the answer comes from a thread
// that needs the waiter's core (more threads than cores).

#include "base/spin_wait.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace serverkit {
namespace {

TEST(SpinThenYieldTest, YieldsAfterItsSpins) {
  SpinThenYield backoff;
  for (unsigned i = 0; i < kSpinsBeforeYield; ++i) {
    EXPECT_FALSE(backoff.yielding()) << "after " << i << " pauses";
    backoff.Pause();
  }
  EXPECT_TRUE(backoff.yielding());
  backoff.Pause();
  EXPECT_TRUE(backoff.yielding());
}

TEST(SpinThenYieldUntilTest, StopsAtTheFirstTrue) {
  int calls = 0;
  SpinThenYieldUntil([&] { return ++calls == 3; });
  EXPECT_EQ(calls, 3);

  calls = 0;
  SpinThenYieldUntil([&] { return ++calls == 1; });
  EXPECT_EQ(calls, 1);
}

// Four waiters and a setter on however many cores there are: the waiters
// yield, so the setter runs and everyone returns.
TEST(SpinThenYieldUntilTest, WaitsForAnotherThread) {
  std::atomic<bool> go{false};
  std::atomic<int> done{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&] {
      SpinThenYieldUntil([&] { return go.load(std::memory_order_acquire); });
      done.fetch_add(1, std::memory_order_relaxed);
    });
  }
  std::thread setter([&] { go.store(true, std::memory_order_release); });
  setter.join();
  for (auto& t : waiters) t.join();
  EXPECT_EQ(done.load(), 4);
}

}  // namespace
}  // namespace serverkit
