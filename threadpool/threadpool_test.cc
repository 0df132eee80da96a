// The conformance suite every pool runs through the `Executor` interface:
// every task runs exactly once (counts and sums) under one and many
// submitters, drain runs everything, discard reports exactly what it dropped,
// tasks submitted from tasks, exceptions, submit after shutdown, shutdown
// racing submitters, destruction while busy. The reference (`MutexPool`) runs
// first, then every pool of `AllPools`, then `QueuePool` over every other
// MPMC queue. No test asserts speed.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "base/sanitizers.h"
#include "base/thread_state.h"
#include "base/type_list.h"
#include "gtest/gtest.h"
#include "threadpool/all_pools.h"
#include "threadpool/executor.h"
#include "threadpool/task.h"

namespace serverkit {
namespace {

constexpr std::uint64_t kTasks = kUnderSanitizer ? 2'000 : 50'000;
constexpr std::size_t kWorkers = 3;  // more than the 2 cores CI has
constexpr int kSubmitters = 4;
constexpr auto kDeadline = std::chrono::seconds(60);

using Clock = std::chrono::steady_clock;

// Waits until `done()` or the deadline; returns done().
template <typename F>
bool WaitFor(F done, Clock::duration limit = kDeadline) {
  const auto until = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > until) return done();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// ------------------------------------------------------------------ Task

struct LifeCount {
  static inline std::atomic<int> live{0};
  LifeCount() { live.fetch_add(1); }
  LifeCount(const LifeCount&) { live.fetch_add(1); }
  LifeCount(LifeCount&&) noexcept { live.fetch_add(1); }
  ~LifeCount() { live.fetch_sub(1); }
};

TEST(TaskTest, RunsSmallAndLargeMoveOnlyCallables) {
  int hits = 0;
  {
    auto small = std::make_unique<int>(1);
    Task t([&hits, p = std::move(small), life = LifeCount()] { hits += *p; });
    EXPECT_TRUE(static_cast<bool>(t));
    Task moved(std::move(t));
    EXPECT_FALSE(static_cast<bool>(t));  // NOLINT(bugprone-use-after-move)
    moved();
    EXPECT_EQ(hits, 1);
    EXPECT_EQ(LifeCount::live.load(), 1);
  }
  EXPECT_EQ(LifeCount::live.load(), 0);
  {
    struct Big {
      char pad[200] = {};
      LifeCount life;
    };
    Task t([&hits, big = Big()] { hits += 10 + big.pad[0]; });
    Task other;
    other = std::move(t);
    other();
    EXPECT_EQ(hits, 11);
    other.Reset();
    EXPECT_FALSE(static_cast<bool>(other));
    EXPECT_EQ(LifeCount::live.load(), 0);
  }
}

// ------------------------------------------------------------- pool suite

template <typename P>
class PoolTest : public ::testing::Test {};
TYPED_TEST_SUITE_P(PoolTest);

TYPED_TEST_P(PoolTest, ReportsItsName) {
  TypeParam pool(kWorkers);
  std::printf("[ impl     ] %s: %zu workers\n",
              std::string(TypeParam::kName).c_str(), pool.workers());
  EXPECT_EQ(pool.workers(), kWorkers);
  EXPECT_FALSE(TypeParam::kName.empty());
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDrain), 0u);
}

