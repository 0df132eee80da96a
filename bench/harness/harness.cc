// -----------------------------------------------------------------------------
// bench/harness/harness.cc
// -----------------------------------------------------------------------------
//
// RunSweep, the main of every sweep binary (harness.h): flags, Google
// Benchmark's command line, the floor, the family's benchmarks in paired
// rounds or repetitions, the rankings, the floor's report and the JSON
// context. Each step lives in a file of its own (internal/*.h).

#include "bench/harness/harness.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/harness/floor.h"
#include "bench/harness/internal/benchmark_args.h"
#include "bench/harness/internal/console_reporter.h"
#include "bench/harness/internal/flags.h"
#include "bench/harness/internal/floor_report.h"
#include "bench/harness/internal/json_context.h"
#include "bench/harness/internal/run_names.h"
#include "bench/harness/internal/schedule.h"
#include "bench/harness/rounds.h"

namespace serverkit::bench {

using internal::BenchArgs;
using internal::SweepFlags;

namespace {

// The context lines of Google Benchmark's output, and this process's share
// of a sweep run as several.
void AddSweepContext(const SweepSpec& spec, const SweepFlags& f,
                     const RoundsConfig& rounds, long repetitions) {
  benchmark::AddCustomContext("profile", internal::ProfileName(f.profile));
  if (f.part.of > 1) {
    if (f.rounds_mode) {
      std::printf(
          "part %d of %d: %.0f s of rounds, at least %d a unit, in this "
          "process\n",
          f.part.index, f.part.of, rounds.budget_s, rounds.min_rounds);
    } else {
      std::printf("part %d of %d: %ld repetition(s) in this process\n",
                  f.part.index, f.part.of, repetitions);
    }
  }
  benchmark::AddCustomContext("cores", std::to_string(Cores()));
  benchmark::AddCustomContext(
      "pinning", spec.pins_threads
                     ? "workers pinned round-robin to the allowed cores"
                     : "none (the components under test own their threads)");
  benchmark::AddCustomContext(
      "note",
      "Debian's libbenchmark is built without NDEBUG, hence its "
      "'Library was built as DEBUG' line; our code is built with -c opt");
}

// The family's rankings, each with a baseline, and the floor's.
std::vector<RankBy> SweepRankings(const SweepSpec& spec) {
  std::vector<RankBy> rankings = spec.rankings;
  for (RankBy& r : rankings) {
    if (r.baseline.empty()) r.baseline = spec.baseline;
  }
  rankings.push_back({std::string(internal::kFloorScenario),
                      "p50_ns",
                      false,
                      "ns",
                      {"p99_ns", "p999_ns"}});
  return rankings;
}

// --benchmark_list_tests=true: the names once, through Google Benchmark,
// with no floor measured and no file opened.
int ListBenchmarks(const SweepSpec& spec, const SweepFlags& flags) {
  std::vector<std::string> args = {"list"};
  for (const std::string& a : flags.user_args) {
    if (a.rfind("--benchmark_out", 0) != 0) args.push_back(a);
  }
  if (!internal::InitializeBenchmark(args)) return 2;
  spec.register_benchmarks(flags.profile);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace

int RunSweep(const SweepSpec& spec, int argc, char** argv) {
  const char* argv0 = argv[0];
  SweepFlags flags;
  if (!internal::ParseSweepFlags(argc, argv, &flags)) return 2;
  if (flags.help) {
    internal::PrintSweepHelp(spec, argv0);
    return 0;
  }
  if (auto v = internal::FlagValue(flags.user_args, "--benchmark_list_tests");
      v && internal::ParseBool(*v).value_or(false)) {
    return ListBenchmarks(spec, flags);
  }
  bool color = false;
  bool tabular = false;
  if (!internal::ParseConsoleFlags(flags.user_args, argv0, &color, &tabular))
    return 2;
  if (!internal::RepetitionFlagsFit(flags, argv0)) return 2;
  const RoundsConfig rounds = internal::RoundsFor(spec, flags);
  BenchArgs b;
  if (const int rc = internal::BuildBenchArgs(spec, flags, argv0, &b); rc != 0)
    return rc;
  if (!internal::InitializeBenchmark(b.args)) return 2;
  AddSweepContext(spec, flags, rounds, b.repetitions);
  const std::vector<RankBy> rankings = SweepRankings(spec);

  // The floor: before, interleaved with the family's rows, after.
  const std::string floor_name =
      BenchName(spec.family, internal::kFloorScenario, internal::kFloorImpl);
  internal::FloorEnds floor = internal::StartFloor(flags.profile, floor_name);
  spec.register_benchmarks(flags.profile);

  internal::RankingReporter reporter(
      spec.family, rankings,
      static_cast<benchmark::ConsoleReporter::OutputOptions>(
          (color ? benchmark::ConsoleReporter::OO_Color : 0) |
          (tabular ? benchmark::ConsoleReporter::OO_Tabular : 0)));
  internal::RoundsOutcome outcome;
  if (!flags.rounds_mode) {
    outcome.ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  } else if (const int rc = internal::RunPairedRounds(
                 spec, rounds, b, rankings, floor.cpus ? &floor_name : nullptr,
                 argv0, reporter, &outcome);
             rc != 0) {
    return rc;
  }
  benchmark::Shutdown();
  if (outcome.ran == 0) {
    std::fprintf(stderr, "%s: no benchmark matched the filter\n", argv0);
    if (!b.write_path.empty()) std::remove(b.write_path.c_str());
    return 1;
  }
  floor.after = internal::MeasureFloorEdge(floor.edge_trips);

  const internal::Cell* floor_row = reporter.FloorCell();
  reporter.PrintRankings(spec.pins_threads);
  const std::vector<std::string> drift =
      internal::ReportFloor(floor, floor_row, flags.rounds_mode, argv0);

  if (!b.out_path.empty() && b.out_is_json) {
    const JsonValue doc = internal::SweepContextJson(
        spec, flags, b, rounds, rankings, floor, drift, outcome);
    if (const std::string error =
            internal::AddToContext(b.write_path, "serverkit", doc);
        !error.empty()) {
      std::fprintf(stderr,
                   "%s: could not add the ranking rules and the floor to %s "
                   "(%s); %s is unchanged\n",
                   argv0, b.write_path.c_str(), error.c_str(),
                   b.out_path.c_str());
      std::remove(b.write_path.c_str());
      return 1;
    }
  }
  if (!internal::PublishResults(b, argv0)) return 1;
  if (!b.out_path.empty()) {
    std::printf("Google Benchmark %s: %s\n", b.out_is_json ? "JSON" : "output",
                b.out_path.c_str());
  }
  if (reporter.errors() > 0) {
    std::fprintf(stderr, "%s: %d benchmark run(s) failed (see ERROR above)\n",
                 argv0, reporter.errors());
    return 1;
  }
  return 0;
}

}  // namespace serverkit::bench
