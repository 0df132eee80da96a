// -----------------------------------------------------------------------------
// bench/harness/floor_report.cc
// -----------------------------------------------------------------------------
//
// The floor at the sweep's ends, its reference row, its drift report and
// its JSON (internal/floor_report.h).

#include "bench/harness/internal/floor_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness/internal/run_names.h"

namespace serverkit::bench::internal {
namespace {

void BM_Floor(benchmark::State& state, std::uint64_t round_trips) {
  std::vector<double> samples;
  std::optional<FloorSample> last;
  for (auto _ : state) {
    last = MeasureFloor(round_trips, &samples);
    if (!last) {
      state.SkipWithError("the floor needs two cores it may pin to");
      return;
    }
    double total_ns = 0;
    for (double s : samples) total_ns += s;
    state.SetIterationTime(total_ns * 1e-9);
  }
  state.counters["p50_ns"] = last->p50_ns;
  state.counters["p99_ns"] = last->p99_ns;
  state.counters["p999_ns"] = last->p999_ns;
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * round_trips));
  ThreadCounters(state, 2);
}

JsonValue FloorJson(const std::optional<FloorSample>& f) {
  if (!f) return JsonValue();
  return JsonValue::Object({{"p50_ns", f->p50_ns}, {"p99_ns", f->p99_ns}});
}

void PrintFloorSample(const char* when, const std::optional<FloorSample>& f) {
  if (!f) {
    std::printf("floor %s: not measured (it needs two cores it may pin to)\n",
                when);
    return;
  }
  std::printf(
      "floor %s: round trip p50 %.0f ns, p99 %.0f ns (CPUs %d and %d, "
      "middle of %d runs of %llu round trips)\n",
      when, f->p50_ns, f->p99_ns, f->cpu_a, f->cpu_b, kEdgeParts,
      static_cast<unsigned long long>(f->round_trips / kEdgeParts));
}

// Registers the floor's reference row, interleaved with the family's.
void RegisterFloorRow(const std::string& floor_name, std::uint64_t row_trips) {
  benchmark::RegisterBenchmark(
      floor_name.c_str(), [=](benchmark::State& s) { BM_Floor(s, row_trips); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  DescribeScenario(kFloorScenario, {{"round_trips", row_trips}});
}

}  // namespace

// The parts are 20 ms apart, so one preempted moment does not pass for a
// host that moved.
std::optional<FloorSample> MeasureFloorEdge(std::uint64_t round_trips) {
  std::vector<FloorSample> parts;
  for (int i = 0; i < kEdgeParts; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (auto f = MeasureFloor(round_trips / kEdgeParts)) parts.push_back(*f);
  }
  if (parts.empty()) return std::nullopt;
  std::sort(parts.begin(), parts.end(),
            [](const auto& a, const auto& b) { return a.p50_ns < b.p50_ns; });
  FloorSample mid = parts[parts.size() / 2];
  mid.round_trips = round_trips;
  return mid;
}

FloorEnds StartFloor(Profile profile, const std::string& floor_name) {
  FloorEnds floor;
  floor.edge_trips = ByProfile<std::uint64_t>(profile, 2'000, 50'000, 100'000);
  const std::uint64_t row_trips =
      ByProfile<std::uint64_t>(profile, 2'000, 100'000, 1'000'000);
  floor.cpus = FloorCpus();
  floor.before = MeasureFloorEdge(floor.edge_trips);
  PrintFloorSample("before", floor.before);
  if (floor.cpus) RegisterFloorRow(floor_name, row_trips);
  return floor;
}

std::vector<std::string> ReportFloor(const FloorEnds& floor,
                                     const Cell* floor_row, bool rounds_mode,
                                     const char* argv0) {
  PrintFloorSample("before", floor.before);
  PrintFloorSample("after", floor.after);
  std::optional<double> row_cv;
  if (floor_row != nullptr) {
    char cv[16] = "n/a";
    if (!std::isnan(floor_row->cv)) {
      std::snprintf(cv, sizeof(cv), "%.1f%%", floor_row->cv * 100);
      row_cv = floor_row->cv;
    }
    std::printf(
        "floor interleaved: median p50 %.0f ns, CV %s over %zu "
        "run(s)\n",
        floor_row->median, cv, floor_row->values.size());
  }
  const std::vector<std::string> drift = FloorDrift(
      floor.before ? std::optional<double>(floor.before->p50_ns) : std::nullopt,
      floor.after ? std::optional<double>(floor.after->p50_ns) : std::nullopt,
      row_cv);
  std::fflush(stdout);  // the warnings on stderr come after the tables
  for (const std::string& reason : drift) {
    if (rounds_mode) {
      std::printf("note: host drifted: %s\n", reason.c_str());
    } else {
      std::printf("WARNING: host drifted: %s\n", reason.c_str());
      std::fprintf(stderr, "%s: WARNING: host drifted: %s\n", argv0,
                   reason.c_str());
    }
  }
  if (!drift.empty()) {
    if (rounds_mode) {
      std::printf(
          "note: paired rounds cancel a host state that lasts longer "
          "than a round; bench:pick checks whether the ratios differ "
          "between the host's states\n");
    } else {
      std::printf(
          "WARNING: bench:pick will name no winner from this file "
          "(\"host drifted: rerun\"); run the sweep again\n");
    }
  }
  return drift;
}

JsonValue FloorContextJson(const FloorEnds& floor,
                           const std::vector<std::string>& drift) {
  std::vector<JsonValue> reasons(drift.begin(), drift.end());
  return JsonValue::Object({
      {"core_pair",
       floor.cpus ? JsonValue::Array({floor.cpus->first, floor.cpus->second})
                  : JsonValue()},
      {"round_trips", floor.edge_trips},
      {"edge_runs", kEdgeParts},
      {"threshold", kDriftThreshold},
      {"before", FloorJson(floor.before)},
      {"after", FloorJson(floor.after)},
      {"drifted", !drift.empty()},
      {"drift_reasons", JsonValue::Array(reasons)},
  });
}

}  // namespace serverkit::bench::internal
