// BoundedMpmcQueue's parking pop: a consumer blocked on an empty queue sleeps
// on its slot (and stops burning CPU), producers wake it with try_push and
// with push, and many consumers that park and wake again and again, beside
// try_pop consumers, still get every item exactly once.
//
// A lost wake-up leaves a consumer asleep for good. The tests wait for their
// threads with a deadline and abort with a message naming the wait that hung,
// rather than leaving Bazel's timeout to kill them without one.

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "base/sanitizers.h"
#include "gtest/gtest.h"
#include "queues/bounded_mpmc_queue.h"
#include "queues/internal/over_aligned_testing.h"

namespace serverkit {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

// Generous, for TSan on a loaded two-core machine; a hang is a lost wake-up.
constexpr auto kDeadline = seconds(60);

// Returns once `done()` is true, or aborts the whole test binary with `what`
// after `kDeadline`: a thread blocked for good in `pop` cannot be joined.
template <typename Pred>
void AwaitOrDie(Pred done, const char* what) {
  const auto deadline = steady_clock::now() + kDeadline;
  while (!done()) {
    if (steady_clock::now() > deadline) {
      std::fprintf(stderr,
                   "FATAL: %s still not done after %lld s "
                   "(a lost wake-up leaves a consumer parked for good)\n",
                   what, static_cast<long long>(kDeadline.count()));
      std::abort();
    }
    std::this_thread::sleep_for(milliseconds(1));
  }
}

// Waits up to `timeout` for `ready()`; returns whether it became true.
template <typename Pred>
bool WaitFor(Pred ready, steady_clock::duration timeout) {
  const auto deadline = steady_clock::now() + timeout;
  while (!ready()) {
    if (steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

// CPU time the thread has used so far.
steady_clock::duration CpuTime(std::thread& t) {
  clockid_t clock;
  if (pthread_getcpuclockid(t.native_handle(), &clock) != 0) return {};
  timespec ts{};
  clock_gettime(clock, &ts);
  return seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

// One consumer blocks in pop() on an empty queue; it must park (enter the
// park step and stop using the CPU), and one push must wake it.
template <typename PushFn>
void ParkThenWake(PushFn push_one) {
  BoundedMpmcQueue<std::uint64_t> q(16);
  std::atomic<bool> done{false};
  std::uint64_t got = 0;
  std::thread consumer([&] {
    q.pop(got);
    done.store(true);
  });
  const bool parked =
      WaitFor([&] { return q.parked_consumers() != 0; }, seconds(30));
  EXPECT_TRUE(parked) << "pop() on an empty queue never reached its park step";
  if (parked) {
    // Parked means asleep in the kernel: its CPU clock must stand still.
    const auto before = CpuTime(consumer);
    std::this_thread::sleep_for(milliseconds(200));
    const auto burned = CpuTime(consumer) - before;
    EXPECT_LT(burned, milliseconds(50))
        << "the parked consumer used "
        << std::chrono::duration_cast<std::chrono::microseconds>(burned).count()
        << " us of CPU in 200 ms: it is spinning, not sleeping";
    EXPECT_FALSE(done.load());
  }
  push_one(q, std::uint64_t{42});
  AwaitOrDie([&] { return done.load(); }, "the consumer woken by one push");
  consumer.join();
  EXPECT_EQ(got, 42u);
  EXPECT_EQ(q.parked_consumers(), 0u);
  std::uint64_t leftover;
  EXPECT_FALSE(q.try_pop(leftover));
}

TEST(BoundedMpmcParkTest, ParkedPopIsWokenByTryPush) {
  ParkThenWake(
      [](auto& q, std::uint64_t v) { ASSERT_TRUE(q.try_push(std::move(v))); });
}

TEST(BoundedMpmcParkTest, ParkedPopIsWokenByPush) {
  ParkThenWake([](auto& q, std::uint64_t v) { q.push(std::move(v)); });
}

// A pop that does not have to wait long never parks.
TEST(BoundedMpmcParkTest, ReadyItemIsPoppedWithoutParking) {
  BoundedMpmcQueue<std::uint64_t> q(16);
  for (std::uint64_t i = 0; i < 10; ++i) q.push(std::uint64_t{i});
  for (std::uint64_t i = 0; i < 10; ++i) {
    std::uint64_t v = 0;
    q.pop(v);
    EXPECT_EQ(v, i);
  }
  EXPECT_EQ(q.parked_consumers(), 0u);
}

constexpr std::uint64_t kPerProducer = kUnderSanitizer ? 3'000 : 30'000;
// Producers pause after every burst until a consumer parks, or kParkWait
// passes once some pause has seen a park; until one has, a pause waits up
// to 30 s, so the tests' "some consumer parked" does not rest on how fast a
// loaded machine gets through the yields before parking.
constexpr std::uint64_t kBurst = 300;
constexpr auto kParkWait = milliseconds(100);

// After a burst: waits for a consumer to park; returns whether one did.
template <typename Q>
bool PauseUntilParked(Q& q, bool parked_before) {
  const steady_clock::duration wait = parked_before
                                          ? steady_clock::duration(kParkWait)
                                          : steady_clock::duration(seconds(30));
  return WaitFor([&] { return q.parked_consumers() != 0; }, wait);
}

// Producer `p` pushes (p << 32 | i) for i < kPerProducer, pausing after every
// burst; even producers use try_push with retry, odd ones push. Counts the
// pauses in which it saw a consumer parked.
void Produce(BoundedMpmcQueue<std::uint64_t>& q, int p,
             std::atomic<std::uint64_t>& saw_parked) {
  for (std::uint64_t i = 0; i < kPerProducer; ++i) {
    std::uint64_t v = (static_cast<std::uint64_t>(p) << 32) | i;
    if (p % 2 == 0) {
      while (!q.try_push(std::move(v))) std::this_thread::yield();
    } else {
      q.push(std::move(v));
    }
    if (i % kBurst == kBurst - 1 &&
        PauseUntilParked(q, saw_parked.load() != 0)) {
      saw_parked.fetch_add(1);
    }
  }
}

// Every item popped exactly once: the right count, no duplicates, the sum.
class Ledger {
 public:
  explicit Ledger(int producers)
      : producers_(producers), seen_(producers * kPerProducer) {}

  void Record(std::uint64_t v) {
    const std::uint64_t p = v >> 32;
    const std::uint64_t i = v & 0xffffffffu;
    if (p >= static_cast<std::uint64_t>(producers_) || i >= kPerProducer ||
        seen_[p * kPerProducer + i].fetch_add(1) != 0) {
      bad_.fetch_add(1);
    }
    sum_.fetch_add(i);
    count_.fetch_add(1);
  }

  std::uint64_t count() const { return count_.load(); }

  void Check() const {
    EXPECT_EQ(count_.load(), producers_ * kPerProducer);
    EXPECT_EQ(bad_.load(), 0u) << "duplicated or corrupted items";
    const std::uint64_t n = kPerProducer;
    EXPECT_EQ(sum_.load(), producers_ * (n * (n - 1) / 2));
    std::uint64_t missing = 0;
    for (const auto& s : seen_) missing += s.load() == 0;
    EXPECT_EQ(missing, 0u) << "items never popped";
  }

 private:
  int producers_;
  std::vector<std::atomic<std::uint8_t>> seen_;
  std::atomic<std::uint64_t> bad_{0};
  std::atomic<std::uint64_t> sum_{0};
  std::atomic<std::uint64_t> count_{0};
};

// Three consumers pop() a fixed share each while two producers push in
// bursts, so the consumers park and are woken over and over (the run prints
// how many pauses saw a consumer parked).
TEST(BoundedMpmcParkTest, ParkingConsumersGetEveryItemOnce) {
  constexpr int kProducers = 2, kConsumers = 3;
  static_assert(kProducers * kPerProducer % kConsumers == 0);
  BoundedMpmcQueue<std::uint64_t> q(64);
  Ledger ledger(kProducers);
  std::atomic<std::uint64_t> saw_parked{0};
  std::atomic<int> finished{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&] {
      for (std::uint64_t n = 0; n < kProducers * kPerProducer / kConsumers;
           ++n) {
        std::uint64_t v = 0;
        q.pop(v);
        ledger.Record(v);
      }
      finished.fetch_add(1);
    });
  }
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      Produce(q, p, saw_parked);
      finished.fetch_add(1);
    });
  }
  AwaitOrDie([&] { return finished.load() == kProducers + kConsumers; },
             "producers and parking consumers");
  for (auto& t : threads) t.join();
  ledger.Check();
  std::printf(
      "[ parked   ] in %llu of %llu pauses\n",
      static_cast<unsigned long long>(saw_parked.load()),
      static_cast<unsigned long long>(kProducers * (kPerProducer / kBurst)));
  EXPECT_GT(saw_parked.load(), 0u) << "no consumer ever parked: the test "
                                      "did not exercise the park step";
  EXPECT_EQ(q.parked_consumers(), 0u);
  std::uint64_t leftover;
  EXPECT_FALSE(q.try_pop(leftover));
}

