// ShardedMpmcQueue's own policies, beyond the typed conformance tests in
// queue_test.cc (which run it through the shared interface like every queue):
// how tokens are spread over shards, what one producer's capacity is, the
// bound on how long an item waits in a shard no consumer calls home, bad
// shard counts, and conservation with per-producer order over a shard count
// that is not a power of two.

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "base/sanitizers.h"
#include "gtest/gtest.h"
#include "queues/sharded_mpmc_queue.h"

namespace serverkit {
namespace {

using Q = ShardedMpmcQueue<std::uint64_t>;
constexpr unsigned kVisit = Q::kVisitEvery;

TEST(ShardedMpmcQueue, OneProducerFillsOnlyItsShard) {
  Q q(16, 4);
  EXPECT_EQ(q.shards(), 4u);
  EXPECT_GE(q.capacity(), 16u);
  Q::ProducerToken a(q), b(q);
  std::size_t pushed = 0;
  while (pushed < 1000 && q.try_push(a, std::uint64_t{pushed})) ++pushed;
  EXPECT_EQ(pushed, q.capacity());
  std::uint64_t extra = 77;
  EXPECT_FALSE(q.try_push(a, std::move(extra)));
  EXPECT_EQ(extra, 77u);
  // Another producer has a shard of its own: the queue holds more than one
  // shard's capacity in all.
  EXPECT_TRUE(q.try_push(b, std::uint64_t{1000}));
  Q::ConsumerToken c(q);
  std::uint64_t out = 0, n = 0;
  while (q.try_pop(c, out)) ++n;
  EXPECT_EQ(n, q.capacity() + 1);
}

TEST(ShardedMpmcQueue, TokensAreSpreadRoundRobinAndPopsStartAtHome) {
  Q q(64, 4);
  std::vector<Q::ProducerToken> producers;
  for (int i = 0; i < 4; ++i) producers.emplace_back(q);
  auto push_ids = [&] {
    for (std::uint64_t i = 0; i < 4; ++i) {
      ASSERT_TRUE(q.try_push(producers[i], std::uint64_t{i}));
    }
  };
  push_ids();
  Q::ConsumerToken home0(q), home1(q);
  std::uint64_t out = 0;
  for (std::uint64_t want : {0, 1, 2, 3}) {
    ASSERT_TRUE(q.try_pop(home0, out));
    EXPECT_EQ(out, want);
  }
  EXPECT_FALSE(q.try_pop(home0, out));
  push_ids();
  for (std::uint64_t want : {1, 2, 3, 0}) {
    ASSERT_TRUE(q.try_pop(home1, out));
    EXPECT_EQ(out, want);
  }
  // A fifth producer token wraps around to shard 0.
  Q::ProducerToken fifth(q);
  ASSERT_TRUE(q.try_push(fifth, std::uint64_t{42}));
  Q::ConsumerToken c2(q), c3(q), home0_again(q);
  ASSERT_TRUE(q.try_pop(home0_again, out));
  EXPECT_EQ(out, 42u);
}

// An item in a shard that is nobody's home, behind a home shard that never
// runs dry, comes out at the consumer's visit to that shard: by pop
// kVisitEvery * (shards - 1) at the latest.
TEST(ShardedMpmcQueue, AVisitBoundsTheWaitOfAnotherShard) {
  for (std::size_t shards : {2, 3}) {
    SCOPED_TRACE(shards);
    Q q(2 * kVisit + 64, shards);
    std::vector<Q::ProducerToken> p;
    for (std::size_t i = 0; i < shards; ++i) p.emplace_back(q);
    const std::uint64_t home_items = 2 * kVisit + 50;
    for (std::uint64_t v = 0; v < home_items; ++v) {
      ASSERT_TRUE(q.try_push(p[0], std::uint64_t{v}));
    }
    constexpr std::uint64_t kLone = 1'000'000;
    ASSERT_TRUE(q.try_push(p[shards - 1], std::uint64_t{kLone}));
    Q::ConsumerToken c(q);  // home: shard 0
    std::uint64_t out = 0, next_home = 0;
    unsigned lone_at = 0;
    for (unsigned pop = 1; pop <= home_items + 1; ++pop) {
      ASSERT_TRUE(q.try_pop(c, out));
      if (out == kLone) {
        lone_at = pop;
      } else {
        EXPECT_EQ(out, next_home++);  // the home shard stays in order
      }
    }
    EXPECT_EQ(lone_at, kVisit * (shards - 1));
    EXPECT_FALSE(q.try_pop(c, out));
  }
}

TEST(ShardedMpmcQueue, RejectsBadShardCounts) {
  EXPECT_THROW(Q(16, 0), std::invalid_argument);
  EXPECT_THROW(Q(16, Q::kMaxShards + 1), std::invalid_argument);
  Q one(16, 1);
  EXPECT_EQ(one.shards(), 1u);
  Q by_cores(16);
  EXPECT_GE(by_cores.shards(), 1u);
  EXPECT_LE(by_cores.shards(), Q::kMaxShards);
}

// Token-less use: a thread's pushes stay in order, and it pops its own shard.
TEST(ShardedMpmcQueue, TokenlessThreadKeepsItsOrder) {
  Q q(64, 3);
  std::thread([&] {
    for (std::uint64_t v = 0; v < 50; ++v) ASSERT_TRUE(q.try_push(v + 0));
    std::uint64_t out = 0;
    for (std::uint64_t v = 0; v < 50; ++v) {
      ASSERT_TRUE(q.try_pop(out));
      EXPECT_EQ(out, v);
    }
    EXPECT_FALSE(q.try_pop(out));
  }).join();
}

// Three producers and three consumers on three shards (not a power of two),
// with tokens and without: every item exactly once, and each consumer sees
// each producer's items in the order they were pushed.
TEST(ShardedMpmcQueue, ConservationAndProducerOrder) {
  constexpr int kProducers = 3, kConsumers = 3;
  const std::uint64_t per = kUnderSanitizer ? 20'000 : 300'000;
  for (bool tokens : {true, false}) {
    SCOPED_TRACE(tokens ? "tokens" : "token-less");
    Q q(256, 3);
    std::atomic<std::uint64_t> popped{0}, sum{0};
    std::atomic<bool> order_ok{true};
    std::vector<std::thread> threads;
    for (int p = 0; p < kProducers; ++p) {
      threads.emplace_back([&, p] {
        Q::ProducerToken t(q);
        for (std::uint64_t i = 0; i < per; ++i) {
          const std::uint64_t v = (std::uint64_t(p) << 32) | i;
          while (!(tokens ? q.try_push(t, v + 0) : q.try_push(v + 0))) {
            std::this_thread::yield();
          }
        }
      });
    }
    const std::uint64_t total = per * kProducers;
    for (int c = 0; c < kConsumers; ++c) {
      threads.emplace_back([&] {
        Q::ConsumerToken t(q);
        std::uint64_t last[kProducers];
        bool seen[kProducers] = {};
        std::uint64_t local_sum = 0;
        while (popped.load(std::memory_order_relaxed) < total) {
          std::uint64_t v = 0;
          if (!(tokens ? q.try_pop(t, v) : q.try_pop(v))) {
            std::this_thread::yield();
            continue;
          }
          popped.fetch_add(1, std::memory_order_relaxed);
          const auto p = static_cast<int>(v >> 32);
          const std::uint64_t i = v & 0xffffffffu;
          if (p >= kProducers || (seen[p] && i <= last[p])) {
            order_ok.store(false);
          }
          seen[p] = true;
          last[p] = i;
          local_sum += i;
        }
        sum.fetch_add(local_sum);
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_TRUE(order_ok.load());
    EXPECT_EQ(popped.load(), total);
    EXPECT_EQ(sum.load(), kProducers * (per * (per - 1) / 2));
    std::uint64_t v = 0;
    EXPECT_FALSE(q.try_pop(v));
  }
}

}  // namespace
}  // namespace serverkit
