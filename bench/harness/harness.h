// -----------------------------------------------------------------------------
// bench/harness/harness.h
// -----------------------------------------------------------------------------
//
// What every sweep binary (`//bench:queues`, `:threadpool`, `:logger`,
// `:buffer`) shares:
//
//   - `Profile`: `--profile=default|full|smoke`, parsed out of argv before
//     Google Benchmark sees it. Families scale their sweeps with it.
//   - `BenchName(...)`: names in the project's contract,
//     `<family>/<scenario>/<impl>/<param>:<value>/...`.
//   - `RunSweep(...)`: the main: paired rounds (bench/harness/rounds.h; each
//     run stamped with its `round` and the `round_floor_ns` measured just
//     before its group's round) until every unit's leading pair is within
//     ±5% or the time budget is spent, or with `--rounds=off` the older
//     9 randomly interleaved repetitions; JSON to
//     `$BUILD_WORKSPACE_DIRECTORY/results/<family>.json`; context lines
//     (cores, pinning), the core-to-core floor (bench/harness/floor.h) before
//     and after the sweep and as a reference row `<family>/floor/cache-line`
//     interleaved with the family's benchmarks, Google Benchmark's own table,
//     then one ranking table per scenario: best first, ratio to the best, CV,
//     and a `*` on oversubscribed runs (more threads than cores). It warns
//     when the host drifted during the sweep (the floor moved by more than
//     20%, or its repetitions vary by a CV above 20%): data for pick,
//     which checks whether the paired ratios differ between host states.
//   - The vocabulary: the sweep writes its ranking rules (`RankBy`), each
//     implementation's traits (`DescribeImpl`) and each scenario's workload
//     size (`DescribeScenario`), with the floor, the CPU model and the core
//     count, into the JSON's context as the object "serverkit"; pick
//     reads them from there.
//   - Thread helpers: `Cores()`, `AllowedCpus()`, `PinToCore()`,
//     `ThreadCounters()`.
//
//   - `--part=K/N`: this process is part K of a sweep run as N processes
//     (bench/sweep.sh); it runs 1/N of the time budget and of the minimum
//     rounds (ceil(9 / N) of the repetitions with --rounds=off) and records
//     the part in the context, and `pick --merge` joins the N files.
//   - Rounds flags: `--rounds=on|off`, `--round_budget_s=S`,
//     `--min_rounds=N`, `--max_rounds=N`, `--round_target=F`. In rounds,
//     `--benchmark_filter` is matched against the names of the contract
//     (and the name with a "/" after it), not Google Benchmark's suffixes.
//
// Any `--benchmark_*` flag the user passes wins over the defaults. Colour
// only when stdout is a terminal (`--benchmark_color=true|false|auto`).
//
// Thread-safety: `PinToCore` and `Cores` are thread-safe; the rest is for the
// main thread.
//
// This is the one header a sweep includes (with floor.h for a scenario that
// measures the floor itself). Behind it, one file per concern, as Google
// Benchmark's src/ has: flags.cc (the command line, --help),
// benchmark_args.cc (Google Benchmark's command line, the results file),
// sysinfo.cc (CPUs, pinning), registry.cc (names, vocabulary),
// run_names.cc (reading names back, filters), console_reporter.cc (the
// rankings), schedule.cc (paired rounds' driver; rounds.h their
// statistics), floor_report.cc (the floor in a sweep; floor.h measures it),
// json_context.cc (the "serverkit" context; json.h its values), and
// harness.cc (RunSweep). Their declarations are in internal/.

#ifndef SERVERKIT_BENCH_HARNESS_HARNESS_H_
#define SERVERKIT_BENCH_HARNESS_HARNESS_H_

#include <benchmark/benchmark.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/harness/json.h"

