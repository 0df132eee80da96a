// -----------------------------------------------------------------------------
// threadpool/sweep/latency.h
// -----------------------------------------------------------------------------
//
// The pool sweep's `latency` scenario: the submit-to-start latency of a
// pool that is not flooded. Each of S submitters keeps one empty task in
// flight (submit, wait until it has started, repeat), so a sample is the
// hand-off itself. p50 / p99 / p99.9 in ns.
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_THREADPOOL_SWEEP_LATENCY_H_
#define SERVERKIT_THREADPOOL_SWEEP_LATENCY_H_

#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "base/percentile.h"
#include "bench/harness/harness.h"
#include "threadpool/executor.h"
#include "threadpool/sweep/common.h"

namespace serverkit::bench::pool_sweep {

template <typename P>
void BM_Latency(benchmark::State& state, int workers, int submitters,
                std::uint64_t samples, double cap_s) {
  const LostWakeups lost(state);
  std::vector<double> latency(samples * submitters, NAN);
  bool capped = false;
  // Outlive the pool: a task may still be in notify_one() when its submitter
  // moves on. The project's FutexWait, not std::atomic<int>::wait: libstdc++
  // 12's notify reads its waiter count with no fence after the store (a
  // make bench hung 446 s here), and FutexWait counts any lost wake-up.
  std::vector<std::atomic<int>> flags(submitters);
  std::vector<FutexWait<>> waits(submitters);
  for (auto _ : state) {
    P pool(workers);
    std::vector<std::thread> threads;
    const auto start = Clock::now();
    const auto deadline = start + CapDuration(cap_s);
    std::atomic<bool> cut{false};
    auto ping = [&](int s) {
      std::atomic<int>& started = flags[s];
      FutexWait<>& wait = waits[s];
      for (std::uint64_t k = 0; k < samples; ++k) {
        started.store(0, std::memory_order_relaxed);
        double* slot = &latency[s * samples + k];
        const auto submitted = Clock::now();
        if (submitted > deadline) {
          cut.store(true, std::memory_order_relaxed);
          break;
        }
        Submit(pool, [&started, &wait, slot, submitted] {
          *slot = Nanos(Clock::now() - submitted);
          started.store(1, std::memory_order_release);
          wait.notify_one();
        });
        wait.wait_until(
            [&] { return started.load(std::memory_order_acquire) != 0; });
      }
    };
    for (int s = 1; s < submitters; ++s) threads.emplace_back(ping, s);
    ping(0);
    for (auto& t : threads) t.join();
    state.SetIterationTime(Seconds(Clock::now() - start));
    pool.shutdown(ShutdownMode::kDrain);
    capped |= cut.load();
  }
  DropUnmeasured(latency);
  state.counters["p50_ns"] = Percentile(latency, 0.50, true);
  state.counters["p99_ns"] = Percentile(latency, 0.99, true);
  state.counters["p999_ns"] = Percentile(latency, 0.999, true);
  state.counters["capped"] = capped ? 1 : 0;
  state.SetItemsProcessed(static_cast<std::int64_t>(latency.size()));
  ThreadCounters(state, workers + submitters);
}

template <typename P>
void RegisterLatency(Profile profile) {
  const double cap_s = TimeCap(profile);
  const std::uint64_t samples =
      ByProfile<std::uint64_t>(profile, 500, 20'000, 100'000);
  DescribeScenario("latency", {{"samples_per_submitter", samples},
                               {"time_cap_s", cap_s},
                               {"workers", Cores()}});
  for (int sub : SubmitterCounts(profile)) {
    RegisterTimedOnce(
        BenchName("threadpool", "latency", P::kName, {{"submitters", sub}}),
        [=](benchmark::State& st) {
          BM_Latency<P>(st, Cores(), sub, samples, cap_s);
        });
  }
}

}  // namespace serverkit::bench::pool_sweep

#endif  // SERVERKIT_THREADPOOL_SWEEP_LATENCY_H_
