// What SERVERKIT_PROBE costs a loop: off (the variable unset) against the
// same loop without it, and on with a spin of 0 ns (counting only).
// Compare the first two with Google Benchmark's compare.py over interleaved
// repetitions (--benchmark_repetitions=20
// --benchmark_enable_random_interleaving=true; docs/methods.md).

#include <benchmark/benchmark.h>

#include <cstdlib>

#include "probe/probe.h"

namespace {

// The work per iteration: a dependent add the compiler cannot drop.
inline void Work(std::uint64_t& x) {
  x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  benchmark::DoNotOptimize(x);
}

void BM_EmptyLoop(benchmark::State& state) {
  std::uint64_t x = 1;
  for (auto _ : state) Work(x);
}

void BM_ProbeOff(benchmark::State& state) {
  unsetenv("SERVERKIT_PROBE");
  serverkit::probe::internal::ResetForTest();
  std::uint64_t x = 1;
  for (auto _ : state) {
    SERVERKIT_PROBE("bench_site");
    Work(x);
  }
}

void BM_ProbeCounting(benchmark::State& state) {
  setenv("SERVERKIT_PROBE", "bench_site_on:0", 1);
  serverkit::probe::internal::ResetForTest();
  std::uint64_t x = 1;
  for (auto _ : state) {
    SERVERKIT_PROBE("bench_site_on");
    Work(x);
  }
  unsetenv("SERVERKIT_PROBE");
  serverkit::probe::internal::ResetForTest();
}

BENCHMARK(BM_EmptyLoop);
BENCHMARK(BM_ProbeOff);
BENCHMARK(BM_ProbeCounting);

}  // namespace

BENCHMARK_MAIN();