// Parking pop() consumers beside try_pop() consumers. The try_pop consumers
// stop once every item is counted; the pop() consumers, blocked on positions
// past the last item, each get one sentinel.
TEST(BoundedMpmcParkTest, ParkingAndTryPopConsumersShareItems) {
  constexpr int kProducers = 2, kParking = 2, kPolling = 2;
  constexpr std::uint64_t kSentinel = ~std::uint64_t{0};
  BoundedMpmcQueue<std::uint64_t> q(64);
  Ledger ledger(kProducers);
  std::atomic<std::uint64_t> saw_parked{0};
  std::atomic<std::uint64_t> by_pop{0}, by_try_pop{0};
  std::atomic<int> producers_done{0}, polling_done{0}, parking_done{0};
  const std::uint64_t total = kProducers * kPerProducer;

  std::vector<std::thread> threads;
  for (int c = 0; c < kParking; ++c) {
    threads.emplace_back([&] {
      for (;;) {
        std::uint64_t v = 0;
        q.pop(v);
        if (v == kSentinel) break;
        ledger.Record(v);
        by_pop.fetch_add(1);
      }
      parking_done.fetch_add(1);
    });
  }
  for (int c = 0; c < kPolling; ++c) {
    threads.emplace_back([&] {
      while (ledger.count() < total) {
        std::uint64_t v = 0;
        if (q.try_pop(v)) {
          ledger.Record(v);
          by_try_pop.fetch_add(1);
        } else {
          std::this_thread::yield();
        }
      }
      polling_done.fetch_add(1);
    });
  }
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      Produce(q, p, saw_parked);
      producers_done.fetch_add(1);
    });
  }
  AwaitOrDie([&] { return producers_done.load() == kProducers; }, "producers");
  AwaitOrDie([&] { return ledger.count() >= total; },
             "consumers draining every item");
  AwaitOrDie([&] { return polling_done.load() == kPolling; },
             "try_pop consumers");
  for (int c = 0; c < kParking; ++c) q.push(std::uint64_t{kSentinel});
  AwaitOrDie([&] { return parking_done.load() == kParking; },
             "pop() consumers woken by their sentinels");
  for (auto& t : threads) t.join();
  ledger.Check();
  std::printf("[ split    ] pop: %llu, try_pop: %llu; parked in %llu pauses\n",
              static_cast<unsigned long long>(by_pop.load()),
              static_cast<unsigned long long>(by_try_pop.load()),
              static_cast<unsigned long long>(saw_parked.load()));
  EXPECT_GT(saw_parked.load(), 0u) << "no consumer ever parked";
  EXPECT_EQ(q.parked_consumers(), 0u);
  std::uint64_t leftover;
  EXPECT_FALSE(q.try_pop(leftover));
}

