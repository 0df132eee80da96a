// -----------------------------------------------------------------------------
// bench/harness/run_names_test.cc
// -----------------------------------------------------------------------------
//
// Reading run names back (internal/run_names.h): Google Benchmark's
// suffixes set aside, and the filters by name.

#include "bench/harness/internal/run_names.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace serverkit::bench::internal {
namespace {

TEST(ParseRunNameTest, SetsGoogleBenchmarksSuffixesAside) {
  const ParsedName p = ParseRunName(
      "queues/throughput/mutex/producers:2/consumers:1/iterations:1/"
      "manual_time");
  EXPECT_EQ(p.scenario, "throughput");
  EXPECT_EQ(p.impl, "mutex");
  EXPECT_EQ(p.params, "producers:2/consumers:1");
}

TEST(ParseRunNameTest, ThreadsIsOursUntilASuffixAppeared) {
  EXPECT_EQ(ParseRunName("logger/burst/async/threads:4").params, "threads:4");
  EXPECT_EQ(ParseRunName("logger/burst/async/threads:4/real_time").params,
            "threads:4");
  EXPECT_EQ(ParseRunName("x/s/i/iterations:1/threads:2").params, "");
}

TEST(ParseRunNameTest, ShortNames) {
  const ParsedName p = ParseRunName("buffer/floor");
  EXPECT_EQ(p.scenario, "floor");
  EXPECT_EQ(p.impl, "");
  EXPECT_EQ(p.params, "");
}

TEST(ExactFilterTest, OneNameWithGoogleBenchmarksSuffixes) {
  const std::regex re(ExactFilter("q/t.x/mutex/p:2"), std::regex::extended);
  EXPECT_TRUE(std::regex_search("q/t.x/mutex/p:2", re));
  EXPECT_TRUE(
      std::regex_search("q/t.x/mutex/p:2/iterations:1/manual_time", re));
  EXPECT_FALSE(std::regex_search("q/tax/mutex/p:2", re));  // '.' escaped
  EXPECT_FALSE(std::regex_search("q/t.x/mutex/p:2/c:1", re));
  EXPECT_FALSE(std::regex_search("q/t.x/mutex/p:20", re));
}

TEST(PassesFilterTest, AsGoogleBenchmarkReadsIt) {
  const std::string name = "queues/latency/mutex";
  EXPECT_TRUE(PassesFilter(name, ""));
  EXPECT_TRUE(PassesFilter(name, "all"));
  EXPECT_TRUE(PassesFilter(name, "latency"));
  EXPECT_FALSE(PassesFilter(name, "throughput"));
  EXPECT_FALSE(PassesFilter(name, "-latency"));
  EXPECT_TRUE(PassesFilter(name, "-throughput"));
  EXPECT_TRUE(PassesFilter(name, "mutex/$"));  // a suffix would follow
  EXPECT_THROW(PassesFilter(name, "("), std::regex_error);
}

}  // namespace
}  // namespace serverkit::bench::internal
