// -----------------------------------------------------------------------------
// threadpool/sweep/sleep.h
// -----------------------------------------------------------------------------
//
// The pool sweep's `sleep` scenario, the seed comparison scaled to this
// machine: W workers run T tasks that each sleep 2 ms and bump a counter.
// Each task measures its own sleep, so the ideal wall time is the sum of
// the sleeps over W; what is left over is what the pool adds
// (threadpool_benchmark.cc defines the counters).
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_THREADPOOL_SWEEP_SLEEP_H_
#define SERVERKIT_THREADPOOL_SWEEP_SLEEP_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "bench/harness/harness.h"
#include "threadpool/executor.h"
#include "threadpool/sweep/common.h"
#include "threadpool/sweep/countdown.h"

namespace serverkit::bench::pool_sweep {

template <typename P>
void BM_Sleep(benchmark::State& state, int workers, std::uint64_t tasks,
              int sleep_us) {
  const LostWakeups lost(state);
  double wall_s = 0, slept_us = 0;
  for (auto _ : state) {
    std::atomic<std::uint64_t> counter{0};
    std::atomic<std::uint64_t> slept_ns{0};
    Countdown countdown(tasks);
    P pool(workers);
    const auto start = Clock::now();
    for (std::uint64_t i = 0; i < tasks; ++i) {
      Submit(pool, [&] {
        const auto t0 = Clock::now();
        std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        slept_ns.fetch_add(static_cast<std::uint64_t>(Nanos(Clock::now() - t0)),
                           std::memory_order_relaxed);
        counter.fetch_add(1, std::memory_order_relaxed);
        countdown.Done();
      });
    }
    countdown.Wait();
    const double secs = Seconds(Clock::now() - start);
    state.SetIterationTime(secs);
    pool.shutdown(ShutdownMode::kDrain);
    if (counter.load() != tasks) {
      state.SkipWithError("the counter missed tasks");
      return;
    }
    wall_s = secs;
    slept_us = static_cast<double>(slept_ns.load()) / 1000.0;
  }
  // One iteration per repetition: these describe that repetition.
  const double wall_us = wall_s * 1e6;
  const double ideal_us = slept_us / workers;
  const double ideal_cal_us =
      g_mean_sleep_us * static_cast<double>(tasks) / workers;
  state.counters["wall_ms"] = wall_us / 1000.0;
  state.counters["ideal_ms"] = ideal_us / 1000.0;
  state.counters["ideal_cal_ms"] = ideal_cal_us / 1000.0;
  state.counters["overhead_pct"] = (wall_us - ideal_us) / ideal_us * 100.0;
  state.counters["overhead_cal_pct"] =
      (wall_us - ideal_cal_us) / ideal_cal_us * 100.0;
  state.counters["overhead_us_per_task"] =
      (wall_us * workers - slept_us) / static_cast<double>(tasks);
  state.counters["mean_sleep_us"] = slept_us / static_cast<double>(tasks);
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * tasks));
  ThreadCounters(state, workers + 1);
}

template <typename P>
void RegisterSleep(Profile profile) {
  const int workers = ByProfile(profile, 20, 100, 100);
  const std::uint64_t tasks =
      ByProfile<std::uint64_t>(profile, 400, 10'000, 100'000);
  const int sleep_us = 2000;
  DescribeScenario(
      "sleep",
      {{"workers", workers}, {"tasks", tasks}, {"sleep_us", sleep_us}});
  RegisterTimedOnce(
      BenchName("threadpool", "sleep", P::kName,
                {{"workers", workers},
                 {"tasks", static_cast<long>(tasks)},
                 {"sleep_us", sleep_us}}),
      [=](benchmark::State& st) { BM_Sleep<P>(st, workers, tasks, sleep_us); });
}

}  // namespace serverkit::bench::pool_sweep

#endif  // SERVERKIT_THREADPOOL_SWEEP_SLEEP_H_
