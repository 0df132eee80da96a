// -----------------------------------------------------------------------------
// threadpool/sweep/fanout.h
// -----------------------------------------------------------------------------
//
// The pool sweep's `fanout` scenario, a parallel-for: one thread submits C
// chunks of about 2 us each and waits for all of them (fan-in), R rounds:
// rounds/s and the p50 / p99 round time.
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_THREADPOOL_SWEEP_FANOUT_H_
#define SERVERKIT_THREADPOOL_SWEEP_FANOUT_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/percentile.h"
#include "bench/harness/harness.h"
#include "threadpool/executor.h"
#include "threadpool/sweep/common.h"
#include "threadpool/sweep/countdown.h"

namespace serverkit::bench::pool_sweep {

template <typename P>
void BM_Fanout(benchmark::State& state, int workers, int chunks,
               std::uint64_t rounds, double cap_s) {
  const LostWakeups lost(state);
  const std::uint64_t spins = static_cast<std::uint64_t>(g_spins_per_us * 2);
  std::vector<double> round_ns;
  round_ns.reserve(rounds);
  std::uint64_t checksum_errors = 0;
  bool capped = false;
  for (auto _ : state) {
    std::vector<std::uint64_t> out(chunks);
    Countdown countdown(chunks);
    P pool(workers);
    Clock::duration measured{};
    const auto deadline = Clock::now() + CapDuration(cap_s);
    for (std::uint64_t r = 0; r < rounds; ++r) {
      const auto t0 = Clock::now();
      if (t0 > deadline) {
        capped = true;
        break;
      }
      countdown.Reset(chunks);
      for (int c = 0; c < chunks; ++c) {
        Submit(pool, [&, c] {
          out[c] = Spin(spins) + 1;
          countdown.Done();
        });
      }
      countdown.Wait();
      const auto t1 = Clock::now();
      measured += t1 - t0;
      round_ns.push_back(Nanos(t1 - t0));
      for (int c = 0; c < chunks; ++c) {
        checksum_errors += out[c] == 0;
        out[c] = 0;
      }
    }
    state.SetIterationTime(Seconds(measured));
    pool.shutdown(ShutdownMode::kDrain);
  }
  if (checksum_errors > 0) state.SkipWithError("a chunk did not run");
  std::sort(round_ns.begin(), round_ns.end());
  state.counters["p50_us"] = Percentile(round_ns, 0.50, true) / 1000.0;
  state.counters["p99_us"] = Percentile(round_ns, 0.99, true) / 1000.0;
  state.counters["capped"] = capped ? 1 : 0;
  state.SetItemsProcessed(static_cast<std::int64_t>(round_ns.size()));
  ThreadCounters(state, workers + 1);
}

template <typename P>
void RegisterFanout(Profile profile) {
  const double cap_s = TimeCap(profile);
  const int chunks = 64;
  const std::uint64_t rounds =
      ByProfile<std::uint64_t>(profile, 50, 2'000, 20'000);
  DescribeScenario("fanout", {{"rounds", rounds},
                              {"chunk_us", 2},
                              {"time_cap_s", cap_s},
                              {"workers", Cores()}});
  RegisterTimedOnce(
      BenchName("threadpool", "fanout", P::kName, {{"chunks", chunks}}),
      [=](benchmark::State& st) {
        BM_Fanout<P>(st, Cores(), chunks, rounds, cap_s);
      });
}

}  // namespace serverkit::bench::pool_sweep

#endif  // SERVERKIT_THREADPOOL_SWEEP_FANOUT_H_
