// -----------------------------------------------------------------------------
// threadpool/sweep/common.h
// -----------------------------------------------------------------------------
//
// What the pool sweep's scenarios share (threadpool/threadpool_benchmark.cc
// lists them): the clock and its units, the time caps and submitter counts
// of each profile, the calibrated busy work, and the `lost_wakeups`
// counter of every row.
//
// Thread-safety: `Calibrate` runs once on the main thread before any
// benchmark; `Spin` may run on any thread.

#ifndef SERVERKIT_THREADPOOL_SWEEP_COMMON_H_
#define SERVERKIT_THREADPOOL_SWEEP_COMMON_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "bench/harness/harness.h"
#include "queues/wait_strategy.h"

namespace serverkit::bench::pool_sweep {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
inline double Nanos(Clock::duration d) {
  return std::chrono::duration<double, std::nano>(d).count();
}

// A point stops at its count or at its time cap, whichever comes first (see
// the top of threadpool_benchmark.cc).
inline Clock::duration CapDuration(double cap_s) {
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(cap_s));
}

// Sorts samples and drops the slots a capped run never filled (NaN).
inline void DropUnmeasured(std::vector<double>& samples) {
  std::erase_if(samples, [](double x) { return std::isnan(x); });
  std::sort(samples.begin(), samples.end());
}

inline std::vector<int> SubmitterCounts(Profile profile) {
  if (profile == Profile::kFull) return {1, 2, 4, 8};
  return {1, 4};
}

// Short runs in the default profile: paired rounds gain more from many
// rounds than from long runs.
inline double TimeCap(Profile profile) {
  return ByProfile(profile, 1.0, 0.12, 2.0);
}

// ------------------------------------------------------------------- work

// Calibrated busy work: `Spin(g_spins_per_us * us)` takes about `us`
// microseconds of one core.
inline double g_spins_per_us = 100;
inline double g_mean_sleep_us = 2000;  // measured mean of sleep_for(2ms)

inline std::uint64_t Spin(std::uint64_t n) {
  std::uint64_t x = n | 1;
  for (std::uint64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    benchmark::DoNotOptimize(x);
  }
  return x;
}

inline void Calibrate() {
  constexpr std::uint64_t kProbe = 2'000'000;
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    Spin(kProbe);
    best = std::min(best, Nanos(Clock::now() - t0));
  }
  g_spins_per_us = static_cast<double>(kProbe) / (best / 1000.0);

  constexpr int kSleeps = 100;
  double total_us = 0;
  for (int i = 0; i < kSleeps; ++i) {
    const auto t0 = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    total_us += Nanos(Clock::now() - t0) / 1000.0;
  }
  g_mean_sleep_us = total_us / kSleeps;
}

// Sets the row's `lost_wakeups`: wake-ups that FutexWait's timed park found
// lost during the benchmark (queues/wait_strategy.h); each cost a worker up
// to 100 ms, so a row with any is not a fair figure.
class LostWakeups {
 public:
  explicit LostWakeups(benchmark::State& state)
      : state_(state), before_(FutexWaitRescues()) {}
  ~LostWakeups() {
    state_.counters["lost_wakeups"] =
        static_cast<double>(FutexWaitRescues() - before_);
  }
  LostWakeups(const LostWakeups&) = delete;
  LostWakeups& operator=(const LostWakeups&) = delete;

 private:
  benchmark::State& state_;
  const std::uint64_t before_;
};

}  // namespace serverkit::bench::pool_sweep

#endif  // SERVERKIT_THREADPOOL_SWEEP_COMMON_H_
