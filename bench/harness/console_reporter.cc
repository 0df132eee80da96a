// -----------------------------------------------------------------------------
// bench/harness/console_reporter.cc
// -----------------------------------------------------------------------------
//
// The ranking tables a sweep ends with (internal/console_reporter.h).

#include "bench/harness/internal/console_reporter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench/harness/internal/registry.h"
#include "bench/harness/internal/run_names.h"
#include "bench/harness/internal/sysinfo.h"

namespace serverkit::bench::internal {

double CvOf(const std::vector<double>& all) {
  std::vector<double> xs;
  for (double x : all) {
    if (!std::isnan(x)) xs.push_back(x);
  }
  if (xs.size() < 2) return NAN;
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= static_cast<double>(xs.size());
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return mean != 0 ? std::sqrt(ss / static_cast<double>(xs.size() - 1)) / mean
                   : NAN;
}

namespace {

// The leading pair's median ratio over the rounds both ran, with its 95%
// interval: the figure pick decides from (in paired rounds only).
void PrintPaired(std::FILE* out, const RankBy& rank,
                 const std::vector<std::pair<std::string, Cell>>& rows) {
  std::map<std::string, RoundValues> by_impl;
  for (const auto& [impl, cell] : rows) {
    if (!cell.error && !cell.by_round.empty()) by_impl[impl] = cell.by_round;
  }
  if (by_impl.empty()) return;
  const auto pair = Leading(by_impl, rank.higher_is_better, ReferenceImpls());
  if (!pair) return;
  if (!pair->ratio) {
    std::fprintf(out,
                 "  paired: %s over %s: too few rounds for a 95%% "
                 "interval (6 needed)\n",
                 pair->first.c_str(), pair->second.c_str());
    return;
  }
  const RatioInterval& r = *pair->ratio;
  std::fprintf(
      out, "  paired: %s over %s: %.3fx [%.3f, %.3f] (95%%, %d rounds)\n",
      pair->first.c_str(), pair->second.c_str(), r.median, r.lo, r.hi, r.n);
}

void PrintGroup(std::FILE* out, const std::string& family, const RankBy& rank,
                const std::string& params,
                std::vector<std::pair<std::string, Cell>>& rows) {
  std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    const double x = a.second.median, y = b.second.median;
    if (std::isnan(x) != std::isnan(y)) return std::isnan(y);
    return rank.higher_is_better ? x > y : x < y;
  });
  const double best = rows.empty() ? NAN : rows.front().second.median;
  const bool reference = rank.scenario == kFloorScenario;
  std::fprintf(out, "%s: %s/%s%s%s (by %s %s, %s is better%s)\n",
               reference ? "Reference" : "Ranking", family.c_str(),
               rank.scenario.c_str(), params.empty() ? "" : "/", params.c_str(),
               rank.counter.empty() ? "real_time" : rank.counter.c_str(),
               rank.unit.c_str(), rank.higher_is_better ? "higher" : "lower",
               reference ? "; two pinned threads bounce cache lines, "
                           "never a winner"
                         : "");
  std::fprintf(out, "  %-4s %-24s %14s %9s %7s", "rank", "implementation",
               "median", "vs best", "CV");
  for (const auto& c : rank.also_show) std::fprintf(out, " %12s", c.c_str());
  std::fprintf(out, "\n");
  int place = 0;
  for (const auto& [impl, cell] : rows) {
    ++place;
    if (cell.error || std::isnan(cell.median)) {
      std::fprintf(
          out, "  %-4d %-24s %s\n", place, impl.c_str(),
          cell.error ? ("ERROR: " + cell.error_message).c_str() : "no result");
      continue;
    }
    const double ratio =
        rank.higher_is_better ? cell.median / best : best / cell.median;
    char cv[16];
    if (std::isnan(cell.cv)) {
      std::snprintf(cv, sizeof(cv), "n/a");
    } else {
      std::snprintf(cv, sizeof(cv), "%.1f%%", cell.cv * 100);
    }
    std::fprintf(out, "  %-4d %-24s %14.4g %8.2fx %7s", place,
                 (impl + (cell.oversubscribed ? " *" : "")).c_str(),
                 cell.median, ratio, cv);
    for (const auto& c : rank.also_show) {
      auto it = cell.extra.find(c);
      std::fprintf(out, " %12.4g", it == cell.extra.end() ? NAN : it->second);
    }
    std::fprintf(out, "\n");
  }
  if (!reference) PrintPaired(out, rank, rows);
  std::fprintf(out, "\n");
}

}  // namespace

void RankingReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) Collect(run);
}

std::map<std::string, RoundValues> RankingReporter::GroupRounds(
    const std::string& scenario, const std::string& params) const {
  std::map<std::string, RoundValues> out;
  for (const auto& [key, cell] : cells_) {
    const auto& [s, p, impl] = key;
    if (s == scenario && p == params && !cell.error) out[impl] = cell.by_round;
  }
  return out;
}

const RankBy* RankingReporter::RankFor(const std::string& scenario) const {
  for (const RankBy& r : rankings_) {
    if (r.scenario == scenario) return &r;
  }
  return nullptr;
}

const Cell* RankingReporter::FloorCell() const {
  auto it =
      cells_.find({std::string(kFloorScenario), "", std::string(kFloorImpl)});
  return it == cells_.end() || it->second.error ? nullptr : &it->second;
}

void RankingReporter::PrintRankings(bool pins_threads) const {
  std::FILE* out = stdout;
  std::fprintf(out, "\n");
  for (const RankBy& rank : rankings_) {
    // group key (params) -> impl -> cell
    std::map<std::string, std::vector<std::pair<std::string, Cell>>> groups;
    for (const auto& [key, cell] : cells_) {
      const auto& [scenario, params, impl] = key;
      if (scenario != rank.scenario) continue;
      groups[params].push_back({impl, cell});
    }
    for (auto& [params, rows] : groups) {
      PrintGroup(out, family_, rank, params, rows);
    }
  }
  const char* pinning = !pins_threads      ? "none"
                        : PinningRefused() ? "refused by the system"
                                           : "yes";
  std::fprintf(out,
               "cores: %d, pinning: %s. '*' marks oversubscribed runs (more "
               "threads than cores).\n",
               Cores(), pinning);
}

void RankingReporter::Collect(const Run& run) {
  const ParsedName name = ParseRunName(run.run_name.str());
  const RankBy* rank = RankFor(name.scenario);
  if (rank == nullptr) return;
  const CellKey key{name.scenario, name.params, name.impl};
  Cell& cell = cells_[key];
  if (run.error_occurred) {
    ++errors_;
    cell.error = true;
    cell.error_message = run.error_message;
    return;
  }
  auto value_of = [&](const std::string& counter) -> double {
    if (counter.empty() || counter == "real_time") {
      return run.GetAdjustedRealTime();
    }
    auto it = run.counters.find(counter);
    return it == run.counters.end() ? NAN : it->second.value;
  };
  if (auto it = run.counters.find("oversubscribed");
      it != run.counters.end() && it->second.value > 0) {
    cell.oversubscribed = true;
  }
  const bool is_aggregate = run.run_type == Run::RT_Aggregate;
  if (is_aggregate && run.aggregate_name == "median") {
    cell.from_aggregate = true;
    cell.median = value_of(rank->counter);
    for (const auto& c : rank->also_show) cell.extra[c] = value_of(c);
  } else if (is_aggregate && run.aggregate_name == "cv") {
    cell.cv = value_of(rank->counter);
  } else if (!is_aggregate) {
    const double v = value_of(rank->counter);
    cell.values.push_back(v);
    if (auto it = run.counters.find(kRoundCounter); it != run.counters.end()) {
      cell.by_round[static_cast<int>(it->second.value)] = v;
    }
    if (!cell.from_aggregate) {
      // Without aggregates (one repetition, or paired rounds) the median
      // of the runs so far is the result.
      cell.median = Median(cell.values);
      cell.cv = CvOf(cell.values);
      for (const auto& c : rank->also_show)
        extra_values_[key][c].push_back(value_of(c));
      for (const auto& [c, xs] : extra_values_[key]) cell.extra[c] = Median(xs);
    }
  }
}

}  // namespace serverkit::bench::internal