// Each task adds its index to a sum and marks its own slot: after a drain,
// every slot is 1 and the sum is n(n-1)/2.
template <typename P>
void CheckEveryTaskRunsOnce(int submitters) {
  P pool(kWorkers);
  std::vector<std::atomic<std::uint8_t>> runs(kTasks);
  std::atomic<std::uint64_t> sum{0};
  std::vector<std::thread> threads;
  for (int s = 0; s < submitters; ++s) {
    threads.emplace_back([&, s] {
      for (std::uint64_t i = s; i < kTasks; i += submitters) {
        Submit(pool, [&runs, &sum, i] {
          runs[i].fetch_add(1, std::memory_order_relaxed);
          sum.fetch_add(i, std::memory_order_relaxed);
        });
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDrain), 0u);
  EXPECT_EQ(sum.load(), kTasks * (kTasks - 1) / 2);
  std::uint64_t wrong = 0;
  for (auto& r : runs) wrong += r.load() != 1;
  EXPECT_EQ(wrong, 0u) << "tasks lost or run twice";
  EXPECT_EQ(pool.task_exceptions(), 0u);
}

TYPED_TEST_P(PoolTest, EveryTaskRunsOnceOneSubmitter) {
  CheckEveryTaskRunsOnce<TypeParam>(1);
}

TYPED_TEST_P(PoolTest, EveryTaskRunsOnceManySubmitters) {
  CheckEveryTaskRunsOnce<TypeParam>(kSubmitters);
}

TYPED_TEST_P(PoolTest, FuturesCarryResults) {
  TypeParam pool(kWorkers);
  std::vector<std::future<std::uint64_t>> futures;
  const std::uint64_t n = std::min<std::uint64_t>(kTasks, 5'000);
  for (std::uint64_t i = 0; i < n; ++i) {
    futures.push_back(SubmitWithFuture(pool, [i] { return i * i; }));
  }
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) wrong += futures[i].get() != i * i;
  EXPECT_EQ(wrong, 0u);
  auto unit = SubmitWithFuture(pool, [] {});
  unit.get();
}

// Drain right after a burst of submissions: everything queued still runs.
TYPED_TEST_P(PoolTest, DrainRunsEverythingQueued) {
  TypeParam pool(kWorkers);
  std::atomic<std::uint64_t> ran{0};
  for (std::uint64_t i = 0; i < kTasks; ++i) {
    Submit(pool, [&ran, i] {
      if (i % 1000 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      ran.fetch_add(1, std::memory_order_relaxed);
    });
  }
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDrain), 0u);
  EXPECT_EQ(ran.load(), kTasks);
}

// Workers are held by blocker tasks while more tasks queue up; discard starts
// while they are held. Every task is either run or reported dropped, never
// both; futures of dropped tasks are broken.
TYPED_TEST_P(PoolTest, DiscardReportsExactlyWhatItDropped) {
  TypeParam pool(kWorkers);
  std::atomic<bool> release{false};
  std::atomic<std::uint64_t> blockers_started{0};
  const std::uint64_t blockers = pool.workers();
  for (std::uint64_t b = 0; b < blockers; ++b) {
    Submit(pool, [&] {
      blockers_started.fetch_add(1);
      WaitFor([&] { return release.load(); });
    });
  }
  // Give the pool a moment to start every blocker (not required for the
  // accounting below to hold; it makes drops likely).
  WaitFor([&] { return blockers_started.load() == blockers; },
          std::chrono::seconds(5));
  const std::uint64_t queued = std::min<std::uint64_t>(kTasks, 2'000);
  std::atomic<std::uint64_t> ran{0};
  std::vector<std::future<int>> futures;
  for (std::uint64_t i = 0; i < queued; ++i) {
    futures.push_back(SubmitWithFuture(pool, [&ran] {
      ran.fetch_add(1);
      return 7;
    }));
  }
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    release.store(true);
  });
  const std::size_t dropped = pool.shutdown(ShutdownMode::kDiscard);
  releaser.join();
  std::uint64_t broken = 0, values = 0;
  for (auto& f : futures) {
    try {
      EXPECT_EQ(f.get(), 7);
      ++values;
    } catch (const std::future_error& e) {
      EXPECT_EQ(e.code(), std::future_errc::broken_promise);
      ++broken;
    }
  }
  const std::uint64_t blockers_dropped = blockers - blockers_started.load();
  EXPECT_EQ(values, ran.load());
  EXPECT_EQ(values + broken, queued);
  EXPECT_EQ(dropped, broken + blockers_dropped) << "dropped count is not exact";
  EXPECT_GT(dropped, 0u) << "nothing was queued when discard began";
  std::printf("[ discard  ] %s: dropped %zu of %llu queued\n",
              std::string(TypeParam::kName).c_str(), dropped,
              static_cast<unsigned long long>(queued));
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDiscard), 0u);
}

