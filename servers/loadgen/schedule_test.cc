// Schedule: uniform streams keep an exact gap from a phase inside the first
// gap and do not drift; Poisson gaps have the right mean and a coefficient
// of variation near 1; streams repeat for a seed and differ between
// connections.

#include "servers/loadgen/schedule.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace serverkit::loadgen {
namespace {

std::vector<std::int64_t> Times(Schedule s, int n) {
  std::vector<std::int64_t> t;
  for (int i = 0; i < n; ++i, s.Advance()) t.push_back(s.next());
  return t;
}

TEST(ScheduleTest, UniformIsEvenlySpacedFromARandomPhase) {
  const Schedule s(Arrivals::kUniform, 1000, 1, 0);  // a 1 ms gap
  EXPECT_GE(s.next(), 0);
  EXPECT_LT(s.next(), 1'000'000);
  const auto t = Times(s, 100001);
  for (std::size_t i = 1; i < t.size(); ++i) {
    ASSERT_NEAR(t[i] - t[i - 1], 1'000'000, 1) << i;
  }
  EXPECT_NEAR(t.back() - t.front(), 100'000'000'000, 1);  // no drift
}

TEST(ScheduleTest, PoissonGapsAreExponential) {
  const auto t = Times(Schedule(Arrivals::kPoisson, 2000, 7, 3), 200001);
  double sum = 0, sum2 = 0;
  for (std::size_t i = 1; i < t.size(); ++i) {
    const double g = static_cast<double>(t[i] - t[i - 1]);
    ASSERT_GE(g, 0);
    sum += g;
    sum2 += g * g;
  }
  const double n = static_cast<double>(t.size() - 1);
  const double mean = sum / n;
  const double cv = std::sqrt(sum2 / n - mean * mean) / mean;
  EXPECT_NEAR(mean, 500'000, 500'000 * 0.01);
  EXPECT_NEAR(cv, 1.0, 0.02);
}

TEST(ScheduleTest, SeededPerConnection) {
  for (const Arrivals a : {Arrivals::kUniform, Arrivals::kPoisson}) {
    EXPECT_EQ(Times(Schedule(a, 100, 1, 0), 50),
              Times(Schedule(a, 100, 1, 0), 50));
    EXPECT_NE(Times(Schedule(a, 100, 1, 0), 50),
              Times(Schedule(a, 100, 1, 1), 50));
    EXPECT_NE(Times(Schedule(a, 100, 1, 0), 50),
              Times(Schedule(a, 100, 2, 0), 50));
  }
}

TEST(ScheduleTest, Names) {
  EXPECT_EQ(ParseArrivals("uniform"), Arrivals::kUniform);
  EXPECT_EQ(ParseArrivals("poisson"), Arrivals::kPoisson);
  EXPECT_EQ(ParseArrivals("Poisson"), std::nullopt);
  EXPECT_EQ(ArrivalsName(Arrivals::kPoisson), "poisson");
}

}  // namespace
}  // namespace serverkit::loadgen
