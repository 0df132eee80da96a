// -----------------------------------------------------------------------------
// bench/harness/internal/schedule.h
// -----------------------------------------------------------------------------
//
// The paired rounds' driver (docs/methods.md, "Paired rounds"): this
// process's rounds settings from the profile, its part and the user's
// flags; the round units built from the registered names; and the run of
// rounds, unit after unit as rounds.h's NextUnit picks them, each group
// after a short floor measurement, its implementations in a fresh random
// order. rounds.h holds the statistics this driver decides from.
//
// Thread-safety: none; the main thread runs the schedule.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_SCHEDULE_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/harness/harness.h"
#include "bench/harness/internal/benchmark_args.h"
#include "bench/harness/internal/console_reporter.h"
#include "bench/harness/internal/flags.h"
#include "bench/harness/json.h"
#include "bench/harness/rounds.h"

namespace serverkit::bench::internal {

// Round trips of the floor measured before each group's round: a few ms.
inline constexpr std::uint64_t kRoundFloorTrips = 20'000;

// The rounds' schedule for this process: the profile's, this process's
// share of it, then the user's flags.
RoundsConfig RoundsFor(const SweepSpec& spec, const SweepFlags& f);

// One round unit of the schedule: its scenarios and groups (each group's
// names, one per implementation).
struct ScheduleUnit {
  std::string name;
  std::vector<std::string> scenarios;
  std::vector<std::pair<std::string, std::string>>
      group_keys;  // scenario, params
  std::vector<std::vector<std::string>> group_names;
};

// The units of the registered sweep benchmarks that pass `filter`, in
// registration order; a scenario's RankBy::round_unit joins it to a unit.
std::vector<ScheduleUnit> BuildSchedule(const std::vector<RankBy>& rankings,
                                        const std::string& filter);

// What the paired rounds did.
struct RoundsOutcome {
  std::size_t ran = 0;  // benchmark runs
  JsonFields units;     // each unit's rounds, for the JSON
  double elapsed_s = 0;
};

// The sweep in paired rounds, written to `b.write_path` as well as the
// console; the floor's row (`floor_name`, when not null) starts every
// round. Returns 0, or the exit code after saying why the file cannot be
// written.
int RunPairedRounds(const SweepSpec& spec, const RoundsConfig& rounds,
                    const BenchArgs& b, const std::vector<RankBy>& rankings,
                    const std::string* floor_name, const char* argv0,
                    RankingReporter& reporter, RoundsOutcome* out);

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_SCHEDULE_H_
