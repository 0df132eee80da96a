// -----------------------------------------------------------------------------
// bench/harness/json_context.cc
// -----------------------------------------------------------------------------
//
// What the sweep writes into its JSON file's context, and the edit of the
// file (internal/json_context.h).

#include "bench/harness/internal/json_context.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/harness/internal/registry.h"
#include "bench/harness/internal/run_names.h"
#include "bench/harness/internal/sysinfo.h"

namespace serverkit::bench::internal {

JsonValue RulesJson(const std::vector<RankBy>& rankings) {
  std::vector<JsonValue> rules;
  for (const RankBy& r : rankings) {
    const bool reference = r.scenario == kFloorScenario;
    rules.push_back(JsonValue::Object({
        {"scenario", r.scenario},
        {"metric", r.counter.empty() ? "real_time" : r.counter},
        {"direction", r.higher_is_better ? "higher" : "lower"},
        {"unit", r.unit},
        {"baseline",
         reference || r.baseline.empty() ? JsonValue() : JsonValue(r.baseline)},
        {"show", JsonValue::Array({r.also_show.begin(), r.also_show.end()})},
        {"vs_floor", r.vs_floor},
        {"reference", reference},
    }));
  }
  return JsonValue::Array(rules);
}

std::string AddToContext(const std::string& path, std::string_view key,
                         const JsonValue& value) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::strerror(errno);
  std::stringstream text;
  text << in.rdbuf();
  const auto patched = InsertIntoContext(text.str(), key, value);
  if (!patched) return "no \"context\" object";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << *patched;
    if (!out.flush()) return std::strerror(errno);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return std::strerror(errno);
  return "";
}

JsonValue SweepContextJson(const SweepSpec& spec, const SweepFlags& f,
                           const BenchArgs& b, const RoundsConfig& rounds,
                           const std::vector<RankBy>& rankings,
                           const FloorEnds& floor,
                           const std::vector<std::string>& drift,
                           const RoundsOutcome& outcome) {
  JsonFields impls, scenarios;
  for (const auto& [name, traits] : ImplTraits()) {
    impls.emplace_back(name, JsonValue::Object(traits));
  }
  for (const auto& [name, sizes] : ScenarioSizes()) {
    scenarios.emplace_back(name, JsonValue::Object(sizes));
  }
  JsonFields doc_fields = {
      {"schema", 1},
      {"family", spec.family},
      {"profile", ProfileName(f.profile)},
      {"repetitions", b.repetitions},
      {"interleaved", b.interleaved},
      {"part", JsonValue::Object({{"index", f.part.index}, {"of", f.part.of}})},
      {"machine",
       JsonValue::Object({{"cpu_model", CpuModel()}, {"cores", Cores()}})},
      {"floor", FloorContextJson(floor, drift)},
      {"rankings", RulesJson(rankings)},
      {"impls", JsonValue::Object(impls)},
      {"scenarios", JsonValue::Object(scenarios)},
  };
  if (f.rounds_mode) {
    doc_fields.emplace_back(
        "rounds",
        JsonValue::Object({{"target", rounds.target},
                           {"budget_s", rounds.budget_s},
                           {"min_rounds", rounds.min_rounds},
                           {"max_rounds", rounds.max_rounds},
                           {"elapsed_s", outcome.elapsed_s},
                           {"floor_round_trips", kRoundFloorTrips},
                           {"units", JsonValue::Object(outcome.units)}}));
  }
  return JsonValue::Object(doc_fields);
}

}  // namespace serverkit::bench::internal
