// Percentile: nearest rank without interpolation, the edges (q = 0, q = 1, one
// sample, none), and the in-place sort.

#include "base/percentile.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"

namespace serverkit {
namespace {

TEST(PercentileTest, NearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_EQ(Percentile(v, 0.50, true), 50);
  EXPECT_EQ(Percentile(v, 0.99, true), 99);
  EXPECT_EQ(Percentile(v, 0.999, true), 100);
  EXPECT_EQ(Percentile(v, 0.011, true), 2);  // rank ceil(1.1) = 2
}

TEST(PercentileTest, Edges) {
  std::vector<double> v = {3, 1, 2};
  EXPECT_EQ(Percentile(v, 0.0), 1);
  EXPECT_EQ(Percentile(v, 1.0), 3);
  std::vector<double> one = {7};
  EXPECT_EQ(Percentile(one, 0.0), 7);
  EXPECT_EQ(Percentile(one, 0.5), 7);
  EXPECT_EQ(Percentile(one, 1.0), 7);
  std::vector<double> none;
  EXPECT_EQ(Percentile(none, 0.5), 0);
}

TEST(PercentileTest, SortsUnlessToldSorted) {
  std::vector<double> v = {5, 4, 3, 2, 1};
  EXPECT_EQ(Percentile(v, 0.2), 1);
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));

  // `sorted` is a promise: it is not checked.
  std::vector<double> unsorted = {5, 4, 3, 2, 1};
  EXPECT_EQ(Percentile(unsorted, 0.2, /*sorted=*/true), 5);
}

}  // namespace
}  // namespace serverkit
