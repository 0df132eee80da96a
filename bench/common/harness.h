// -----------------------------------------------------------------------------
// bench/common/harness.h
// -----------------------------------------------------------------------------
//
// What every sweep binary (`//bench:queues`, `:threadpool`, `:logger`,
// `:buffer`) shares:
//
//   - `Profile`: `--profile=default|full|smoke`, parsed out of argv before
//     Google Benchmark sees it. Families scale their sweeps with it.
//   - `BenchName(...)`: names in the project's contract,
//     `<family>/<scenario>/<impl>/<param>:<value>/...`.
//   - `RunSweep(...)`: the main: default flags (repetitions, aggregates on the
//     console, JSON to `$BUILD_WORKSPACE_DIRECTORY/results/<family>.json`),
//     context lines (cores, pinning), Google Benchmark's own table, then one
//     ranking table per scenario: best first, ratio to the best, CV, and a `*`
//     on oversubscribed runs (more threads than cores).
//   - Thread helpers: `Cores()`, `PinToCore()`, `ThreadCounters()`.
//
// Any `--benchmark_*` flag the user passes wins over the defaults.
//
// Thread-safety: `PinToCore` and `Cores` are thread-safe; the rest is for the
// main thread.

#ifndef SERVERKIT_BENCH_COMMON_HARNESS_H_
#define SERVERKIT_BENCH_COMMON_HARNESS_H_

#include <benchmark/benchmark.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace serverkit::bench {

enum class Profile {
  kSmoke,    // a moment per benchmark: CI's check that the sweep runs
  kDefault,  // a few minutes on 2 cores
  kFull,     // the long sweep
};

// Picks a value by profile.
template <typename T>
T ByProfile(Profile p, T smoke, T default_value, T full) {
  switch (p) {
    case Profile::kSmoke:
      return smoke;
    case Profile::kDefault:
      return default_value;
    case Profile::kFull:
      return full;
  }
  return default_value;
}

// Online CPUs this process may run on.
int Cores();

// Pins the calling thread to core `index % Cores()`. Returns false when the
// system refuses (the harness then reports "pinning: no").
bool PinToCore(int index);

// Lets the calling thread run on every core again.
void UnpinThread();

// `<family>/<scenario>/<impl>/<k>:<v>/...`
std::string BenchName(std::string_view family, std::string_view scenario,
                      std::string_view impl,
                      std::initializer_list<std::pair<std::string_view, long>>
                          params = {});

// Records `threads` and `oversubscribed` (1 when threads > cores) counters;
// the ranking marks oversubscribed runs.
void ThreadCounters(benchmark::State& state, int threads);

// Exact percentiles (nearest rank) of `samples`, which is sorted in place.
// `q` in [0, 1].
double Percentile(std::vector<double>& samples, double q, bool sorted = false);

// How a scenario's implementations are ranked: by a counter (or by
// "real_time" when `counter` is empty), higher or lower is better.
struct RankBy {
  std::string scenario;
  std::string counter;     // e.g. "items_per_second", "p50_ns"
  bool higher_is_better;
  std::string unit;        // for the table header, e.g. "items/s", "ns"
  std::vector<std::string> also_show = {};  // extra counters to print
};

struct SweepSpec {
  std::string family;  // "queues": names start with it; JSON is <family>.json
  std::vector<RankBy> rankings;
  // Whether the family's benchmarks pin their threads with PinToCore (pools
  // and loggers own their threads and do not); reported in the output.
  bool pins_threads = true;
  // Registers the family's benchmarks for the chosen profile.
  std::function<void(Profile)> register_benchmarks;
};

// The whole main of a sweep binary. Returns the process exit code.
int RunSweep(const SweepSpec& spec, int argc, char** argv);

}  // namespace serverkit::bench

#endif  // SERVERKIT_BENCH_COMMON_HARNESS_H_
