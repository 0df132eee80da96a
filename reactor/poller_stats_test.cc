// -----------------------------------------------------------------------------
// reactor/poller_stats_test.cc
// -----------------------------------------------------------------------------
//
// PollerStats: the buckets' edges, the sum of two loops' counts, and the
// stop line's quantiles read from the buckets.

#include "reactor/poller_stats.h"

#include <chrono>
#include <string>

#include "gtest/gtest.h"

namespace serverkit::reactor {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

TEST(PollerStatsTest, TimeBucketsArePowersOfTwoMicroseconds) {
  EXPECT_EQ(PollerStats::TimeBucket(nanoseconds(0)), 0u);
  EXPECT_EQ(PollerStats::TimeBucket(nanoseconds(999)), 0u);
  EXPECT_EQ(PollerStats::TimeBucket(microseconds(1)), 1u);
  EXPECT_EQ(PollerStats::TimeBucket(microseconds(3)), 2u);
  EXPECT_EQ(PollerStats::TimeBucket(microseconds(4)), 3u);
  EXPECT_EQ(PollerStats::TimeBucket(microseconds(7)), 3u);
  EXPECT_EQ(PollerStats::TimeBucket(nanoseconds(-5)), 0u);
  EXPECT_EQ(PollerStats::TimeBucket(std::chrono::seconds(100)),
            PollerStats::kTimeBuckets - 1);
}

TEST(PollerStatsTest, CountBucketsMatchTheLinesLabels) {
  EXPECT_EQ(PollerStats::CountBucket(0), 0u);
  EXPECT_EQ(PollerStats::CountBucket(1), 1u);
  EXPECT_EQ(PollerStats::CountBucket(2), 2u);
  EXPECT_EQ(PollerStats::CountBucket(3), 2u);
  EXPECT_EQ(PollerStats::CountBucket(31), 5u);
  EXPECT_EQ(PollerStats::CountBucket(32), 6u);
  EXPECT_EQ(PollerStats::CountBucket(1 << 20), 6u);
}

TEST(PollerStatsTest, AddSumsEveryCountAndBucket) {
  PollerStats a, b;
  a.loops = b.loops = 1;
  a.polls = 3;
  b.polls = 4;
  a.busy_us[2] = 5;
  b.busy_us[2] = 6;
  b.completions[6] = 1;
  b.send_flushes = 9;
  a.add(b);
  EXPECT_EQ(a.loops, 2u);
  EXPECT_EQ(a.polls, 7u);
  EXPECT_EQ(a.busy_us[2], 11u);
  EXPECT_EQ(a.completions[6], 1u);
  EXPECT_EQ(a.send_flushes, 9u);
}

TEST(PollerStatsTest, TheLineGivesQuantilesByBucket) {
  PollerStats s;
  s.loops = 1;
  s.busy_us[PollerStats::TimeBucket(microseconds(3))] = 98;  // <4us
  s.busy_us[PollerStats::TimeBucket(microseconds(40))] = 2;  // <64us
  s.completions[PollerStats::CountBucket(5)] = 1;            // 4-7
  const std::string line = FormatUringStats(s);
  EXPECT_EQ(line.rfind("serverkit uring: loops 1,", 0), 0u) << line;
  EXPECT_NE(line.find("busy per iteration p50 <4us p99 <64us"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("{<4us:98 <64us:2}"), std::string::npos) << line;
  EXPECT_NE(line.find("completions per enter p50 4-7"), std::string::npos)
      << line;
  const std::string epoll = FormatEpollStats(s);
  EXPECT_EQ(epoll.rfind("serverkit epoll: loops 1, polls 0, "
                        "busy per iteration p50 <4us",
                        0),
            0u)
      << epoll;
  EXPECT_NE(epoll.find("; events per poll p50 4-7 p99 4-7 {4-7:1}"),
            std::string::npos)
      << epoll;
}

}  // namespace
}  // namespace serverkit::reactor
