// BlockingQueue<Q, W> over every wait strategy: blocking producers and
// consumers conserve every item, a bounded queue makes producers wait, and
// close() wakes every waiter and lets consumers drain what is left.

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "base/sanitizers.h"
#include "gtest/gtest.h"
#include "queues/all_queues.h"
#include "queues/wait_strategy.h"

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

constexpr std::uint64_t kPerProducer = kUnderTsan ? 5'000 : 50'000;

// A small bounded queue, so producers really wait for room.
template <typename W>
using SmallQueue = BlockingQueue<BoundedMpmcQueue<std::uint64_t>, W>;

TYPED_TEST(WaitStrategyTest, BlockingProducersAndConsumersConserveItems) {
  SmallQueue<TypeParam> q(8);
  constexpr int kProducers = 3, kConsumers = 2;
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
      for (std::uint64_t i = 0; i < kPerProducer; ++i) {
        ASSERT_TRUE(q.push(std::uint64_t{i}));
      }
    });
  }
  for (auto& t : producers) t.join();
  q.close();
  for (auto& t : consumers) t.join();
  EXPECT_EQ(count.load(), kProducers * kPerProducer);
  EXPECT_EQ(sum.load(), kProducers * (kPerProducer * (kPerProducer - 1) / 2));
}

TYPED_TEST(WaitStrategyTest, CloseWakesWaitingConsumers) {
  BlockingQueue<MutexQueue<int>, TypeParam> q(16);
  std::atomic<int> returned{0};
  std::vector<std::thread> consumers;
  for (int c = 0; c < 3; ++c) {
    consumers.emplace_back([&] {
      int v;
      EXPECT_FALSE(q.pop(v));
      returned.fetch_add(1);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
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
  std::thread producer([&] { result = q.push(std::uint64_t{99}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  q.close();
  producer.join();
  EXPECT_FALSE(result.load()) << "a push blocked on a full queue must fail on close";
}

}  // namespace
}  // namespace serverkit
