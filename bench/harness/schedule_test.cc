// -----------------------------------------------------------------------------
// bench/harness/schedule_test.cc
// -----------------------------------------------------------------------------
//
// The paired rounds' settings and units (internal/schedule.h): the
// profile's rounds, a part's share of them and the user's flags; the units
// and groups built from the registered names.

#include "bench/harness/internal/schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace serverkit::bench::internal {
namespace {

SweepSpec Spec(double budget_s) {
  SweepSpec spec;
  spec.family = "f";
  spec.round_budget_s = budget_s;
  return spec;
}

TEST(RoundsForTest, EachProfilesRounds) {
  SweepFlags f;
  f.profile = Profile::kSmoke;
  RoundsConfig r = RoundsFor(Spec(100), f);
  EXPECT_EQ(r.min_rounds, 1);
  EXPECT_EQ(r.max_rounds, 1);
  EXPECT_EQ(r.budget_s, 0.0);
  f.profile = Profile::kDefault;
  r = RoundsFor(Spec(100), f);
  EXPECT_EQ(r.min_rounds, kDefaultMinRounds);
  EXPECT_EQ(r.max_rounds, 60);
  EXPECT_EQ(r.budget_s, 100.0);
  EXPECT_EQ(r.target, kRoundTarget);
  f.profile = Profile::kFull;
  r = RoundsFor(Spec(100), f);
  EXPECT_EQ(r.min_rounds, kFullMinRounds);
  EXPECT_EQ(r.max_rounds, 200);
  EXPECT_EQ(r.budget_s, 100 * kFullBudgetFactor);
}

TEST(RoundsForTest, APartRunsItsShare) {
  SweepFlags f;
  f.part = {2, 4};
  const RoundsConfig r = RoundsFor(Spec(100), f);
  EXPECT_EQ(r.budget_s, 25.0);
  EXPECT_EQ(r.min_rounds, 2);  // ceil(6 / 4)
  EXPECT_DOUBLE_EQ(r.target, kRoundTarget * 2);
}

TEST(RoundsForTest, TheUsersFlagsWin) {
  SweepFlags f;
  f.part = {1, 2};
  f.budget = 7;
  f.target = 0.2;
  f.min_rounds = 80;
  const RoundsConfig r = RoundsFor(Spec(100), f);
  EXPECT_EQ(r.budget_s, 7.0);
  EXPECT_EQ(r.target, 0.2);
  EXPECT_EQ(r.min_rounds, 80);
  EXPECT_EQ(r.max_rounds, 80);  // raised to the minimum
}

TEST(BuildScheduleTest, UnitsAndGroupsInRegistrationOrder) {
  for (const char* name : {"f/a/x/p:1", "f/a/y/p:1", "f/a/x/p:2", "f/b/x",
                           "f/c/x", "f/c/y", "f/a/x/p:1"}) {
    NoteSweepBenchmark(name);  // the repeated name is kept once
  }
  std::vector<RankBy> rankings = {
      {"a", "", true, "s"}, {"b", "", true, "s"}, {"c", "", true, "s"}};
  rankings[0].round_unit = "ac";
  rankings[2].round_unit = "ac";
  const std::vector<ScheduleUnit> units = BuildSchedule(rankings, "");
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0].name, "ac");
  EXPECT_EQ(units[0].scenarios, (std::vector<std::string>{"a", "c"}));
  using Key = std::pair<std::string, std::string>;
  EXPECT_EQ(units[0].group_keys,
            (std::vector<Key>{{"a", "p:1"}, {"a", "p:2"}, {"c", ""}}));
  EXPECT_EQ(units[0].group_names[0],
            (std::vector<std::string>{"f/a/x/p:1", "f/a/y/p:1"}));
  EXPECT_EQ(units[0].group_names[2],
            (std::vector<std::string>{"f/c/x", "f/c/y"}));
  EXPECT_EQ(units[1].name, "b");

  const std::vector<ScheduleUnit> only_b = BuildSchedule(rankings, "/b/");
  ASSERT_EQ(only_b.size(), 1u);
  EXPECT_EQ(only_b[0].group_names[0], (std::vector<std::string>{"f/b/x"}));
}

}  // namespace
}  // namespace serverkit::bench::internal