namespace serverkit::bench {

enum class Profile {
  kSmoke,    // a moment per benchmark: CI's check that the sweep runs
  kDefault,  // a few minutes on 2 cores
  kFull,     // the long sweep
};

// Repetitions of every benchmark in the default and full profiles: enough
// for the U-test over repetitions to reach p < 0.05 where a difference is
// real (Google Benchmark's compare.py asks for 9 or more).
inline constexpr long kDefaultRepetitions = 9;

// One process of a sweep split into `of` processes (`--part=K/N`): the
// sweep scripts run a family as N processes, one after the other, and
// pick merges their files (`pick --merge`). A process-level effect
// (where the heap and the stacks landed, which vCPU the hypervisor gave)
// then shows as a difference between processes instead of deciding a whole
// run, and pick counts X ahead of Y only when every process agrees.
struct SweepPart {
  int index = 1;  // 1-based
  int of = 1;
};

// "K/N" with 1 <= K <= N <= 64; nullopt otherwise.
std::optional<SweepPart> ParsePart(std::string_view text);

// The repetitions each of `parts` processes runs so that together they run
// at least `total`: ceil(total / parts), at least 1.
long PartRepetitions(long total, int parts);

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

// Those CPUs, as the OS numbers them, in increasing order (read once).
std::vector<int> AllowedCpus();

// Pins the calling thread to core `index % Cores()`. Returns false when the
// system refuses (the harness then reports "pinning: no").
bool PinToCore(int index);

// Lets the calling thread run on every core again.
void UnpinThread();

// `<family>/<scenario>/<impl>/<k>:<v>/...`
std::string BenchName(
    std::string_view family, std::string_view scenario, std::string_view impl,
    std::initializer_list<std::pair<std::string_view, long>> params = {});

// Records `threads` and `oversubscribed` (1 when threads > cores) counters;
// the ranking marks oversubscribed runs.
void ThreadCounters(benchmark::State& state, int threads);

// The CPU time of every thread of this process so far, in nanoseconds
// (CLOCK_PROCESS_CPUTIME_ID). A multi-threaded benchmark's
// `cpu_ns_per_item` counter is its difference over the timed region: the
// total CPU an item costs, the figure that matters where the server has no
// spare core (Google Benchmark's cpu_time is the main thread's only).
double ProcessCpuNanos();

// How a scenario's implementations are ranked: by a counter (or by
// "real_time" when `counter` is empty), higher or lower is better. Written
// into the JSON context, where pick reads it.
struct RankBy {
  std::string scenario;
  std::string counter;  // e.g. "items_per_second", "p50_ns"
  bool higher_is_better;
  std::string unit;  // for the table header, e.g. "items/s", "ns"
  std::vector<std::string> also_show = {};  // extra counters to print
  // The implementation the others are compared with; empty: the sweep's.
  std::string baseline = {};
  // The metric is a multiple of the floor (bench/harness/floor.h) measured
  // beside each repetition on the same two cores (the queue round trip).
  bool vs_floor = false;
  // The round unit (bench/harness/rounds.h) the scenario's groups advance
  // in; empty: a unit of its own. Scenarios that one workload class of
  // pick joins share a unit, so that their rounds pair up.
  std::string round_unit = {};
};

// Records an implementation's traits (topology, bounded, blocking, ...;
// `"reference": true` marks one that is never a winner), written into the
// JSON context. Call it while registering; a later call for the same
// implementation replaces the earlier one.
void DescribeImpl(std::string_view impl, JsonFields traits);

// Records a scenario's workload size (items, round trips, tasks, bytes,
// time caps), written into the JSON context. A later call for the same
// scenario adds to (and overrides keys of) the earlier one.
void DescribeScenario(std::string_view scenario, JsonFields sizes);

struct SweepSpec {
  std::string family;  // "queues": names start with it; JSON is <family>.json
  std::vector<RankBy> rankings;
  // The baseline of every ranking that names none.
  std::string baseline;
  // Whether the family's benchmarks pin their threads with PinToCore (pools
  // and loggers own their threads and do not); reported in the output.
  bool pins_threads = true;
  // Registers the family's benchmarks for the chosen profile, each through
  // RegisterSweepBenchmark.
  std::function<void(Profile)> register_benchmarks;
  // Seconds after which the default profile starts no new round (the full
  // profile: kFullBudgetFactor times this); the minimum rounds run anyway.
  // Split evenly between the processes of a sweep run as several.
  double round_budget_s = 120;
};

// Every unit runs at least this many rounds (default profile; the full
// profile kFullMinRounds, smoke one round): the fewest that give the sign
// test's 95% interval for a median (bench/harness/rounds.h).
inline constexpr int kDefaultMinRounds = 6;
inline constexpr int kFullMinRounds = 10;
inline constexpr double kFullBudgetFactor = 6;
// A unit stops adding rounds once its leading pair's interval is within
// ±kRoundTarget in every group (or its budget is spent).
inline constexpr double kRoundTarget = 0.05;

namespace internal {
// Keeps a registered name for the rounds' schedule.
void NoteSweepBenchmark(const std::string& name);
}  // namespace internal

// benchmark::RegisterBenchmark for a sweep's benchmarks: the harness runs
// them in paired rounds, one by name, so it keeps the names.
template <typename Fn>
benchmark::internal::Benchmark* RegisterSweepBenchmark(const std::string& name,
                                                       Fn&& fn) {
  internal::NoteSweepBenchmark(name);
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn));
}

// A sweep benchmark that times itself and runs once per round (manual
// time, one iteration), the shape of every scenario that measures a whole
// run of items, tasks or messages.
template <typename Fn>
benchmark::internal::Benchmark* RegisterTimedOnce(
    const std::string& name, Fn&& fn,
    benchmark::TimeUnit unit = benchmark::kMillisecond) {
  return RegisterSweepBenchmark(name, std::forward<Fn>(fn))
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(unit);
}

// The whole main of a sweep binary. Returns the process exit code.
int RunSweep(const SweepSpec& spec, int argc, char** argv);

}  // namespace serverkit::bench

#endif  // SERVERKIT_BENCH_HARNESS_HARNESS_H_
