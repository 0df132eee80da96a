// BlockingQueue<Q, W> over every wait strategy: blocking producers and
// consumers conserve every item, a bounded queue makes producers wait, and
// close() wakes every waiter and lets consumers drain what is left.

#include "queues/wait_strategy.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "base/sanitizers.h"
#include "base/thread_state.h"
#include "gtest/gtest.h"
#include "queues/all_queues.h"

namespace serverkit {
namespace {

template <typename W>
class WaitStrategyTest : public ::testing::Test {};

class WaitNames {
 public:
  template <typename W>
  static std::string GetName(int) {
    return std::string(W::kName);
  }
};

using Strategies =
    ::testing::Types<SpinWait, YieldWait, FutexWait<>, CondVarWait<>>;
TYPED_TEST_SUITE(WaitStrategyTest, Strategies, WaitNames);

// Strategies that park a waiter in the kernel (futex); spin and yield never
// sleep, so for them "waiting" can only be seen as "has not returned".
template <typename W>
constexpr bool kParks =
    !std::is_same_v<W, SpinWait> && !std::is_same_v<W, YieldWait>;

// Polls (1 ms) until every thread in `tids` is parked; fails after 5 s.
::testing::AssertionResult AllParked(const std::vector<long>& tids) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    std::string why;
    long culprit = 0;
    for (long tid : tids) {
      why = NotParkedReason(tid);
      if (!why.empty()) {
        culprit = tid;
        break;
      }
    }
    if (why.empty()) return ::testing::AssertionSuccess();
    if (std::chrono::steady_clock::now() > deadline) {
      return ::testing::AssertionFailure()
             << "thread " << culprit << " never blocked within 5 s: " << why;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Waits (5 s at most) until every slot holds a tid, and returns them.
std::vector<long> PublishedTids(const std::vector<std::atomic<long>>& slots) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::vector<long> tids;
  for (const auto& slot : slots) {
    long tid;
    while ((tid = slot.load()) == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    tids.push_back(tid);
  }
  return tids;
}

constexpr std::uint64_t kPerProducer = kUnderTsan ? 5'000 : 50'000;

// A small bounded queue, so producers really wait for room.
template <typename W>
using SmallQueue = BlockingQueue<BoundedMpmcQueue<std::uint64_t>, W>;

TYPED_TEST(WaitStrategyTest, BlockingProducersAndConsumersConserveItems) {
  SmallQueue<TypeParam> q(8);
  constexpr int kProducers = 3, kConsumers = 2;
  // Pure spinning with more threads than cores advances only as fast as the
  // scheduler preempts spinners (80 s for 150k items, twice in 50 runs on 2
  // loaded cores): fewer items bound the time; conservation is still checked.
  const bool starved = std::is_same_v<TypeParam, SpinWait> &&
                       std::thread::hardware_concurrency() <
                           static_cast<unsigned>(kProducers + kConsumers);
  const std::uint64_t per_producer = starved ? kPerProducer / 10 : kPerProducer;
  std::atomic<std::uint64_t> sum{0}, count{0};
  std::vector<std::thread> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&] {
      std::uint64_t v;
      while (q.pop(v)) {
        sum.fetch_add(v);
        count.fetch_add(1);
      }
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&] {
      for (std::uint64_t i = 0; i < per_producer; ++i) {
        ASSERT_TRUE(q.push(std::uint64_t{i}));
      }
    });
  }
  for (auto& t : producers) t.join();
  q.close();
  for (auto& t : consumers) t.join();
  EXPECT_EQ(count.load(), kProducers * per_producer);
  EXPECT_EQ(sum.load(), kProducers * (per_producer * (per_producer - 1) / 2));
}

