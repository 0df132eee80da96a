// -----------------------------------------------------------------------------
// bench/harness/registry.cc
// -----------------------------------------------------------------------------
//
// Benchmark names in the contract, and what a family registers: its sweep
// benchmarks' names and its vocabulary (harness.h, internal/registry.h).

#include "bench/harness/internal/registry.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/harness/harness.h"

namespace serverkit::bench {
namespace internal {

std::map<std::string, JsonFields>& ImplTraits() {
  static std::map<std::string, JsonFields> m;
  return m;
}
std::map<std::string, JsonFields>& ScenarioSizes() {
  static std::map<std::string, JsonFields> m;
  return m;
}

std::vector<std::string>& SweepNames() {
  static std::vector<std::string> names;
  return names;
}

std::set<std::string> ReferenceImpls() {
  std::set<std::string> out;
  for (const auto& [impl, traits] : ImplTraits()) {
    for (const auto& [key, value] : traits) {
      if (key == "reference" && value.text() == "true") out.insert(impl);
    }
  }
  return out;
}

void NoteSweepBenchmark(const std::string& name) {
  auto& names = SweepNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    names.push_back(name);
  }
}

}  // namespace internal

std::string BenchName(
    std::string_view family, std::string_view scenario, std::string_view impl,
    std::initializer_list<std::pair<std::string_view, long>> params) {
  std::string name;
  name.append(family).append("/").append(scenario).append("/").append(impl);
  for (const auto& [key, value] : params) {
    name.append("/").append(key).append(":").append(std::to_string(value));
  }
  return name;
}

void DescribeImpl(std::string_view impl, JsonFields traits) {
  internal::ImplTraits()[std::string(impl)] = std::move(traits);
}

void DescribeScenario(std::string_view scenario, JsonFields sizes) {
  JsonFields& fields = internal::ScenarioSizes()[std::string(scenario)];
  for (auto& [key, value] : sizes) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const auto& f) { return f.first == key; });
    if (it != fields.end()) {
      it->second = std::move(value);
    } else {
      fields.emplace_back(std::move(key), std::move(value));
    }
  }
}

}  // namespace serverkit::bench