// A binary tree of tasks: each node submits its two children.
TYPED_TEST_P(PoolTest, TasksSubmitTasks) {
  TypeParam pool(kWorkers);
  constexpr int kDepth = kUnderSanitizer ? 9 : 14;
  const std::uint64_t total = (std::uint64_t{1} << (kDepth + 1)) - 1;
  std::atomic<std::uint64_t> nodes{0};
  std::atomic<std::uint64_t> rejected{0};
  struct Node {
    TypeParam* pool;
    std::atomic<std::uint64_t>* nodes;
    std::atomic<std::uint64_t>* rejected;
    int depth;
    void operator()() const {
      nodes->fetch_add(1, std::memory_order_relaxed);
      if (depth == 0) return;
      for (int c = 0; c < 2; ++c) {
        if (!pool->try_submit(Node{pool, nodes, rejected, depth - 1})) {
          rejected->fetch_add(1);
        }
      }
    }
  };
  Submit(pool, Node{&pool, &nodes, &rejected, kDepth});
  EXPECT_TRUE(WaitFor([&] { return nodes.load() == total; }));
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDrain), 0u);
  EXPECT_EQ(nodes.load(), total);
  EXPECT_EQ(rejected.load(), 0u);
}

TYPED_TEST_P(PoolTest, ExceptionsAreCountedAndCarried) {
  TypeParam pool(kWorkers);
  constexpr int kThrowers = 50;
  for (int i = 0; i < kThrowers; ++i) {
    Submit(pool, [] { throw std::runtime_error("plain task"); });
  }
  auto fut = SubmitWithFuture(
      pool, []() -> int { throw std::invalid_argument("future task"); });
  EXPECT_THROW(fut.get(), std::invalid_argument);
  // The workers survived: more work still runs on all of them.
  std::atomic<int> ran{0};
  for (int i = 0; i < 1000; ++i) Submit(pool, [&ran] { ran.fetch_add(1); });
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDrain), 0u);
  EXPECT_EQ(ran.load(), 1000);
  EXPECT_EQ(pool.task_exceptions(), static_cast<std::uint64_t>(kThrowers + 1));
}

TYPED_TEST_P(PoolTest, SubmitAfterShutdownIsAClearError) {
  TypeParam pool(kWorkers);
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDrain), 0u);
  int hits = 0;
  Task task([&hits] { ++hits; });
  EXPECT_FALSE(pool.try_submit(std::move(task)));
  ASSERT_TRUE(static_cast<bool>(task)) << "a rejected task was consumed";
  task();
  EXPECT_EQ(hits, 1);
  EXPECT_THROW(Submit(pool, [] {}), ExecutorShutDownError);
  EXPECT_THROW(SubmitWithFuture(pool, [] { return 1; }), ExecutorShutDownError);
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDiscard), 0u);
}

TYPED_TEST_P(PoolTest, ShutdownFromOwnTaskThrows) {
  TypeParam pool(kWorkers);
  auto fut =
      SubmitWithFuture(pool, [&pool] { pool.shutdown(ShutdownMode::kDrain); });
  EXPECT_THROW(fut.get(), std::logic_error);
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDrain), 0u);
}

// Submitters hammer the pool while it shuts down: each task that was accepted
// runs (drain) or is counted (discard); the rest are rejected, none hangs.
template <typename P>
void CheckShutdownRacingSubmitters(ShutdownMode mode) {
  P pool(kWorkers);
  std::atomic<std::uint64_t> accepted{0}, ran{0};
  std::atomic<int> rejected_submitters{0};
  std::vector<std::thread> threads;
  for (int s = 0; s < kSubmitters; ++s) {
    threads.emplace_back([&] {
      for (;;) {
        if (!pool.try_submit(Task([&ran] { ran.fetch_add(1); }))) break;
        accepted.fetch_add(1);
      }
      rejected_submitters.fetch_add(1);
    });
  }
  WaitFor([&] { return accepted.load() >= 1000; });
  const std::size_t dropped = pool.shutdown(mode);
  for (auto& t : threads) t.join();
  EXPECT_EQ(rejected_submitters.load(), kSubmitters);
  if (mode == ShutdownMode::kDrain) {
    EXPECT_EQ(dropped, 0u);
  }
  EXPECT_EQ(ran.load() + dropped, accepted.load());
}

