// -----------------------------------------------------------------------------
// bench/harness/schedule.cc
// -----------------------------------------------------------------------------
//
// The paired rounds' driver (internal/schedule.h).

#include "bench/harness/internal/schedule.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/harness/floor.h"
#include "bench/harness/internal/registry.h"
#include "bench/harness/internal/run_names.h"

namespace serverkit::bench::internal {
namespace {

// Paired rounds' reporter: stamps every run with its round and the floor
// measured before its group's round, hands it to the console's ranking
// reporter and to the file's reporter, and lets each see the context once
// and finish once, although Google Benchmark runs one benchmark a call.
class RoundsReporter : public benchmark::BenchmarkReporter {
 public:
  RoundsReporter(RankingReporter& console, benchmark::BenchmarkReporter* file)
      : console_(console), file_(file) {}

  void Stamp(int round, double floor_ns) {
    round_ = round;
    floor_ns_ = floor_ns;
  }

  bool ReportContext(const Context& context) override {
    if (!context_done_) {
      context_done_ = true;
      console_.ReportContext(context);
      if (file_ != nullptr) file_->ReportContext(context);
    }
    return true;
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> stamped = runs;
    for (Run& run : stamped) {
      run.counters[kRoundCounter] = benchmark::Counter(round_);
      if (!std::isnan(floor_ns_)) {
        run.counters[kRoundFloorCounter] = benchmark::Counter(floor_ns_);
      }
    }
    console_.ReportRuns(stamped);
    if (file_ != nullptr) file_->ReportRuns(stamped);
  }

  void Finalize() override {}  // one call of many: FinishAll() ends it

  void FinishAll() {
    console_.Finalize();
    if (file_ != nullptr) file_->Finalize();
  }

