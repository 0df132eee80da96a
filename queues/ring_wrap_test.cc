// Our rings' positions are std::size_t counters that wrap at 2^64 (and pass
// 2^63, where a signed view of them changes sign). No run reaches that by
// counting, so these tests start the positions just short of it
// (`StartPositionForTesting`) and cross it: exactly full across the wrap,
// the destructor across it, and the concurrent conservation check (every
// value popped exactly once, per-producer order kept) with the crossing in
// the middle of the run.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/sanitizers.h"
#include "gtest/gtest.h"
#include "queues/bounded_mpmc_queue.h"
#include "queues/internal/sequenced_slots.h"
#include "queues/queue.h"
#include "queues/sharded_mpmc_queue.h"
#include "queues/spsc_ring_queue.h"

namespace serverkit {
namespace {

using queues_internal::StartPositionForTesting;

// Items each concurrent run moves through a ring: at least 10^7 pushes and
// as many pops in a plain build; ThreadSanitizer runs them far slower.
constexpr std::uint64_t kItems = kUnderTsan        ? 400'000
                                 : kUnderSanitizer ? 2'000'000
                                                   : 10'000'000;
// The sharded queue's shards in these tests: each gets half the producers.
constexpr std::size_t kShards = 2;
constexpr std::size_t k2To63 = std::size_t{1} << 63;
// Small, so the ring also runs full and empty many times around the wrap.
constexpr std::size_t kWrapCapacity = 256;

template <template <typename> class Q>
struct Ring {
  template <typename T>
  using Of = Q<T>;
};

// The sharded queue has positions per shard, and a constructor to match.
template <typename Q>
constexpr bool kSharded =
    std::is_same_v<Q, ShardedMpmcQueue<typename Q::value_type>>;

// Builds a ring whose positions start at `start`.
template <typename Q>
std::unique_ptr<Q> MakeAt(std::size_t capacity, std::size_t start) {
  if constexpr (kSharded<Q>) {
    return std::make_unique<Q>(capacity, kShards,
                               StartPositionForTesting{start});
  } else {
    return std::make_unique<Q>(capacity, StartPositionForTesting{start});
  }
}

// Counts live objects, to check what the destructor destroys across a wrap.
struct Counted {
  static inline std::atomic<long> live{0};
  Counted() { live.fetch_add(1); }
  explicit Counted(std::uint64_t v) : value(v) { live.fetch_add(1); }
  Counted(Counted&& o) noexcept : value(o.value) { live.fetch_add(1); }
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { live.fetch_sub(1); }
  std::uint64_t value = 0;
};

template <typename F>
class RingWrapTest : public ::testing::Test {};

class RingNames {
 public:
  template <typename F>
  static std::string GetName(int) {
    return std::string(F::template Of<int>::kName);
  }
};

using Rings = ::testing::Types<Ring<BoundedMpmcQueue>, Ring<SpscRingQueue>,
                               Ring<ShardedMpmcQueue>>;
TYPED_TEST_SUITE(RingWrapTest, Rings, RingNames);

// Exactly full with the wrap inside the ring: capacity() pushes succeed, the
// next fails, one pop makes room for exactly one; everything comes out in
// order. At several offsets before 2^64 and before 2^63.
TYPED_TEST(RingWrapTest, ExactlyFullAcrossTheWrap) {
  using Q = typename TypeParam::template Of<std::uint64_t>;
  for (const std::size_t capacity : {2, 3, 16}) {
    for (const std::size_t before : {1, 2, 7, 16}) {
      for (const std::size_t boundary : {std::size_t{0}, k2To63}) {
        const std::size_t start = boundary - before;
        SCOPED_TRACE("capacity " + std::to_string(capacity) + ", start " +
                     std::to_string(start));
        auto q = MakeAt<Q>(capacity, start);
        const std::size_t cap = q->capacity();
        std::uint64_t next_in = 0;
        std::uint64_t next_out = 0;
        std::uint64_t out = 0;
        for (int lap = 0; lap < 3; ++lap) {
          for (std::size_t i = 0; i < cap; ++i) {
            ASSERT_TRUE(q->try_push(next_in++));
          }
          std::uint64_t extra = 0;
          ASSERT_FALSE(q->try_push(std::move(extra)));
          ASSERT_TRUE(q->try_pop(out));
          ASSERT_EQ(out, next_out++);
          ASSERT_TRUE(q->try_push(next_in++));
          ASSERT_FALSE(q->try_push(std::move(extra)));
          for (std::size_t i = 0; i < cap; ++i) {
            ASSERT_TRUE(q->try_pop(out));
            ASSERT_EQ(out, next_out++);
          }
          ASSERT_FALSE(q->try_pop(out));
        }
      }
    }
  }
}

// The destructor destroys exactly the items left in the ring when they
// straddle the wrap.
TYPED_TEST(RingWrapTest, DestroysWhatIsLeftAcrossTheWrap) {
  using Q = typename TypeParam::template Of<Counted>;
  const long before = Counted::live.load();
  {
    auto q = MakeAt<Q>(8, std::size_t{0} - 3);
    for (std::uint64_t i = 0; i < 6; ++i) ASSERT_TRUE(q->try_push(Counted(i)));
    Counted out;
    ASSERT_TRUE(q->try_pop(out));
    EXPECT_EQ(out.value, 0u);
  }
  EXPECT_EQ(Counted::live.load(), before);
}

// P producers push (producer << 32 | seq), C consumers pop until kItems are
// accounted for; the ring's positions start kItems / 2 (per shard) before
// 2^64, so the wrap comes halfway. `blocking` uses spin_push / spin_pop:
// bounded-mpmc's fetch_add claims and parking pop. Checks that every value
// is popped exactly once and that each consumer sees each producer's values
// in order.
template <typename Q>
void RunAcrossTheWrap(int producers, int consumers, bool blocking) {
  const std::uint64_t per_producer = kItems / producers;
  const std::uint64_t total = per_producer * producers;
  // Each shard takes the pushes of producers / kShards producers.
  const std::uint64_t per_ring = kSharded<Q> ? total / kShards : total;
  const std::size_t start = std::size_t{0} - per_ring / 2;
  ASSERT_LT(start + per_ring, start) << "the run would not reach the wrap";
  auto q = MakeAt<Q>(kWrapCapacity, start);

  std::vector<std::atomic<std::uint8_t>> seen(total);
  std::atomic<std::uint64_t> popped{0};
  std::atomic<std::uint64_t> order_violations{0};
  std::atomic<std::uint64_t> bad{0};
  std::atomic<bool> timed_out{false};
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(240);
  const auto began = std::chrono::steady_clock::now();

  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      Producer<Q> handle(*q);
      for (std::uint64_t i = 0; i < per_producer; ++i) {
        std::uint64_t v = (static_cast<std::uint64_t>(p) << 32) | i;
        if (blocking) {
          handle.spin_push(std::move(v));
          continue;
        }
        while (!handle.try_push(std::move(v))) {
          if (timed_out.load(std::memory_order_relaxed)) return;
          std::this_thread::yield();
        }
      }
    });
  }
  for (int c = 0; c < consumers; ++c) {
    threads.emplace_back([&] {
      Consumer<Q> handle(*q);
      std::vector<std::int64_t> last(producers, -1);
      std::uint64_t unflushed = 0;  // popped here, not yet in `popped`
      auto take = [&](std::uint64_t v) {
        const std::uint64_t p = v >> 32;
        const std::uint64_t i = v & 0xffffffffu;
        if (p >= static_cast<std::uint64_t>(producers) || i >= per_producer ||
            seen[p * per_producer + i].fetch_add(1) != 0) {
          bad.fetch_add(1);  // duplicated, or a value nobody pushed
          return;
        }
        if (static_cast<std::int64_t>(i) <= last[p]) {
          order_violations.fetch_add(1);
        }
        last[p] = static_cast<std::int64_t>(i);
        ++unflushed;
      };
      if (blocking) {
        // Every consumer pops its share: a lost item hangs one, and the
        // test's timeout fails it.
        for (std::uint64_t n = 0; n < total / consumers; ++n) {
          std::uint64_t v = 0;
          handle.spin_pop(v);
          take(v);
        }
        popped.fetch_add(unflushed);
        return;
      }
      // The shared count is brought up to date whenever the queue looks
      // empty, so consumers do not all write one line per item.
      std::uint32_t idle = 0;
      for (;;) {
        std::uint64_t v = 0;
        if (handle.try_pop(v)) {
          take(v);
          continue;
        }
        if (unflushed != 0) {
          popped.fetch_add(std::exchange(unflushed, 0));
        }
        if (popped.load() >= total) return;
        if ((++idle & 0xff) == 0) {
          if (std::chrono::steady_clock::now() > deadline) {
            timed_out.store(true);
            return;
          }
          std::this_thread::yield();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began)
          .count();
  std::printf("[ wrap     ] %s, %dP/%dC%s: %llu items across 2^64 in %.2f s\n",
              std::string(Q::kName).c_str(), producers, consumers,
              blocking ? " blocking" : "",
              static_cast<unsigned long long>(total), seconds);

  ASSERT_FALSE(timed_out.load())
      << "consumers gave up with " << popped.load() << " of " << total
      << " items: items were lost";
  EXPECT_EQ(popped.load(), total);
  EXPECT_EQ(bad.load(), 0u) << "duplicated or corrupted items";
  EXPECT_EQ(order_violations.load(), 0u) << "per-producer order broken";
  std::uint64_t missing = 0;
  for (auto& s : seen) missing += s.load() == 0;
  EXPECT_EQ(missing, 0u);
  std::uint64_t leftover = 0;
  EXPECT_FALSE(q->try_pop(leftover));
}

TYPED_TEST(RingWrapTest, ConservationAcrossTheWrap) {
  using Q = typename TypeParam::template Of<std::uint64_t>;
  if constexpr (Q::kTopology == Topology::kSpsc) {
    RunAcrossTheWrap<Q>(1, 1, /*blocking=*/false);
  } else {
    RunAcrossTheWrap<Q>(4, 4, /*blocking=*/false);
  }
}

// bounded-mpmc's own push / pop claim with fetch_add and park consumers; the
// other rings have no blocking operations of their own.
TYPED_TEST(RingWrapTest, BlockingConservationAcrossTheWrap) {
  using Q = typename TypeParam::template Of<std::uint64_t>;
  if constexpr (!HasNativeBlocking<Q>) {
    GTEST_SKIP() << "no native blocking push / pop";
  } else {
    RunAcrossTheWrap<Q>(4, 4, /*blocking=*/true);
  }
}

}  // namespace
}  // namespace serverkit