TYPED_TEST_P(PoolTest, DrainRacingSubmitters) {
  CheckShutdownRacingSubmitters<TypeParam>(ShutdownMode::kDrain);
}

TYPED_TEST_P(PoolTest, DiscardRacingSubmitters) {
  CheckShutdownRacingSubmitters<TypeParam>(ShutdownMode::kDiscard);
}

// Destroying a busy pool drains it (the destructor is shutdown(kDrain)).
TYPED_TEST_P(PoolTest, DestructionWhileBusy) {
  std::atomic<std::uint64_t> ran{0};
  const std::uint64_t n = std::min<std::uint64_t>(kTasks, 5'000);
  {
    TypeParam pool(kWorkers);
    for (std::uint64_t i = 0; i < n; ++i) {
      Submit(pool, [&ran, i] {
        if (i % 500 == 0)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ran.fetch_add(1, std::memory_order_relaxed);
      });
    }
  }
  EXPECT_EQ(ran.load(), n);
}

REGISTER_TYPED_TEST_SUITE_P(PoolTest, ReportsItsName,
                            EveryTaskRunsOnceOneSubmitter,
                            EveryTaskRunsOnceManySubmitters,
                            FuturesCarryResults, DrainRunsEverythingQueued,
                            DiscardReportsExactlyWhatItDropped,
                            TasksSubmitTasks, ExceptionsAreCountedAndCarried,
                            SubmitAfterShutdownIsAClearError,
                            ShutdownFromOwnTaskThrows, DrainRacingSubmitters,
                            DiscardRacingSubmitters, DestructionWhileBusy);

class PoolNames {
 public:
  template <typename P>
  static std::string GetName(int) {
    return std::string(P::kName);
  }
};

using PoolTypes = ApplyTypes<::testing::Types, AllPools>;
// AllQueuePools minus what AllPools already covers.
using OtherQueuePoolTypes =
    ApplyTypes<::testing::Types, Without<AllQueuePools, AllPools>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Pools, PoolTest, PoolTypes, PoolNames);
INSTANTIATE_TYPED_TEST_SUITE_P(QueuePools, PoolTest, OtherQueuePoolTypes,
                               PoolNames);

// ------------------------------------------------------ bounded pools

