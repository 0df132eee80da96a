#include "servers/http/work.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>

#include "servers/http/work_pool.h"
#include "threadpool/executor.h"

namespace serverkit::http {
namespace {

// FNV-1a 64 of the block (byte i = (167 i + 13) mod 256), worked out apart
// from the code under test (servers/http/http_work_test.py does the same).
constexpr char kBody[] = R"({"work":"%s"})";

std::string ExpectedBody() {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < kWorkBlockBytes; ++i) {
    h ^= static_cast<unsigned char>((167 * i + 13) & 0xff);
    h *= 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(h));
  char body[64];
  std::snprintf(body, sizeof(body), kBody, hex);
  return body;
}

TEST(WorkCostTest, TheBodyIsTheSameForAnyRounds) {
  const std::string expected = ExpectedBody();
  EXPECT_EQ(WorkCost::Body(), expected);
  for (std::uint64_t rounds : {0, 1, 2, 7, 100}) {
    EXPECT_EQ(WorkCost::WithRounds(rounds).Run(), expected) << rounds;
  }
}

TEST(WorkCostTest, CalibrationGivesRoundsAndNoneForZero) {
  EXPECT_EQ(WorkCost::Calibrated(0).rounds(), 0u);
  const WorkCost c = WorkCost::Calibrated(20'000);
  EXPECT_GE(c.rounds(), 1u);
  EXPECT_GT(c.ns_per_round(), 0.0);
  EXPECT_EQ(c.Run(), ExpectedBody());
}

TEST(WorkPoolTest, UnknownNamesMakeNoPool) {
  EXPECT_EQ(MakeWorkPool("none", 1), nullptr);
  EXPECT_EQ(MakeWorkPool("no-such-pool", 1), nullptr);
}

// Every pool by name: runs what it accepts, counts it, refuses after
// shutdown and counts that, and leaves a refused task untouched.
TEST(WorkPoolTest, EveryPoolRunsThenRefuses) {
  const auto names = WorkPoolNames();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "mutex");
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    std::unique_ptr<WorkPool> pool = MakeWorkPool(name, 2);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(pool->name(), name);
    constexpr int kTasks = 50;
    std::atomic<int> ran{0};
    for (int i = 0; i < kTasks; ++i) {
      ASSERT_TRUE(pool->try_submit(Task([&ran] { ran.fetch_add(1); })));
    }
    EXPECT_EQ(pool->shutdown(ShutdownMode::kDrain), 0u);
    EXPECT_EQ(ran.load(), kTasks);
    EXPECT_EQ(pool->submitted(), static_cast<std::uint64_t>(kTasks));
    Task refused([&ran] { ran.fetch_add(1); });
    EXPECT_FALSE(pool->try_submit(std::move(refused)));
    EXPECT_EQ(pool->failed_submits(), 1u);
    ASSERT_TRUE(static_cast<bool>(refused));  // untouched: still callable
    refused();
    EXPECT_EQ(ran.load(), kTasks + 1);
  }
}

}  // namespace
}  // namespace serverkit::http
