// -----------------------------------------------------------------------------
// bench/harness/json_context_test.cc
// -----------------------------------------------------------------------------
//
// What the sweep writes into its JSON file's context (internal/
// json_context.h): the ranking rules as pick reads them, and the edit of a
// file on disk, which leaves a file it cannot edit as it was.

#include "bench/harness/internal/json_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace serverkit::bench::internal {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(RulesJsonTest, AFamilysRuleAndTheFloorsReference) {
  RankBy rule{"latency", "p50_ns", false, "ns", {"p99_ns"}, "mutex", true};
  RankBy floor{"floor", "p50_ns", false, "ns", {}, "ignored"};
  RankBy by_time{"throughput", "", true, "items/s"};
  EXPECT_EQ(RulesJson({rule, floor, by_time}).text(),
            "[{\"scenario\": \"latency\", \"metric\": \"p50_ns\", "
            "\"direction\": \"lower\", \"unit\": \"ns\", \"baseline\": "
            "\"mutex\", \"show\": [\"p99_ns\"], \"vs_floor\": true, "
            "\"reference\": false}, "
            "{\"scenario\": \"floor\", \"metric\": \"p50_ns\", "
            "\"direction\": \"lower\", \"unit\": \"ns\", \"baseline\": null, "
            "\"show\": [], \"vs_floor\": false, \"reference\": true}, "
            "{\"scenario\": \"throughput\", \"metric\": \"real_time\", "
            "\"direction\": \"higher\", \"unit\": \"items/s\", \"baseline\": "
            "null, \"show\": [], \"vs_floor\": false, \"reference\": false}]");
}

TEST(AddToContextTest, EditsTheFileInPlace) {
  const std::string path = TempPath("context.json");
  Write(path, "{\"context\": {\"date\": \"today\"}, \"benchmarks\": []}");
  EXPECT_EQ(AddToContext(path, "serverkit", JsonValue::Object({{"a", 1}})), "");
  EXPECT_EQ(Read(path),
            "{\"context\": {\n    \"serverkit\": {\"a\": 1},\"date\": "
            "\"today\"}, \"benchmarks\": []}");
  EXPECT_EQ(Read(path + ".tmp"), "");  // renamed over the file
}

TEST(AddToContextTest, SaysWhyAndLeavesTheFileAsItWas) {
  const std::string path = TempPath("no_context.json");
  Write(path, "{\"benchmarks\": []}");
  EXPECT_EQ(AddToContext(path, "k", JsonValue(1)), "no \"context\" object");
  EXPECT_EQ(Read(path), "{\"benchmarks\": []}");
  EXPECT_NE(AddToContext(TempPath("missing/none.json"), "k", JsonValue(1)), "");
}

}  // namespace
}  // namespace serverkit::bench::internal
