// The harness's pure parts: JSON values and their insertion into Google
// Benchmark's context, the drift rule, and the floor measurement's contract
// (not its speed: timings belong to the sweeps, not to tests).

#include "bench/harness/harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/percentile.h"
#include "bench/harness/floor.h"
#include "bench/harness/json.h"

namespace serverkit::bench {
namespace {

TEST(JsonValueTest, ScalarsAndEscapes) {
  EXPECT_EQ(JsonValue().text(), "null");
  EXPECT_EQ(JsonValue(true).text(), "true");
  EXPECT_EQ(JsonValue(false).text(), "false");
  EXPECT_EQ(JsonValue(42).text(), "42");
  EXPECT_EQ(JsonValue(std::uint64_t{4000000}).text(), "4000000");
  EXPECT_EQ(JsonValue(0.25).text(), "0.25");
  EXPECT_EQ(JsonValue(NAN).text(), "null");
  EXPECT_EQ(JsonValue(INFINITY).text(), "null");
  EXPECT_EQ(JsonValue("a\"b\\c\nd\x01").text(), "\"a\\\"b\\\\c\\nd\\u0001\"");
  EXPECT_EQ(JsonValue(std::string("mpmc")).text(), "\"mpmc\"");
}

TEST(JsonValueTest, ObjectsAndArraysKeepOrder) {
  const JsonValue v =
      JsonValue::Object({{"z", 1},
                         {"a", JsonValue::Array({JsonValue("x"), JsonValue()})},
                         {"o", JsonValue::Object({})}});
  EXPECT_EQ(v.text(), "{\"z\": 1, \"a\": [\"x\", null], \"o\": {}}");
}

TEST(InsertIntoContextTest, AddsTheFirstMember) {
  const std::string gb =
      "{\n  \"context\": {\n    \"date\": \"today\"\n  },\n"
      "  \"benchmarks\": []\n}\n";
  const auto out =
      InsertIntoContext(gb, "serverkit", JsonValue::Object({{"schema", 1}}));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out,
            "{\n  \"context\": {\n    \"serverkit\": {\"schema\": 1},\n"
            "    \"date\": \"today\"\n  },\n  \"benchmarks\": []\n}\n");
}

TEST(InsertIntoContextTest, EmptyContextGetsNoComma) {
  const auto out = InsertIntoContext("{\"context\": {}}", "k", JsonValue(1));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out, "{\"context\": {\n    \"k\": 1}}");
}

TEST(InsertIntoContextTest, NoContextIsRefused) {
  EXPECT_FALSE(InsertIntoContext("{\"benchmarks\": []}", "k", JsonValue(1)));
  EXPECT_FALSE(InsertIntoContext("", "k", JsonValue(1)));
}

TEST(FloorDriftTest, StableFloorHasNoReason) {
  EXPECT_TRUE(FloorDrift(560.0, 575.0, 0.03).empty());
  // Exactly at the threshold is still steady.
  EXPECT_TRUE(FloorDrift(500.0, 600.0, 0.20).empty());
}

TEST(FloorDriftTest, BeforeAndAfterApart) {
  const auto reasons = FloorDrift(300.0, 560.0, 0.02);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("from 300 ns"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[0].find("to 560 ns"), std::string::npos) << reasons[0];
  // The direction does not matter.
  EXPECT_EQ(FloorDrift(560.0, 300.0, std::nullopt).size(), 1u);
}

TEST(FloorDriftTest, NoisyInterleavedRow) {
  const auto reasons = FloorDrift(560.0, 570.0, 0.35);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("CV 35%"), std::string::npos) << reasons[0];
  EXPECT_EQ(FloorDrift(300.0, 560.0, 0.35).size(), 2u);
}

TEST(FloorDriftTest, UnmeasuredValuesTakeNoPart) {
  EXPECT_TRUE(FloorDrift(std::nullopt, 560.0, std::nullopt).empty());
  EXPECT_TRUE(FloorDrift(300.0, std::nullopt, std::nullopt).empty());
  EXPECT_TRUE(FloorDrift(std::nullopt, std::nullopt, std::nullopt).empty());
}

TEST(MeasureFloorTest, TimesEveryRoundTripOnTwoCores) {
  std::vector<double> samples;
  const auto floor = MeasureFloor(500, &samples);
  if (AllowedCpus().size() < 2) {
    EXPECT_FALSE(floor.has_value()) << "one core cannot have a floor";
    EXPECT_FALSE(FloorCpus().has_value());
    return;
  }
  ASSERT_TRUE(floor.has_value());
  EXPECT_EQ(floor->round_trips, 500u);
  EXPECT_EQ(samples.size(), 500u);
  EXPECT_TRUE(std::is_sorted(samples.begin(), samples.end()));
  EXPECT_EQ(floor->cpu_a, AllowedCpus()[0]);
  EXPECT_EQ(floor->cpu_b, AllowedCpus()[1]);
  EXPECT_GT(floor->p50_ns, 0);
  EXPECT_LE(floor->p50_ns, floor->p99_ns);
  EXPECT_LE(floor->p99_ns, floor->p999_ns);
  EXPECT_EQ(floor->p50_ns, Percentile(samples, 0.5, true));
}

TEST(MeasureFloorTest, TwoLinesTimesEveryRoundTripToo) {
  std::vector<double> samples;
  const auto floor = MeasureFloor(500, &samples, FloorLines::kTwoLines);
  if (AllowedCpus().size() < 2) {
    EXPECT_FALSE(floor.has_value()) << "one core cannot have a floor";
    return;
  }
  ASSERT_TRUE(floor.has_value());
  EXPECT_EQ(floor->round_trips, 500u);
  EXPECT_EQ(samples.size(), 500u);
  EXPECT_TRUE(std::is_sorted(samples.begin(), samples.end()));
  EXPECT_GT(floor->p50_ns, 0);
  EXPECT_EQ(floor->p50_ns, Percentile(samples, 0.5, true));
}

TEST(MeasureFloorTest, ZeroRoundTripsIsNoMeasurement) {
  EXPECT_FALSE(MeasureFloor(0).has_value());
  EXPECT_FALSE(MeasureFloor(0, nullptr, FloorLines::kTwoLines).has_value());
}

TEST(SweepPartTest, ParsesKOfN) {
  const auto p = ParsePart("2/3");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->index, 2);
  EXPECT_EQ(p->of, 3);
  EXPECT_TRUE(ParsePart("1/1").has_value());
  EXPECT_TRUE(ParsePart("64/64").has_value());
  for (const char* bad : {"", "3", "0/3", "4/3", "1/0", "1/65", "a/3", "1/3x",
                          "-1/3", "1//3", "/3", "1/", "100/100"}) {
    EXPECT_FALSE(ParsePart(bad).has_value()) << bad;
  }
}

TEST(SweepPartTest, RepetitionsCoverTheTotal) {
  EXPECT_EQ(PartRepetitions(9, 1), 9);
  EXPECT_EQ(PartRepetitions(9, 3), 3);
  EXPECT_EQ(PartRepetitions(9, 2), 5);
  EXPECT_EQ(PartRepetitions(9, 4), 3);
  EXPECT_EQ(PartRepetitions(1, 3), 1);
  EXPECT_EQ(PartRepetitions(9, 0), 9);
}

}  // namespace
}  // namespace serverkit::bench
