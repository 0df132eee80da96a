// TimerList, the loop's timer bookkeeping, with a fake clock: the order of
// equal times, one-shot and periodic timers, cancelling from a callback (the
// running timer, a later one due in the same round), ids that are unknown or
// already fired, and timers a callback adds.

#include "reactor/timer_list.h"

#include <chrono>
#include <optional>
#include <vector>

#include "gtest/gtest.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

const Clock::time_point kT0{};  // the fake clock's origin

class TimerListTest : public ::testing::Test {
 protected:
  // A one-shot (interval zero) or periodic timer that records its id.
  void Add(TimerId id, Clock::duration at, Clock::duration interval = 0ms) {
    list_.add(id, kT0 + at, interval, [this, id] { fired_.push_back(id); });
  }
  // The ids fired by expire(kT0 + at), and forgets them.
  std::vector<TimerId> ExpireAt(Clock::duration at) {
    fired_.clear();
    list_.expire(kT0 + at);
    return fired_;
  }

  TimerList list_;
  std::vector<TimerId> fired_;
};

TEST_F(TimerListTest, EmptyHasNoEarliest) {
  EXPECT_EQ(list_.earliest(), std::nullopt);
  EXPECT_TRUE(ExpireAt(1h).empty());
  EXPECT_EQ(list_.size(), 0u);
}

TEST_F(TimerListTest, FiresInOrderOfTimeThenInsertion) {
  Add(1, 20ms);
  Add(2, 10ms);
  Add(3, 20ms);
  Add(4, 10ms);
  Add(5, 30ms);
  EXPECT_EQ(list_.earliest(), kT0 + 10ms);
  EXPECT_EQ(ExpireAt(9ms), std::vector<TimerId>{});
  EXPECT_EQ(ExpireAt(20ms), (std::vector<TimerId>{2, 4, 1, 3}));
  EXPECT_EQ(list_.earliest(), kT0 + 30ms);
  EXPECT_EQ(ExpireAt(30ms), std::vector<TimerId>{5});
  EXPECT_EQ(list_.earliest(), std::nullopt);
  EXPECT_EQ(list_.size(), 0u);
}

TEST_F(TimerListTest, CancelledTimerDoesNotFire) {
  Add(1, 10ms);
  Add(2, 10ms);
  list_.cancel(1);
  EXPECT_EQ(list_.size(), 1u);
  EXPECT_EQ(ExpireAt(10ms), std::vector<TimerId>{2});
}

TEST_F(TimerListTest, CancelOfAnUnknownOrFiredIdIsANoOp) {
  Add(1, 10ms);
  list_.cancel(99);
  list_.cancel(0);
  EXPECT_EQ(list_.size(), 1u);
  EXPECT_EQ(list_.earliest(), kT0 + 10ms);
  EXPECT_EQ(ExpireAt(10ms), std::vector<TimerId>{1});
  list_.cancel(1);  // fired already
  EXPECT_EQ(list_.size(), 0u);
  EXPECT_EQ(list_.earliest(), std::nullopt);
}

TEST_F(TimerListTest, CallbackCancelsALaterTimerDueInTheSameRound) {
  list_.add(1, kT0 + 10ms, 0ms, [this] {
    fired_.push_back(1);
    list_.cancel(2);
  });
  Add(2, 10ms);
  Add(3, 15ms);
  EXPECT_EQ(ExpireAt(20ms), (std::vector<TimerId>{1, 3}));
  EXPECT_EQ(list_.size(), 0u);
}

TEST_F(TimerListTest, CallbackCancelsATimerNotYetDue) {
  list_.add(1, kT0 + 10ms, 0ms, [this] {
    fired_.push_back(1);
    list_.cancel(2);
  });
  Add(2, 50ms);
  EXPECT_EQ(ExpireAt(10ms), std::vector<TimerId>{1});
  EXPECT_EQ(list_.earliest(), std::nullopt);
  EXPECT_TRUE(ExpireAt(1h).empty());
}

TEST_F(TimerListTest, PeriodicTimerIsRearmedFromNow) {
  Add(1, 10ms, 5ms);
  EXPECT_EQ(ExpireAt(12ms), std::vector<TimerId>{1});
  EXPECT_EQ(list_.earliest(), kT0 + 17ms);  // now + interval, not when + it
  EXPECT_EQ(ExpireAt(16ms), std::vector<TimerId>{});
  // Late by several intervals: it fires once, not once per interval missed.
  EXPECT_EQ(ExpireAt(40ms), std::vector<TimerId>{1});
  EXPECT_EQ(list_.earliest(), kT0 + 45ms);
  EXPECT_EQ(list_.size(), 1u);
}

TEST_F(TimerListTest, PeriodicTimerCancelsItself) {
  int runs = 0;
  list_.add(7, kT0 + 10ms, 10ms, [this, &runs] {
    fired_.push_back(7);
    if (++runs == 3) list_.cancel(7);
  });
  EXPECT_EQ(ExpireAt(10ms), std::vector<TimerId>{7});
  EXPECT_EQ(ExpireAt(20ms), std::vector<TimerId>{7});
  EXPECT_EQ(ExpireAt(30ms), std::vector<TimerId>{7});
  EXPECT_EQ(list_.earliest(), std::nullopt);
  EXPECT_EQ(list_.size(), 0u);
  EXPECT_TRUE(ExpireAt(1h).empty());
  EXPECT_EQ(runs, 3);
}

TEST_F(TimerListTest, ReArmedPeriodicGoesBehindTimersAtTheSameTime) {
  Add(2, 15ms);       // already at 15 ms
  Add(1, 10ms, 5ms);  // fires at 10 ms, re-armed at 10 + 5 = 15 ms
  EXPECT_EQ(ExpireAt(10ms), std::vector<TimerId>{1});
  EXPECT_EQ(ExpireAt(15ms), (std::vector<TimerId>{2, 1}));
}

TEST_F(TimerListTest, TimerAddedByACallbackFiresInALaterRound) {
  list_.add(1, kT0 + 10ms, 0ms, [this] {
    fired_.push_back(1);
    Add(2, 5ms);  // already due, but decided on entry: not this round
  });
  EXPECT_EQ(ExpireAt(10ms), std::vector<TimerId>{1});
  EXPECT_EQ(list_.earliest(), kT0 + 5ms);
  EXPECT_EQ(ExpireAt(10ms), std::vector<TimerId>{2});
}

}  // namespace
}  // namespace serverkit::reactor