// An element over-aligned to two cache lines, through parking pops: every
// constructor checks its own address (queues/internal/over_aligned_testing.h).
using queues_internal::OverAligned;

TEST(BoundedMpmcParkTest, OverAlignedElementsThroughParkingPop) {
  constexpr std::uint64_t kItems = kUnderSanitizer ? 400 : 2'000;
  constexpr std::uint64_t kEvery = 50;  // the producer pauses this often
  OverAligned::misaligned.store(0);
  BoundedMpmcQueue<OverAligned> q(4);
  std::atomic<std::uint64_t> saw_parked{0};
  std::atomic<bool> done{false};
  std::uint64_t out_of_order = 0;
  std::thread consumer([&] {
    for (std::uint64_t i = 0; i < kItems; ++i) {
      OverAligned w;
      q.pop(w);
      out_of_order += w.value != i;
    }
    done.store(true);
  });
  std::thread producer([&] {
    for (std::uint64_t i = 0; i < kItems; ++i) {
      if (i % 2 == 0) {
        q.push(OverAligned(i));
      } else {
        while (!q.try_push(OverAligned(i))) std::this_thread::yield();
      }
      if (i % kEvery == kEvery - 1 &&
          PauseUntilParked(q, saw_parked.load() != 0)) {
        saw_parked.fetch_add(1);
      }
    }
  });
  AwaitOrDie([&] { return done.load(); }, "the over-aligned consumer");
  consumer.join();
  producer.join();
  EXPECT_EQ(out_of_order, 0u);
  EXPECT_EQ(OverAligned::misaligned.load(), 0)
      << "objects constructed at addresses that are not "
      << alignof(OverAligned) << "-aligned";
  EXPECT_GT(saw_parked.load(), 0u) << "the consumer never parked";
}

}  // namespace
}  // namespace serverkit
