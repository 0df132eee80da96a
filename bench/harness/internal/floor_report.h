// -----------------------------------------------------------------------------
// bench/harness/internal/floor_report.h
// -----------------------------------------------------------------------------
//
// The sweep's use of the core-to-core floor (floor.h): measured before and
// after the sweep (each the middle of a few short runs), registered as the
// reference row `<family>/floor/cache-line` among the family's benchmarks,
// printed, checked for drift, and written into the JSON context.
//
// Thread-safety: none; the main thread measures and reports.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_FLOOR_REPORT_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_FLOOR_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/harness/floor.h"
#include "bench/harness/harness.h"
#include "bench/harness/internal/console_reporter.h"
#include "bench/harness/json.h"

namespace serverkit::bench::internal {

// The floor at one end of the sweep is the middle (by p50) of this many
// short measurements.
inline constexpr int kEdgeParts = 5;

// The floor at both ends of the sweep, and the cores it runs on.
struct FloorEnds {
  std::uint64_t edge_trips = 0;
  std::optional<std::pair<int, int>> cpus;
  std::optional<FloorSample> before, after;
};

// The floor before the sweep, printed, and its row (`floor_name`)
// registered to run among the family's when there are two cores to pin it
// to.
FloorEnds StartFloor(Profile profile, const std::string& floor_name);

// The floor at one end of the sweep: the middle of kEdgeParts runs.
std::optional<FloorSample> MeasureFloorEdge(std::uint64_t round_trips);

// Prints the floor at both ends and the interleaved row's, and says when
// the host drifted (a warning, or in paired rounds a note). Returns why it
// drifted, if it did.
std::vector<std::string> ReportFloor(const FloorEnds& floor,
                                     const Cell* floor_row, bool rounds_mode,
                                     const char* argv0);

// The floor's part of the "serverkit" context object.
JsonValue FloorContextJson(const FloorEnds& floor,
                           const std::vector<std::string>& drift);

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_FLOOR_REPORT_H_
