// -----------------------------------------------------------------------------
// bench/harness/flags_test.cc
// -----------------------------------------------------------------------------
//
// The sweep's command line (internal/flags.h): which flags it takes for
// itself, which it passes on to Google Benchmark, and which it refuses.

#include "bench/harness/internal/flags.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace serverkit::bench::internal {
namespace {

// Runs ParseSweepFlags on `args` after a program name.
bool Parse(std::vector<std::string> args, SweepFlags* f) {
  args.insert(args.begin(), "sweep");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseSweepFlags(static_cast<int>(argv.size()), argv.data(), f);
}

TEST(FlagValueTest, TheLastOneWins) {
  const std::vector<std::string> args = {"--a=1", "--ab=3", "--a=2"};
  EXPECT_EQ(FlagValue(args, "--a"), "2");
  EXPECT_EQ(FlagValue(args, "--ab"), "3");
  EXPECT_EQ(FlagValue(args, "--b"), std::nullopt);
  EXPECT_EQ(FlagValue({"--a="}, "--a"), "");
}

TEST(HasFlagTest, MatchesThePrefix) {
  const std::vector<std::string> args = {"--benchmark_repetitions=3"};
  EXPECT_TRUE(HasFlag(args, "--benchmark_repetitions"));
  EXPECT_FALSE(HasFlag(args, "--benchmark_enable_random_interleaving"));
}

TEST(ParseBoolTest, GoogleBenchmarksSpellings) {
  for (const char* yes : {"", "true", "yes", "1", "on", "t", "y"}) {
    EXPECT_EQ(ParseBool(yes), true) << yes;
  }
  for (const char* no : {"false", "no", "0", "off", "f", "n"}) {
    EXPECT_EQ(ParseBool(no), false) << no;
  }
  EXPECT_EQ(ParseBool("maybe"), std::nullopt);
  EXPECT_EQ(ParseBool("True"), std::nullopt);
}

TEST(ParseNumberTest, AWholeFiniteNumberOnly) {
  EXPECT_EQ(ParseNumber("1.5"), 1.5);
  EXPECT_EQ(ParseNumber("-2"), -2.0);
  EXPECT_EQ(ParseNumber(""), std::nullopt);
  EXPECT_EQ(ParseNumber("3x"), std::nullopt);
  EXPECT_EQ(ParseNumber("inf"), std::nullopt);
  EXPECT_EQ(ParseNumber("nan"), std::nullopt);
}

TEST(ProfileNameTest, NamesEachProfile) {
  EXPECT_STREQ(ProfileName(Profile::kSmoke), "smoke");
  EXPECT_STREQ(ProfileName(Profile::kDefault), "default");
  EXPECT_STREQ(ProfileName(Profile::kFull), "full");
}

TEST(ParseSweepFlagsTest, DefaultsWithoutFlags) {
  SweepFlags f;
  ASSERT_TRUE(Parse({}, &f));
  EXPECT_EQ(f.profile, Profile::kDefault);
  EXPECT_EQ(f.part.index, 1);
  EXPECT_EQ(f.part.of, 1);
  EXPECT_TRUE(f.rounds_mode);
  EXPECT_FALSE(f.budget || f.target || f.min_rounds || f.max_rounds);
  EXPECT_FALSE(f.help);
  EXPECT_TRUE(f.user_args.empty());
}

TEST(ParseSweepFlagsTest, TakesItsOwnAndPassesTheRestInOrder) {
  SweepFlags f;
  ASSERT_TRUE(
      Parse({"--benchmark_filter=x", "--profile=full", "--part=2/3",
             "--rounds=off", "--round_budget_s=30", "--round_target=0.1",
             "--min_rounds=4", "--max_rounds=9", "--benchmark_min_time=1"},
            &f));
  EXPECT_EQ(f.profile, Profile::kFull);
  EXPECT_EQ(f.part.index, 2);
  EXPECT_EQ(f.part.of, 3);
  EXPECT_FALSE(f.rounds_mode);
  EXPECT_EQ(f.budget, 30.0);
  EXPECT_EQ(f.target, 0.1);
  EXPECT_EQ(f.min_rounds, 4);
  EXPECT_EQ(f.max_rounds, 9);
  EXPECT_EQ(f.user_args, (std::vector<std::string>{"--benchmark_filter=x",
                                                   "--benchmark_min_time=1"}));
}

TEST(ParseSweepFlagsTest, HelpIsTheSweeps) {
  for (const char* help : {"--help", "-h"}) {
    SweepFlags f;
    ASSERT_TRUE(Parse({help}, &f));
    EXPECT_TRUE(f.help);
    EXPECT_TRUE(f.user_args.empty());
  }
}

TEST(ParseSweepFlagsTest, RefusesBadValues) {
  for (const char* bad :
       {"--profile=bogus", "--part=0/2", "--part=3/2", "--part=1/65",
        "--rounds=maybe", "--round_budget_s=-1", "--round_target=x",
        "--min_rounds=0", "--max_rounds=1.5", "--max_rounds=100001"}) {
    SweepFlags f;
    EXPECT_FALSE(Parse({bad}, &f)) << bad;
  }
}

TEST(ParseConsoleFlagsTest, ColourAndLayoutFromTheUsersFlags) {
  bool color = true, tabular = true;
  ASSERT_TRUE(
      ParseConsoleFlags({"--benchmark_color=true"}, "sweep", &color, &tabular));
  EXPECT_TRUE(color);
  EXPECT_FALSE(tabular);  // inline counters unless asked
  ASSERT_TRUE(ParseConsoleFlags(
      {"--benchmark_color=no", "--benchmark_counters_tabular=true"}, "sweep",
      &color, &tabular));
  EXPECT_FALSE(color);
  EXPECT_TRUE(tabular);
  EXPECT_FALSE(ParseConsoleFlags({"--benchmark_color=purple"}, "sweep", &color,
                                 &tabular));
}

TEST(RepetitionFlagsFitTest, RepetitionsBelongToRoundsOff) {
  SweepFlags rounds;
  rounds.user_args = {"--benchmark_repetitions=3"};
  EXPECT_FALSE(RepetitionFlagsFit(rounds, "sweep"));
  rounds.user_args = {"--benchmark_enable_random_interleaving=true"};
  EXPECT_FALSE(RepetitionFlagsFit(rounds, "sweep"));
  SweepFlags off = rounds;
  off.rounds_mode = false;
  EXPECT_TRUE(RepetitionFlagsFit(off, "sweep"));
  EXPECT_TRUE(RepetitionFlagsFit(SweepFlags{}, "sweep"));
}

}  // namespace
}  // namespace serverkit::bench::internal
