// -----------------------------------------------------------------------------
// bench/harness/internal/console_reporter.h
// -----------------------------------------------------------------------------
//
// The console's ranking reporter: it passes every run on to Google
// Benchmark's console reporter unchanged, keeps each (scenario, params,
// impl) cell's value, and at the end prints one ranking table per scenario
// (best first, ratio to the best, CV, `*` on oversubscribed runs) with the
// leading pair's paired ratio. The rounds' schedule reads the cells' values
// by round to decide when a unit is done.
//
// Thread-safety: none; Google Benchmark reports on the main thread.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_CONSOLE_REPORTER_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_CONSOLE_REPORTER_H_

#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "bench/harness/harness.h"
#include "bench/harness/rounds.h"

namespace serverkit::bench::internal {

// The counters a run of paired rounds is stamped with.
inline constexpr const char* kRoundCounter = "round";
inline constexpr const char* kRoundFloorCounter = "round_floor_ns";

// One implementation's results in one group.
struct Cell {
  double median = NAN;
  bool from_aggregate = false;  // median is Google Benchmark's median aggregate
  double cv = NAN;
  std::vector<double> values;  // every run's value, without aggregates
  RoundValues by_round;        // round -> value, in paired rounds
  bool oversubscribed = false;
  std::map<std::string, double> extra;  // also_show counters (median)
  bool error = false;
  std::string error_message;
};

// Sample standard deviation over the mean, as Google Benchmark's cv; NaN
// with fewer than two values.
double CvOf(const std::vector<double>& all);

// Collects every run for the ranking tables, and passes it on to Google
// Benchmark's console reporter unchanged.
class RankingReporter : public benchmark::ConsoleReporter {
 public:
  RankingReporter(const std::string& family,
                  const std::vector<RankBy>& rankings, OutputOptions options)
      : ConsoleReporter(options), family_(family), rankings_(rankings) {}

  void ReportRuns(const std::vector<Run>& runs) override;

  int errors() const { return errors_; }

  // Every implementation's value by round in one group (paired rounds).
  std::map<std::string, RoundValues> GroupRounds(
      const std::string& scenario, const std::string& params) const;

  const RankBy* RankFor(const std::string& scenario) const;

  // The floor row's cell (its ranking counter is p50_ns), if it ran.
  const Cell* FloorCell() const;

  void PrintRankings(bool pins_threads) const;

 private:
  // scenario, params, impl
  using CellKey = std::tuple<std::string, std::string, std::string>;

  void Collect(const Run& run);

  std::string family_;
  std::vector<RankBy> rankings_;
  int errors_ = 0;
  std::map<CellKey, Cell> cells_;
  std::map<CellKey, std::map<std::string, std::vector<double>>> extra_values_;
};

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_CONSOLE_REPORTER_H_