// Polls (1 ms) until thread `tid` is parked in a futex; fails after 5 s.
::testing::AssertionResult Parked(long tid) {
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  for (;;) {
    const std::string why =
        tid == 0 ? std::string("thread never started") : NotParkedReason(tid);
    if (why.empty()) return ::testing::AssertionSuccess();
    if (Clock::now() > deadline) {
      return ::testing::AssertionFailure()
             << "thread " << tid << " never blocked within 5 s: " << why;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// muduo's hang: a submitter blocked on a full queue when stop() runs. Here it
// is released with false (or got in before the shutdown and was counted).
template <typename P>
void CheckBlockedSubmitterIsReleased(P& pool) {
  std::atomic<bool> release{false};
  std::atomic<std::uint64_t> ran{0};
  std::atomic<bool> worker_held{false};
  Submit(pool, [&] {
    worker_held.store(true);
    WaitFor([&] { return release.load(); });
  });
  // The only worker must be inside that task (not leave it in the queue, where
  // a discard would count it) before the submitter fills the queue.
  EXPECT_TRUE(
      WaitFor([&] { return worker_held.load(); }, std::chrono::seconds(5)))
      << "the worker never took the first task";
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<bool> blocked_submitter_done{false};
  std::atomic<long> submitter_tid{0};
  std::thread submitter([&] {
    submitter_tid.store(CurrentTid());
    // Fills the queue, then blocks on it.
    while (pool.try_submit(Task([&ran] { ran.fetch_add(1); }))) {
      accepted.fetch_add(1);
    }
    blocked_submitter_done.store(true);
  });
  // The submitter must fill the queue and block on it (the only worker is
  // held by the first task) before shutdown runs.
  EXPECT_TRUE(WaitFor([&] { return submitter_tid.load() != 0; },
                      std::chrono::seconds(5)))
      << "the submitter never started";
  EXPECT_TRUE(
      WaitFor([&] { return accepted.load() > 0; }, std::chrono::seconds(5)))
      << "the submitter never got a task in";
  EXPECT_TRUE(Parked(submitter_tid.load()))
      << "the submitter never blocked on the full queue";
  EXPECT_FALSE(blocked_submitter_done.load())
      << "try_submit failed on an open pool instead of blocking";
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    release.store(true);
  });
  const std::size_t dropped = pool.shutdown(ShutdownMode::kDiscard);
  submitter.join();
  releaser.join();
  EXPECT_TRUE(blocked_submitter_done.load());
  EXPECT_EQ(ran.load() + dropped, accepted.load());
}

TEST(BoundedPoolTest, MutexPoolReleasesABlockedSubmitterOnShutdown) {
  MutexPool pool(1, /*max_queue=*/8);
  EXPECT_EQ(pool.max_queue(), 8u);
  CheckBlockedSubmitterIsReleased(pool);
}

TEST(BoundedPoolTest, QueuePoolReleasesABlockedSubmitterOnShutdown) {
  QueuePool<BoundedMpmcQueue<Task>> pool(1, /*capacity=*/8);
  CheckBlockedSubmitterIsReleased(pool);
}

// A task submitting to its own full pool runs the new task in place instead
// of blocking (every worker blocked on a full queue would be a deadlock).
template <typename P>
void CheckSelfSubmitToFullPool(P& pool) {
  std::atomic<std::uint64_t> ran{0};
  constexpr int kChildren = 2'000;
  Submit(pool, [&] {
    for (int i = 0; i < kChildren; ++i) {
      Submit(pool, [&ran] { ran.fetch_add(1); });
    }
  });
  EXPECT_TRUE(WaitFor([&] { return ran.load() == kChildren; }));
  EXPECT_EQ(pool.shutdown(ShutdownMode::kDrain), 0u);
  EXPECT_EQ(ran.load(), static_cast<std::uint64_t>(kChildren));
}

TEST(BoundedPoolTest, MutexPoolSelfSubmitDoesNotDeadlock) {
  MutexPool pool(1, /*max_queue=*/4);
  CheckSelfSubmitToFullPool(pool);
}

TEST(BoundedPoolTest, QueuePoolSelfSubmitDoesNotDeadlock) {
  QueuePool<BoundedMpmcQueue<Task>> pool(1, /*capacity=*/4);
  CheckSelfSubmitToFullPool(pool);
}

TEST(PoolListTest, SkippedQueuesAreTheSingleConsumerOnes) {
  const std::vector<std::string> skipped = SkippedQueues();
  for (const auto& s : skipped) std::printf("[ skipped  ] %s\n", s.c_str());
  EXPECT_FALSE(skipped.empty());
  for (const auto& s : skipped) {
    EXPECT_TRUE(s.find("(spsc)") != std::string::npos ||
                s.find("(mpsc)") != std::string::npos)
        << s;
  }
}

TEST(WorkStealingPoolTest, IdleWorkersSteal) {
  WorkStealingPool pool(kWorkers);
  std::atomic<int> ran{0};
  // All children land in one worker's lane; the others can only steal them.
  Submit(pool, [&] {
    for (int i = 0; i < 200; ++i) {
      Submit(pool, [&ran] {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        ran.fetch_add(1);
      });
    }
  });
  EXPECT_TRUE(WaitFor([&] { return ran.load() == 200; }));
  pool.shutdown(ShutdownMode::kDrain);
  std::printf("[ steals   ] %llu of 200\n",
              static_cast<unsigned long long>(pool.steals()));
}

}  // namespace
}  // namespace serverkit