 private:
  RankingReporter& console_;
  benchmark::BenchmarkReporter* file_;
  bool context_done_ = false;
  int round_ = 0;
  double floor_ns_ = NAN;
};

// The widest leading-pair interval over a unit's groups (a fraction):
// nullopt while a group has too few rounds for one, 0 when no group has
// two contenders.
std::optional<double> UnitHalfWidth(const ScheduleUnit& unit,
                                    const RankingReporter& reporter) {
  double widest = 0;
  const std::set<std::string> references = ReferenceImpls();
  for (const auto& [scenario, params] : unit.group_keys) {
    const RankBy* rank = reporter.RankFor(scenario);
    if (rank == nullptr) continue;
    const auto pair = Leading(reporter.GroupRounds(scenario, params),
                              rank->higher_is_better, references);
    if (!pair) continue;
    if (!pair->ratio) return std::nullopt;
    widest = std::max(widest, HalfWidth(*pair->ratio));
  }
  return widest;
}

std::unique_ptr<benchmark::BenchmarkReporter> FileReporter(
    const std::string& format) {
  if (format == "console") {
    return std::make_unique<benchmark::ConsoleReporter>(
        benchmark::ConsoleReporter::OO_None);
  }
  return std::make_unique<benchmark::JSONReporter>();
}

// One round of one unit: the floor's row (when `floor_name` is not null),
// then the unit's groups in random order, each after a short floor
// measurement, its implementations in random order. Returns the runs.
std::size_t RunUnitRound(const ScheduleUnit& unit, int round,
                         const std::string* floor_name, RoundsReporter& both,
                         std::mt19937_64& rng) {
  std::size_t ran = 0;
  if (floor_name != nullptr) {
    both.Stamp(round, NAN);
    ran += benchmark::RunSpecifiedBenchmarks(&both, ExactFilter(*floor_name));
  }
  std::vector<std::size_t> order(unit.group_names.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (std::size_t g : order) {
    const auto f = MeasureFloor(kRoundFloorTrips);
    both.Stamp(round, f ? f->p50_ns : NAN);
    std::vector<std::string> names = unit.group_names[g];
    std::shuffle(names.begin(), names.end(), rng);
    for (const std::string& name : names) {
      ran += benchmark::RunSpecifiedBenchmarks(&both, ExactFilter(name));
    }
  }
  return ran;
}

// Prints how each unit's rounds ended; returns them for the JSON.
JsonFields UnitsSummary(const std::string& family,
                        const std::vector<ScheduleUnit>& units,
                        const std::vector<UnitState>& state) {
  JsonFields out;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const UnitState& st = state[i];
    std::vector<JsonValue> scenarios(units[i].scenarios.begin(),
                                     units[i].scenarios.end());
    out.emplace_back(
        units[i].name,
        JsonValue::Object(
            {{"scenarios", JsonValue::Array(scenarios)},
             {"rounds", st.rounds},
             {"stop", st.stop},
             {"seconds", st.seconds},
             {"half_width",
              st.half_width ? JsonValue(*st.half_width) : JsonValue()}}));
    std::printf("rounds: %s/%s ran %d round(s) in %.0f s, ended by %s\n",
                family.c_str(), units[i].name.c_str(), st.rounds, st.seconds,
                st.stop == "target"
                    ? "its target (leading pairs within the target)"
                : st.stop == "budget" ? "the time budget"
                                      : "the round limit");
  }
  return out;
}

// Runs the units' rounds until NextUnit says every unit is done.
void RunSchedule(const SweepSpec& spec, const RoundsConfig& rounds,
                 std::vector<ScheduleUnit>& units,
                 std::vector<UnitState>& state, const std::string* floor_name,
                 RankingReporter& reporter, RoundsReporter& both,
                 RoundsOutcome* out) {
  std::mt19937_64 rng(std::random_device{}());
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  std::printf(
      "paired rounds: %zu unit(s) sharing one budget of %.0f s; at least "
      "%d round(s) each, then more, where a round narrows an interval "
      "most per second, until each unit's leading pairs are within "
      "±%.1f%% or the budget is spent (at most %d rounds a unit)\n",
      units.size(), rounds.budget_s, rounds.min_rounds, 100 * rounds.target,
      rounds.max_rounds);
  std::fflush(stdout);
  for (int u; (u = NextUnit(state, rounds, seconds_since(start))) >= 0;) {
    ScheduleUnit& unit = units[static_cast<std::size_t>(u)];
    UnitState& st = state[static_cast<std::size_t>(u)];
    const int round = st.rounds + 1;
    const auto unit_start = Clock::now();
    out->ran += RunUnitRound(unit, round, floor_name, both, rng);
    st.rounds = round;
    st.seconds += seconds_since(unit_start);
    st.half_width = UnitHalfWidth(unit, reporter);
    char width[48] = "no interval yet";
    if (st.half_width) {
      std::snprintf(width, sizeof(width), "leading pairs within ±%.1f%%",
                    100 * *st.half_width);
    }
    std::printf("[round %d of %s/%s: %.1f s; %s; %.0f s of %.0f s]\n", round,
                spec.family.c_str(), unit.name.c_str(),
                seconds_since(unit_start), width, seconds_since(start),
                rounds.budget_s);
    std::fflush(stdout);
  }
  out->elapsed_s = seconds_since(start);
}

}  // namespace

RoundsConfig RoundsFor(const SweepSpec& spec, const SweepFlags& f) {
  const SweepPart& part = f.part;
  RoundsConfig rounds;
  rounds.min_rounds =
      ByProfile(f.profile, 1, kDefaultMinRounds, kFullMinRounds);
  rounds.max_rounds = ByProfile(f.profile, 1, 60, 200);
  rounds.budget_s = ByProfile(f.profile, 0.0, spec.round_budget_s,
                              spec.round_budget_s * kFullBudgetFactor);
  rounds.target = kRoundTarget;
  if (part.of > 1) {
    // Each process runs its share; the merged file pairs rounds by process,
    // and an interval over N times the rounds is about sqrt(N) narrower.
    rounds.budget_s /= part.of;
    rounds.min_rounds =
        std::max(1, (rounds.min_rounds + part.of - 1) / part.of);
    rounds.target *= std::sqrt(static_cast<double>(part.of));
  }
  if (f.budget) rounds.budget_s = *f.budget;
  if (f.target) rounds.target = *f.target;
  if (f.min_rounds) rounds.min_rounds = *f.min_rounds;
  if (f.max_rounds) rounds.max_rounds = *f.max_rounds;
  rounds.max_rounds = std::max(rounds.max_rounds, rounds.min_rounds);
  return rounds;
}

std::vector<ScheduleUnit> BuildSchedule(const std::vector<RankBy>& rankings,
                                        const std::string& filter) {
  std::vector<ScheduleUnit> units;
  for (const std::string& name : SweepNames()) {
    if (!PassesFilter(name, filter)) continue;
    const ParsedName p = ParseRunName(name);
    std::string unit_name = p.scenario;
    for (const RankBy& r : rankings) {
      if (r.scenario == p.scenario && !r.round_unit.empty())
        unit_name = r.round_unit;
    }
    auto u = std::find_if(
        units.begin(), units.end(),
        [&](const ScheduleUnit& x) { return x.name == unit_name; });
    if (u == units.end()) {
      units.push_back({unit_name, {}, {}, {}});
      u = units.end() - 1;
    }
    if (std::find(u->scenarios.begin(), u->scenarios.end(), p.scenario) ==
        u->scenarios.end()) {
      u->scenarios.push_back(p.scenario);
    }
    const std::pair<std::string, std::string> key{p.scenario, p.params};
    auto g = std::find(u->group_keys.begin(), u->group_keys.end(), key);
    if (g == u->group_keys.end()) {
      u->group_keys.push_back(key);
      u->group_names.push_back({name});
    } else {
      u->group_names[static_cast<std::size_t>(g - u->group_keys.begin())]
          .push_back(name);
    }
  }
  return units;
}

int RunPairedRounds(const SweepSpec& spec, const RoundsConfig& rounds,
                    const BenchArgs& b, const std::vector<RankBy>& rankings,
                    const std::string* floor_name, const char* argv0,
                    RankingReporter& reporter, RoundsOutcome* out) {
  std::ofstream file;
  std::unique_ptr<benchmark::BenchmarkReporter> file_reporter;
  if (!b.write_path.empty()) {
    file.open(b.write_path, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::fprintf(stderr, "%s: cannot write %s: %s\n", argv0,
                   b.write_path.c_str(), std::strerror(errno));
      return 1;
    }
    file_reporter = FileReporter(b.out_format);
    file_reporter->SetOutputStream(&file);
    file_reporter->SetErrorStream(&file);
  }
  RoundsReporter both(reporter, file_reporter.get());
  std::vector<ScheduleUnit> units = BuildSchedule(rankings, b.filter);
  std::vector<UnitState> state(units.size());
  RunSchedule(spec, rounds, units, state, floor_name, reporter, both, out);
  both.FinishAll();
  file.close();
  out->units = UnitsSummary(spec.family, units, state);
  return 0;
}

}  // namespace serverkit::bench::internal
