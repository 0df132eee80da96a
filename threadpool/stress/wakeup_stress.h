// -----------------------------------------------------------------------------
// threadpool/stress/wakeup_stress.h
// -----------------------------------------------------------------------------
//
// The lost wake-up stress (issue 51, item 2): the pool sweep's `latency`
// scenario (submit one empty task, wait until it has started, repeat), run
// for a set time by S submitters against one pool, with what made the hang
// more likely around it:
//   - a perturbing neighbour on every core: random `sched_yield`, short
//     `nanosleep`s and busy spins, so threads are preempted at random points
//     of the hand-off;
//   - oneTBB's worker threads alive and idle (a `TbbPool` that ran a few
//     tasks), as in the make bench that hung;
//   - a random pause inside some tasks between their start and their signal.
//
// What it counts:
//   - `hangs`: round trips still unfinished after `hang_after` (1 s): the
//     watchdog then interrupts the submitter with a signal (as gdb's attach
//     did), which restarts a futex wait and re-tests its word, so a lost
//     wake-up costs one hang and the run goes on. `hangs_task_ran` is the
//     part whose task had already signalled (the submitter's wake-up was
//     lost, not the pool's).
//   - `stalls`: round trips over `stall_after` (50 ms): a 100 ms rescue shows
//     up here.
//   - `rescues`: `FutexWaitRescues()` over the run (queues/wait_strategy.h),
//     the pool's and the submitter's timed re-checks that found a wake-up
//     lost.
//
// How the submitter waits for its task is the `Signal`:
//   - `FutexSignal`: the project's `FutexWait<>` beside an `atomic<int>` flag
//     (the sweep since 7cc9993);
//   - `StdAtomicSignal`: `std::atomic<int>::wait(0)` and `notify_one()` after
//     a release store (the sweep before 7cc9993, where make bench hung 446 s);
//   - `StdAtomicSeqCstSignal`: the same after a seq_cst store, the control.
//
// Thread-safety: `RunWakeupStress` is called from one thread; it starts and
// joins every thread it uses.

#ifndef SERVERKIT_THREADPOOL_STRESS_WAKEUP_STRESS_H_
#define SERVERKIT_THREADPOOL_STRESS_WAKEUP_STRESS_H_

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string_view>
#include <thread>
#include <vector>

#include "base/cache_line.h"
#include "queues/wait_strategy.h"
#include "threadpool/executor.h"
#include "threadpool/tbb_pool.h"

namespace serverkit::threadpool_stress {

using Clock = std::chrono::steady_clock;

// The submitter's wait for its task, as the sweep did it after 7cc9993.
class FutexSignal {
 public:
  static constexpr std::string_view kName = "futex-wait";
  void Reset() { flag_.store(0, std::memory_order_relaxed); }
  void Set() {
    flag_.store(1, std::memory_order_release);
    wait_.notify_one();
  }
  bool IsSet() const { return flag_.load(std::memory_order_acquire) != 0; }
  void Wait() {
    wait_.wait_until([&] { return IsSet(); });
  }

 private:
  alignas(kCacheLineSize) std::atomic<int> flag_{0};
  FutexWait<> wait_;
};

// The same wait through libstdc++'s std::atomic<int>::wait, as the sweep did
// it before 7cc9993.
class StdAtomicSignal {
 public:
  static constexpr std::string_view kName = "std-atomic-wait";
  void Reset() { flag_.store(0, std::memory_order_relaxed); }
  void Set() {
    flag_.store(1, std::memory_order_release);
    flag_.notify_one();
  }
  bool IsSet() const { return flag_.load(std::memory_order_acquire) != 0; }
  void Wait() {
    while (flag_.load(std::memory_order_acquire) == 0) flag_.wait(0);
  }

 private:
  alignas(kCacheLineSize) std::atomic<int> flag_{0};
};

// As StdAtomicSignal with a seq_cst store (an xchg on x86, a full barrier):
// the control that tells whether the store-load order is what loses the
// wake-up (docs/components.md, "The lost wake-up").
class StdAtomicSeqCstSignal {
 public:
  static constexpr std::string_view kName = "std-atomic-wait-seq-cst";
  void Reset() { flag_.store(0, std::memory_order_relaxed); }
  void Set() {
    flag_.store(1, std::memory_order_seq_cst);
    flag_.notify_one();
  }
  bool IsSet() const { return flag_.load(std::memory_order_acquire) != 0; }
  void Wait() {
    while (flag_.load(std::memory_order_acquire) == 0) flag_.wait(0);
  }

