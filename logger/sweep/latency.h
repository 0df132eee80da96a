// -----------------------------------------------------------------------------
// logger/sweep/latency.h
// -----------------------------------------------------------------------------
//
// The logger sweep's `latency-file` and `latency-console` scenarios, quill's
// method: each caller times every call on its own thread with the cycle
// counter (calibrated against steady_clock), in batches of kBatch with a
// 50-150 us sleep after each, so the backend keeps up. p50 / p99 / p99.9
// in ns.
//
// Thread-safety: Google Benchmark calls these on its main thread; `Ticks`
// runs on any thread.

#ifndef SERVERKIT_LOGGER_SWEEP_LATENCY_H_
#define SERVERKIT_LOGGER_SWEEP_LATENCY_H_

#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <latch>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/percentile.h"
#include "bench/harness/harness.h"
#include "logger/logger.h"
#include "logger/sweep/common.h"

namespace serverkit::bench::logger_sweep {

// ------------------------------------------------------------ cycle counter

inline std::uint64_t Ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
#endif
}

inline double NanosPerTick() {
  static const double value = [] {
#if defined(__x86_64__) || defined(__i386__)
    const auto c0 = Clock::now();
    const std::uint64_t t0 = Ticks();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto c1 = Clock::now();
    const std::uint64_t t1 = Ticks();
    return std::chrono::duration<double, std::nano>(c1 - c0).count() /
           static_cast<double>(t1 - t0);
#else
    return std::chrono::duration<double, std::nano>(Clock::duration(1)).count();
#endif
  }();
  return value;
}

// ------------------------------------------------------------------ latency

// Calls per batch in the latency scenario (a pause follows each batch).
inline constexpr int kBatch = 20;

template <Logger L>
void BM_Latency(benchmark::State& state, Target target, int threads,
                std::size_t bytes, int batches) {
  const std::string path = g_dir + "/latency.log";
  const std::string filler = Filler(bytes);
  const std::string_view fill(filler);
  const double ns_per_tick = NanosPerTick();
  std::vector<double> samples;
  double cpu_ns = 0;
  for (auto _ : state) {
    ::unlink(path.c_str());
    std::unique_ptr<L> logger = Make<L>(state, Options(target, path));
    if (!logger) break;
    const double cpu0 = ProcessCpuNanos();
    std::vector<std::vector<double>> per_thread(threads);
    std::latch start(threads);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        PinToCore(t);
        L& log = *logger;
        std::vector<double>& mine = per_thread[t];
        mine.reserve(static_cast<std::size_t>(batches) * kBatch);
        std::minstd_rand rng(static_cast<unsigned>(t + 1));
        std::uniform_int_distribution<int> pause_us(50, 150);
        std::uint64_t seq = static_cast<std::uint64_t>(t) << 32;
        start.arrive_and_wait();
        for (int b = 0; b < batches; ++b) {
          for (int k = 0; k < kBatch; ++k) {
            const std::uint64_t c0 = Ticks();
            SK_LOG_INFO(log, "{:08} {}", seq++ & 0xffffffff, fill);
            const std::uint64_t c1 = Ticks();
            mine.push_back(static_cast<double>(c1 - c0) * ns_per_tick);
          }
          std::this_thread::sleep_for(std::chrono::microseconds(pause_us(rng)));
        }
      });
    }
    for (auto& w : workers) w.join();
    const bool flushed = logger->flush();
    cpu_ns += ProcessCpuNanos() - cpu0;
    const LoggerStats s = logger->stats();
    logger.reset();
    ::unlink(path.c_str());
    double measured = 0;
    for (auto& v : per_thread) {
      for (double x : v) measured += x;
      samples.insert(samples.end(), v.begin(), v.end());
    }
    state.SetIterationTime(measured * 1e-9);
    const std::uint64_t expected =
        static_cast<std::uint64_t>(threads) * batches * kBatch;
    if (!flushed || s.written != expected) {
      state.SkipWithError(
          ("records lost or I/O error: " + s.last_error).c_str());
      break;
    }
  }
  std::sort(samples.begin(), samples.end());
  state.counters["p50_ns"] = Percentile(samples, 0.50, true);
  state.counters["p99_ns"] = Percentile(samples, 0.99, true);
  state.counters["p999_ns"] = Percentile(samples, 0.999, true);
  state.counters["samples"] = static_cast<double>(samples.size());
  if (!samples.empty()) {
    state.counters["cpu_ns_per_item"] =
        cpu_ns / static_cast<double>(samples.size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(samples.size()));
  ThreadCounters(state, threads + (L::kAsync ? 1 : 0));
}

// Registers one logger's latency points, `impl` its name: into the file,
// and in the full profile into the console too.
template <Logger L>
void RegisterLatency(Profile profile, std::string_view impl, int batches) {
  for (const char* s : {"latency-file", "latency-console"}) {
    DescribeScenario(
        s, {{"batches_per_caller", batches}, {"calls_per_batch", kBatch}});
  }
  std::vector<Target> latency_targets = {Target::kFile};
  if (profile == Profile::kFull) latency_targets.push_back(Target::kConsole);
  for (Target target : latency_targets) {
    const char* scenario =
        target == Target::kFile ? "latency-file" : "latency-console";
    for (int threads : {1, 4}) {
      for (long bytes : {32L, 512L}) {
        RegisterTimedOnce(
            BenchName("logger", scenario, impl,
                      {{"callers", threads}, {"bytes", bytes}})
                .c_str(),
            [=](benchmark::State& s) {
              BM_Latency<L>(s, target, threads, static_cast<std::size_t>(bytes),
                            batches);
            },
            benchmark::kMicrosecond);
      }
    }
  }
}

}  // namespace serverkit::bench::logger_sweep

#endif  // SERVERKIT_LOGGER_SWEEP_LATENCY_H_
