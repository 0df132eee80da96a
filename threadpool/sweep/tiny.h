// -----------------------------------------------------------------------------
// threadpool/sweep/tiny.h
// -----------------------------------------------------------------------------
//
// The pool sweep's `tiny` scenario: S submitters flood a pool of one worker
// per core with N tiny tasks (empty, or about 1 us of calibrated work),
// timed to the end of the last task or to the time cap: tasks/s, with each
// task's submit-to-start latency. Each run's rate is also kept for the
// ratio-to-asio table the sweep prints at its end.
//
// Thread-safety: Google Benchmark calls these on its main thread; the
// table is printed after the sweep.

#ifndef SERVERKIT_THREADPOOL_SWEEP_TINY_H_
#define SERVERKIT_THREADPOOL_SWEEP_TINY_H_

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/percentile.h"
#include "bench/harness/harness.h"
#include "threadpool/all_pools.h"
#include "threadpool/executor.h"
#include "threadpool/sweep/common.h"
#include "threadpool/sweep/countdown.h"

namespace serverkit::bench::pool_sweep {

// Medians per run, kept for the ratio-to-asio table printed at the end.
// key: "tiny/work_ns:0/submitters:1" -> impl -> one value per repetition.
inline std::map<std::string, std::map<std::string, std::vector<double>>> g_tiny;

template <typename P>
void BM_Tiny(benchmark::State& state, int workers, int submitters, long work_ns,
             std::uint64_t tasks, double cap_s, const std::string& group) {
  const LostWakeups lost(state);
  const std::uint64_t spins =
      static_cast<std::uint64_t>(g_spins_per_us * work_ns / 1000.0);
  std::vector<double> latency(tasks, NAN);
  std::uint64_t done = 0;
  bool capped = false;
  for (auto _ : state) {
    Countdown countdown(tasks);
    std::atomic<std::uint64_t> sink{0};
    std::atomic<std::uint64_t> submitted_total{0};
    P pool(workers);
    std::vector<std::thread> threads;
    const auto start = Clock::now();
    const auto deadline = start + CapDuration(cap_s);
    auto submit_range = [&](int s) {
      std::uint64_t mine = 0;
      for (std::uint64_t i = s; i < tasks; i += submitters) {
        const auto submitted = Clock::now();
        if (submitted > deadline) break;
        Submit(pool, [&, i, submitted] {
          latency[i] = Nanos(Clock::now() - submitted);
          if (spins > 0) sink.fetch_add(Spin(spins), std::memory_order_relaxed);
          countdown.Done();
        });
        ++mine;
      }
      submitted_total.fetch_add(mine, std::memory_order_relaxed);
    };
    for (int s = 1; s < submitters; ++s) threads.emplace_back(submit_range, s);
    submit_range(0);
    for (auto& t : threads) t.join();
    const std::uint64_t n = submitted_total.load();
    countdown.Cancel(tasks - n);
    std::uint64_t finished = n;
    double secs = 0;
    if (countdown.WaitUntil(deadline)) {
      secs = Seconds(countdown.finished_at() - start);
    } else {
      // The cap covers the backlog too: count what ran by now, then drop
      // what is still queued, outside the timed region.
      const auto now = Clock::now();
      finished = n - countdown.left();
      secs = Seconds(now - start);
      countdown.Cancel(pool.shutdown(ShutdownMode::kDiscard));
      countdown.Wait();
      capped = true;
    }
    state.SetIterationTime(secs);
    pool.shutdown(ShutdownMode::kDrain);
    done += finished;
    capped |= n < tasks;
    g_tiny[group][std::string(P::kName)].push_back(
        static_cast<double>(finished) / secs);
  }
  DropUnmeasured(latency);
  state.counters["p50_ns"] = Percentile(latency, 0.50, true);
  state.counters["p99_ns"] = Percentile(latency, 0.99, true);
  state.SetItemsProcessed(static_cast<std::int64_t>(done));
  state.counters["workers"] = workers;
  state.counters["capped"] = capped ? 1 : 0;
  ThreadCounters(state, workers + submitters);
}

template <typename P>
void RegisterTiny(Profile profile, long work_ns) {
  const int workers = Cores();
  const std::uint64_t tasks =
      ByProfile<std::uint64_t>(profile, 5'000, 150'000, 1'000'000);
  const double cap_s = TimeCap(profile);
  DescribeScenario(
      "tiny", {{"tasks", tasks}, {"time_cap_s", cap_s}, {"workers", workers}});
  for (int s : SubmitterCounts(profile)) {
    const std::string group = "tiny/work_ns:" + std::to_string(work_ns) +
                              "/submitters:" + std::to_string(s);
    RegisterTimedOnce(BenchName("threadpool", "tiny", P::kName,
                                {{"work_ns", work_ns}, {"submitters", s}}),
                      [=](benchmark::State& st) {
                        BM_Tiny<P>(st, workers, s, work_ns, tasks, cap_s,
                                   group);
                      });
  }
}

// Each tiny group's pools by throughput, as a ratio to asio's.
inline void PrintRatiosToAsio() {
  const std::string base(AsioPool::kName);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
  };
  for (const auto& [group, impls] : g_tiny) {
    auto it = impls.find(base);
    if (it == impls.end()) continue;
    const double asio = median(it->second);
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [impl, values] : impls)
      rows.push_back({median(values), impl});
    std::sort(rows.rbegin(), rows.rend());
    std::printf("Ratio to asio: threadpool/%s (tasks/s, median of %zu runs)\n",
                group.c_str(), it->second.size());
    for (const auto& [value, impl] : rows) {
      std::printf("  %-34s %12.4g %8.2fx\n", impl.c_str(), value, value / asio);
    }
    std::printf("\n");
  }
}

}  // namespace serverkit::bench::pool_sweep

#endif  // SERVERKIT_THREADPOOL_SWEEP_TINY_H_
