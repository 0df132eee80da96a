// -----------------------------------------------------------------------------
// bench/harness/internal/json_context.h
// -----------------------------------------------------------------------------
//
// The "serverkit" object a sweep adds to the context of Google Benchmark's
// JSON file, where pick reads it: the family, profile and part, the
// machine, the floor, the ranking rules, the implementations' traits, the
// scenarios' sizes and, in paired rounds, how the rounds ran. json.h
// builds the values; this file decides what goes in and edits the file.
//
// Thread-safety: none; the main thread writes the file once.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_JSON_CONTEXT_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_JSON_CONTEXT_H_

#include <string>
#include <string_view>
#include <vector>

#include "bench/harness/harness.h"
#include "bench/harness/internal/benchmark_args.h"
#include "bench/harness/internal/flags.h"
#include "bench/harness/internal/floor_report.h"
#include "bench/harness/internal/schedule.h"
#include "bench/harness/json.h"
#include "bench/harness/rounds.h"

namespace serverkit::bench::internal {

// The ranking rules as pick reads them (the floor's is the reference).
JsonValue RulesJson(const std::vector<RankBy>& rankings);

// Adds `"key": value` to the context of the Google Benchmark JSON file at
// `path` (rewritten through a temporary file and a rename). Returns what went
// wrong, or an empty string.
std::string AddToContext(const std::string& path, std::string_view key,
                         const JsonValue& value);

// The "serverkit" object of the JSON file's context: the vocabulary, the
// floor and, in paired rounds, the schedule pick reads.
JsonValue SweepContextJson(const SweepSpec& spec, const SweepFlags& f,
                           const BenchArgs& b, const RoundsConfig& rounds,
                           const std::vector<RankBy>& rankings,
                           const FloorEnds& floor,
                           const std::vector<std::string>& drift,
                           const RoundsOutcome& outcome);

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_JSON_CONTEXT_H_
