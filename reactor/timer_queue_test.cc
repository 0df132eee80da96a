// -----------------------------------------------------------------------------
// reactor/timer_queue_test.cc
// -----------------------------------------------------------------------------
//
// TimerQueue over a real loop and its timerfd (TimerList's ordering has its
// own test): a timer fires from the loop's poll no earlier than asked, due
// timers fire in expiry order, a cancelled one never fires, a periodic one
// repeats until cancelled from its own callback, a timer already due fires
// at once, and an earlier timer added after a later one re-arms the fd.

#include "reactor/timer_queue.h"

#include <chrono>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "reactor/event_loop.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

// A loop in this thread, a TimerQueue of its own beside the loop's, and a
// guard that ends a test whose timers never fire.
class TimerQueueTest : public ::testing::Test {
 protected:
  TimerQueueTest() {
    loop_.run_after(5s, [this] { loop_.quit(); });
  }

  // Adds a one-shot timer `delay` from now.
  void After(Clock::duration delay, TimerId id, TimerCallback cb) {
    queue_->add(id, Clock::now() + delay, Clock::duration::zero(),
                std::move(cb));
  }

  EventLoop loop_;
  std::unique_ptr<TimerQueue> queue_ = std::make_unique<TimerQueue>(&loop_);
};

TEST_F(TimerQueueTest, ATimerFiresFromThePollNoEarlierThanAsked) {
  const auto start = Clock::now();
  Clock::time_point fired{};
  After(30ms, 1, [&] {
    fired = Clock::now();
    loop_.quit();
  });
  loop_.loop();
  ASSERT_NE(fired, Clock::time_point{}) << "the timer never fired";
  EXPECT_GE(fired - start, 30ms);
  EXPECT_LT(fired - start, 3s);
}

TEST_F(TimerQueueTest, DueTimersFireInExpiryOrder) {
  std::vector<int> order;
  After(30ms, 1, [&] { order.push_back(3); });
  After(10ms, 2, [&] { order.push_back(1); });
  After(20ms, 3, [&] { order.push_back(2); });
  After(50ms, 4, [&] { loop_.quit(); });
  loop_.loop();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(TimerQueueTest, ACancelledTimerNeverFires) {
  bool cancelled_fired = false;
  After(10ms, 1, [&] { cancelled_fired = true; });
  After(40ms, 2, [&] { loop_.quit(); });
  queue_->cancel(1);
  loop_.loop();
  EXPECT_FALSE(cancelled_fired);
}

TEST_F(TimerQueueTest, APeriodicTimerRepeatsUntilItCancelsItself) {
  int runs = 0;
  queue_->add(1, Clock::now() + 5ms, 5ms, [&] {
    if (++runs == 3) queue_->cancel(1);
  });
  After(100ms, 2, [&] { loop_.quit(); });
  loop_.loop();
  EXPECT_EQ(runs, 3);
}

TEST_F(TimerQueueTest, ATimerAlreadyDueFiresAtTheNextPoll) {
  const auto start = Clock::now();
  bool fired = false;
  queue_->add(1, start - 1s, Clock::duration::zero(), [&] {
    fired = true;
    loop_.quit();
  });
  loop_.loop();
  EXPECT_TRUE(fired);
  EXPECT_LT(Clock::now() - start, 1s);
}

TEST_F(TimerQueueTest, AnEarlierTimerAddedLaterReArmsTheFd) {
  const auto start = Clock::now();
  After(3s, 1, [] {});
  After(20ms, 2, [&] { loop_.quit(); });
  loop_.loop();
  const auto took = Clock::now() - start;
  EXPECT_GE(took, 20ms);
  EXPECT_LT(took, 2s) << "the fd stayed armed for the later timer";
}

}  // namespace
}  // namespace serverkit::reactor
