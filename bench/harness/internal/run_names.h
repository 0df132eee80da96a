// -----------------------------------------------------------------------------
// bench/harness/internal/run_names.h
// -----------------------------------------------------------------------------
//
// Reading a run's name: the family/scenario/impl/params of the project's
// contract (`<family>/<scenario>/<impl>/<k>:<v>/...`) with Google
// Benchmark's own suffixes (/iterations:N, /manual_time, ...) set aside, and
// the filters the paired rounds apply by name. pick reads names the same
// way (pick/records.py).
//
// Thread-safety: pure functions.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_RUN_NAMES_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_RUN_NAMES_H_

#include <string>
#include <string_view>

namespace serverkit::bench::internal {

// The floor's reference row: `<family>/floor/cache-line`.
inline constexpr std::string_view kFloorScenario = "floor";
inline constexpr std::string_view kFloorImpl = "cache-line";

// Parts of a run name, without Google Benchmark's suffixes.
struct ParsedName {
  std::string scenario;
  std::string impl;
  std::string params;  // "producers:2/consumers:2"
};

ParsedName ParseRunName(const std::string& run_name);

// Google Benchmark's filter for exactly one of our names, with its own
// suffixes (/iterations:1, /manual_time, ...) allowed after it.
std::string ExactFilter(const std::string& name);

// Whether `name` passes a --benchmark_filter as Google Benchmark reads it
// (a regular expression searched for; a leading '-' negates it). Throws
// std::regex_error when the filter is not a regular expression.
bool PassesFilter(const std::string& name, const std::string& filter);

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_RUN_NAMES_H_