TYPED_TEST(WaitStrategyTest, CloseWakesWaitingConsumers) {
  BlockingQueue<MutexQueue<int>, TypeParam> q(16);
  std::atomic<int> returned{0};
  std::vector<std::atomic<long>> tids(3);
  std::vector<std::thread> consumers;
  for (int c = 0; c < 3; ++c) {
    consumers.emplace_back([&, c] {
      tids[c].store(CurrentTid());
      int v;
      EXPECT_FALSE(q.pop(v));
      returned.fetch_add(1);
    });
  }
  const std::vector<long> waiting = PublishedTids(tids);
  for (long tid : waiting) EXPECT_NE(tid, 0) << "a consumer never started";
  if constexpr (kParks<TypeParam>) {
    EXPECT_TRUE(AllParked(waiting)) << "consumers must block in pop()";
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(returned.load(), 0) << "pop returned on an open, empty queue";
  q.close();
  for (auto& t : consumers) t.join();
  EXPECT_EQ(returned.load(), 3);
}

TYPED_TEST(WaitStrategyTest, CloseDrainsThenFails) {
  BlockingQueue<MutexQueue<int>, TypeParam> q(16);
  ASSERT_TRUE(q.push(1));
  ASSERT_TRUE(q.push(2));
  q.close();
  EXPECT_FALSE(q.push(3)) << "push after close must fail";
  int v = 0;
  ASSERT_TRUE(q.pop(v));
  EXPECT_EQ(v, 1);
  ASSERT_TRUE(q.pop(v));
  EXPECT_EQ(v, 2);
  EXPECT_FALSE(q.pop(v));
}

TYPED_TEST(WaitStrategyTest, CloseWakesBlockedProducer) {
  SmallQueue<TypeParam> q(2);
  const std::size_t cap = q.queue().capacity();
  for (std::size_t i = 0; i < cap; ++i) ASSERT_TRUE(q.push(std::uint64_t{i}));
  std::atomic<bool> result{true};
  std::atomic<bool> returned{false};
  std::vector<std::atomic<long>> tid(1);
  std::thread producer([&] {
    tid[0].store(CurrentTid());
    result = q.push(std::uint64_t{99});
    returned.store(true);
  });
  const std::vector<long> waiting = PublishedTids(tid);
  EXPECT_NE(waiting[0], 0) << "the producer never started";
  if constexpr (kParks<TypeParam>) {
    EXPECT_TRUE(AllParked(waiting)) << "push on a full queue must block";
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_FALSE(returned.load()) << "push returned on an open, full queue";
  q.close();
  producer.join();
  EXPECT_FALSE(result.load())
      << "a push blocked on a full queue must fail on close";
}

// A state that becomes ready with no notify (a lost wake-up) ends a parked
// FutexWait within its rescue period, and is counted; a notified wake-up
// is not.
TEST(FutexWaitRescueTest, ALostWakeUpCostsOnePeriodAndIsCounted) {
  FutexWait<1> w;
  std::atomic<bool> ready{false};
  std::atomic<long> tid{0};
  const std::uint64_t before = FutexWaitRescues();
  std::thread waiter([&] {
    tid.store(CurrentTid());
    w.wait_until([&] { return ready.load(); });
  });
  while (tid.load() == 0) std::this_thread::yield();
  ASSERT_TRUE(AllParked({tid.load()}));
  const auto set = std::chrono::steady_clock::now();
  ready.store(true);  // no notify: the wake-up is lost on purpose
  waiter.join();
  const auto took = std::chrono::steady_clock::now() - set;
  EXPECT_LT(took, std::chrono::seconds(2))
      << "a lost wake-up must cost about one rescue period (100 ms)";
  EXPECT_EQ(FutexWaitRescues(), before + 1);

  std::atomic<bool> go{false};
  tid.store(0);
  std::thread notified([&] {
    tid.store(CurrentTid());
    w.wait_until([&] { return go.load(); });
  });
  while (tid.load() == 0) std::this_thread::yield();
  ASSERT_TRUE(AllParked({tid.load()}));
  go.store(true);
  w.notify_one();
  notified.join();
  EXPECT_EQ(FutexWaitRescues(), before + 1) << "a notified wake counted";
}

}  // namespace
}  // namespace serverkit