 private:
  alignas(kCacheLineSize) std::atomic<int> flag_{0};
};

struct StressConfig {
  double seconds = 1.0;
  int workers = 2;
  int submitters = 1;
  bool neighbours = true;  // one perturbing thread per core
  bool tbb_idle = true;    // oneTBB's workers alive and idle
  bool task_jitter = true;
  Clock::duration hang_after = std::chrono::seconds(1);
  Clock::duration stall_after = std::chrono::milliseconds(50);
};

struct StressResult {
  std::uint64_t round_trips = 0;
  std::uint64_t hangs = 0;
  std::uint64_t hangs_task_ran = 0;
  std::uint64_t stalls = 0;
  std::uint64_t rescues = 0;
  double seconds = 0;
  double max_round_trip_ms = 0;
};

namespace stress_internal {

// The watchdog's signal: its only effect is to interrupt a futex wait, which
// the kernel restarts after re-testing the word.
inline void OnPoke(int) {}

inline void InstallPokeHandler() {
  struct sigaction sa {};
  sa.sa_handler = OnPoke;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR2, &sa, nullptr);
}

inline void BusyFor(std::uint32_t iterations) {
  for (std::uint32_t i = 0; i < iterations; ++i) CpuRelax();
}

// One perturbing neighbour: a random mix of yields, short sleeps and busy
// spins, until `stop`.
inline void Neighbour(const std::atomic<bool>& stop, std::uint32_t seed) {
  std::minstd_rand rng(seed);
  while (!stop.load(std::memory_order_relaxed)) {
    const std::uint32_t r = rng();
    switch (r % 4) {
      case 0:
        sched_yield();
        break;
      case 1: {
        timespec t{0, static_cast<long>((r >> 8) % 50'000)};
        nanosleep(&t, nullptr);
        break;
      }
      default:
        BusyFor((r >> 8) % 4096);
        break;
    }
  }
}

// Per submitter: the round trip in flight (its start in ns since the run's
// start, 0 when none) and its thread, for the watchdog.
struct alignas(kCacheLineSize) InFlight {
  std::atomic<std::int64_t> since_ns{0};
  std::atomic<bool> hang_counted{false};
  pthread_t thread{};
  std::atomic<bool> ready{false};
};

}  // namespace stress_internal

// Runs the stress on a fresh pool `P` whose submitters wait with `S`.
template <typename P, typename S>
StressResult RunWakeupStress(const StressConfig& config) {
  using stress_internal::InFlight;
  stress_internal::InstallPokeHandler();
  StressResult result;
  const std::uint64_t rescues_before = FutexWaitRescues();

  std::optional<TbbPool> tbb;
  if (config.tbb_idle) {
    tbb.emplace(static_cast<std::size_t>(config.workers));
    for (int i = 0; i < 64; ++i) Submit(*tbb, [] {});
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> neighbours;
  if (config.neighbours) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned c = 0; c < cores; ++c) {
      neighbours.emplace_back(stress_internal::Neighbour, std::cref(stop),
                              1234u + c);
    }
  }

  // Signals outlive the pool: a task may still be inside Set() when its
  // submitter has moved on.
  std::vector<S> signals(config.submitters);
  std::unique_ptr<InFlight[]> flights(new InFlight[config.submitters]);
  std::vector<std::uint64_t> trips(config.submitters, 0);
  std::vector<std::int64_t> worst_ns(config.submitters, 0);
  std::vector<std::uint64_t> stalls(config.submitters, 0);

  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(config.seconds));
  auto since_start = [start] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                                start)
        .count();
  };
  {
    P pool(static_cast<std::size_t>(config.workers));
    std::atomic<bool> submitters_done{false};
    std::thread watchdog([&] {
      const std::int64_t hang_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              config.hang_after)
              .count();
      while (!submitters_done.load(std::memory_order_acquire)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const std::int64_t now = since_start();
        for (int s = 0; s < config.submitters; ++s) {
          InFlight& f = flights[s];
          if (!f.ready.load(std::memory_order_acquire)) continue;
          const std::int64_t since = f.since_ns.load(std::memory_order_acquire);
          if (since == 0 || now - since < hang_ns) continue;
          if (!f.hang_counted.exchange(true)) {
            ++result.hangs;
            if (signals[s].IsSet()) ++result.hangs_task_ran;
          }
          pthread_kill(f.thread, SIGUSR2);
        }
      }
    });
    auto submitter = [&](int s) {
      InFlight& f = flights[s];
      f.thread = pthread_self();
      f.ready.store(true, std::memory_order_release);
      S& signal = signals[s];
      std::minstd_rand rng(77u + static_cast<std::uint32_t>(s));
      const std::int64_t stall_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              config.stall_after)
              .count();
      while (Clock::now() < deadline) {
        signal.Reset();
        const std::uint32_t jitter =
            config.task_jitter ? static_cast<std::uint32_t>(rng()) : 0;
        const std::int64_t t0 = std::max<std::int64_t>(1, since_start());
        f.hang_counted.store(false, std::memory_order_relaxed);
        f.since_ns.store(t0, std::memory_order_release);
        Submit(pool, [&signal, jitter] {
          // One task in 8 pauses before it signals, one in 64 yields.
          if (jitter % 8 == 1) stress_internal::BusyFor((jitter >> 8) % 256);
          if (jitter % 64 == 3) sched_yield();
          signal.Set();
        });
        signal.Wait();
        const std::int64_t took = since_start() - t0;
        f.since_ns.store(0, std::memory_order_release);
        worst_ns[s] = std::max(worst_ns[s], took);
        if (took > stall_ns) ++stalls[s];
        ++trips[s];
      }
    };
    std::vector<std::thread> threads;
    for (int s = 1; s < config.submitters; ++s)
      threads.emplace_back(submitter, s);
    submitter(0);
    for (auto& t : threads) t.join();
    submitters_done.store(true, std::memory_order_release);
    watchdog.join();
    pool.shutdown(ShutdownMode::kDrain);
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  stop.store(true);
  for (auto& t : neighbours) t.join();
  tbb.reset();

  for (int s = 0; s < config.submitters; ++s) {
    result.round_trips += trips[s];
    result.stalls += stalls[s];
    result.max_round_trip_ms =
        std::max(result.max_round_trip_ms, worst_ns[s] / 1e6);
  }
  result.rescues = FutexWaitRescues() - rescues_before;
  return result;
}

}  // namespace serverkit::threadpool_stress

#endif  // SERVERKIT_THREADPOOL_STRESS_WAKEUP_STRESS_H_
