#include "bench/harness/rounds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace serverkit::bench {
namespace {

TEST(MedianTest, SkipsNanAndAveragesTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(Median({3, NAN, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(Median({NAN})));
  EXPECT_TRUE(std::isnan(Median({})));
}

TEST(MedianIntervalTest, NoIntervalUnderSixValues) {
  EXPECT_FALSE(MedianInterval({1.0, 1.1, 1.2, 1.3, 1.4}).has_value());
}

TEST(MedianIntervalTest, SixValuesSpanMinToMax) {
  // 2 * P(Bin(6, 1/2) <= 0) = 1/32 <= 0.05; k = 2 gives 14/64 > 0.05.
  const auto r = MedianInterval({1.3, 1.0, 1.2, 1.1, 1.5, 1.4});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->n, 6);
  EXPECT_DOUBLE_EQ(r->median, 1.25);
  EXPECT_DOUBLE_EQ(r->lo, 1.0);
  EXPECT_DOUBLE_EQ(r->hi, 1.5);
}

TEST(MedianIntervalTest, NineValuesDropTheExtremes) {
  // 2 * P(Bin(9, 1/2) <= 1) = 20/512 <= 0.05; k = 3 gives 92/512 > 0.05.
  std::vector<double> xs;
  for (int i = 1; i <= 9; ++i) xs.push_back(i);
  const auto r = MedianInterval(xs);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->median, 5);
  EXPECT_DOUBLE_EQ(r->lo, 2);
  EXPECT_DOUBLE_EQ(r->hi, 8);
}

TEST(MedianIntervalTest, TwentyValues) {
  // 2 * P(Bin(20, 1/2) <= 5) = 0.0414; <= 6 gives 0.115: [x_6, x_15].
  std::vector<double> xs;
  for (int i = 1; i <= 20; ++i) xs.push_back(i);
  const auto r = MedianInterval(xs);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->lo, 6);
  EXPECT_DOUBLE_EQ(r->hi, 15);
}

TEST(MedianIntervalTest, RefusesNonPositive) {
  EXPECT_FALSE(MedianInterval({1, 1, 1, 0, 1, 1, 1}).has_value());
  EXPECT_FALSE(MedianInterval({1, 1, 1, NAN, 1, 1, 1}).has_value());
}

TEST(HalfWidthTest, HalfTheLogWidth) {
  EXPECT_NEAR(HalfWidth({6, 1.0, 0.9, 1.05}), std::sqrt(1.05 / 0.9) - 1, 1e-12);
  // The equivalence band at ±5% is exactly 5% wide by this measure.
  EXPECT_NEAR(HalfWidth({6, 1.0, 1 / 1.05, 1.05}), 0.05, 1e-12);
}

TEST(LeadingTest, PairsByRoundAndSkipsReferences) {
  std::map<std::string, RoundValues> by_impl;
  // A host state that doubles every value in rounds 4-6 cancels out of the
  // per-round ratio: a is 1.5x b in every round.
  for (int r = 1; r <= 6; ++r) {
    const double state = r > 3 ? 2.0 : 1.0;
    by_impl["a"][r] = 150 * state;
    by_impl["b"][r] = 100 * state;
    by_impl["c"][r] = 50 * state;
    by_impl["ref"][r] = 1000;
  }
  const auto pair = Leading(by_impl, /*higher_is_better=*/true, {"ref"});
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->first, "a");
  EXPECT_EQ(pair->second, "b");
  ASSERT_TRUE(pair->ratio.has_value());
  EXPECT_DOUBLE_EQ(pair->ratio->median, 1.5);
  EXPECT_DOUBLE_EQ(pair->ratio->lo, 1.5);
  EXPECT_DOUBLE_EQ(pair->ratio->hi, 1.5);
}

TEST(LeadingTest, LowerIsBetterOrientsTheRatio) {
  std::map<std::string, RoundValues> by_impl;
  for (int r = 1; r <= 6; ++r) {
    by_impl["fast"][r] = 100;
    by_impl["slow"][r] = 200;
  }
  const auto pair = Leading(by_impl, /*higher_is_better=*/false, {});
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->first, "fast");
  EXPECT_DOUBLE_EQ(pair->ratio->median, 2.0);
}

TEST(LeadingTest, OnlyRoundsBothRan) {
  std::map<std::string, RoundValues> by_impl;
  for (int r = 1; r <= 6; ++r) by_impl["a"][r] = 2;
  for (int r = 1; r <= 5; ++r) by_impl["b"][r] = 1;
  const auto pair = Leading(by_impl, true, {});
  ASSERT_TRUE(pair.has_value());
  EXPECT_FALSE(pair->ratio.has_value());  // 5 paired rounds: no interval
  by_impl.erase("b");
  EXPECT_FALSE(Leading(by_impl, true, {}).has_value());
}

TEST(NextUnitTest, MinimumRoundsFirstThenWidestThatFits) {
  RoundsConfig cfg{
      .budget_s = 100, .min_rounds = 2, .max_rounds = 10, .target = 0.05};
  std::vector<UnitState> units(3);
  units[0].rounds = 2;
  units[1].rounds = 1;
  units[2].rounds = 2;
  EXPECT_EQ(NextUnit(units, cfg, 500), 1);  // the minimum ignores the budget
  units[1].rounds = 2;
  for (auto& u : units) u.seconds = 20;  // 10 s a round
  units[0].half_width = 0.04;            // done
  units[1].half_width = 0.10;
  units[2].half_width = 0.30;
  EXPECT_EQ(NextUnit(units, cfg, 50), 2);
  EXPECT_EQ(units[0].stop, "target");
  units[2].rounds = 10;  // at its limit
  EXPECT_EQ(NextUnit(units, cfg, 50), 1);
  EXPECT_EQ(units[2].stop, "max_rounds");
  EXPECT_EQ(NextUnit(units, cfg, 95), -1);  // 10 s more would pass 100 s
  EXPECT_EQ(units[1].stop, "budget");
}

TEST(NextUnitTest, ACheapRoundCanBeatAWiderDearOne) {
  RoundsConfig cfg{
      .budget_s = 1000, .min_rounds = 6, .max_rounds = 100, .target = 0.05};
  std::vector<UnitState> units(2);
  units[0].rounds = 6;  // 10 s a round
  units[0].seconds = 60;
  units[0].half_width = 0.40;
  units[1].rounds = 6;  // 1 s a round
  units[1].seconds = 6;
  units[1].half_width = 0.20;
  EXPECT_EQ(NextUnit(units, cfg, 100), 1);
  units[1].rounds = 60;  // more rounds narrow it less
  units[1].seconds = 60;
  EXPECT_EQ(NextUnit(units, cfg, 100), 0);
}

TEST(NextUnitTest, UnknownWidthRunsBeforeAKnownOne) {
  RoundsConfig cfg{
      .budget_s = 100, .min_rounds = 1, .max_rounds = 10, .target = 0.05};
  std::vector<UnitState> units(2);
  for (auto& u : units) {
    u.rounds = 1;
    u.seconds = 1;
  }
  units[0].half_width = 0.5;
  EXPECT_EQ(NextUnit(units, cfg, 0), 1);
}

}  // namespace
}  // namespace serverkit::bench
