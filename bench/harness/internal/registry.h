// -----------------------------------------------------------------------------
// bench/harness/internal/registry.h
// -----------------------------------------------------------------------------
//
// What a family registered with the harness (harness.h): its sweep
// benchmarks' names, in registration order, for the rounds' schedule, and
// the vocabulary (`DescribeImpl`, `DescribeScenario`) that goes into the
// JSON context.
//
// Thread-safety: none; the main thread registers and reads.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_REGISTRY_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_REGISTRY_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/harness/json.h"

namespace serverkit::bench::internal {

// What DescribeImpl and DescribeScenario recorded, by name.
std::map<std::string, JsonFields>& ImplTraits();
std::map<std::string, JsonFields>& ScenarioSizes();

// RegisterSweepBenchmark's names, in registration order, once each.
std::vector<std::string>& SweepNames();

// The implementations whose traits say "reference": never a leader.
std::set<std::string> ReferenceImpls();

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_REGISTRY_H_
