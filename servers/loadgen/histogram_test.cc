// Histogram: every reported percentile within 1% of the exact nearest-rank
// percentile (base/percentile.h) of the same samples, on uniform,
// exponential, constant and extreme samples; the bucket layout; merging two
// equals recording all; the empty histogram.

#include "servers/loadgen/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "base/percentile.h"
#include "gtest/gtest.h"

namespace serverkit::loadgen {
namespace {

constexpr double kQuantiles[] = {0,    0.01,  0.25,   0.5, 0.9,
                                 0.99, 0.999, 0.9999, 1.0};
constexpr std::uint64_t kSixtySeconds = 60'000'000'000;

// Records `values`, then checks every quantile against the exact one.
void ExpectAccurate(const std::vector<std::uint64_t>& values) {
  Histogram h;
  std::vector<double> exact;
  double sum = 0;
  for (const std::uint64_t v : values) {
    h.Record(v);
    exact.push_back(static_cast<double>(v));
    sum += static_cast<double>(v);
  }
  std::sort(exact.begin(), exact.end());
  ASSERT_EQ(h.count(), values.size());
  EXPECT_EQ(static_cast<double>(h.max()), exact.back());
  EXPECT_EQ(static_cast<double>(h.min()), exact.front());
  EXPECT_NEAR(h.mean(), sum / values.size(), 1e-9 * sum / values.size());
  for (const double q : kQuantiles) {
    const double want = Percentile(exact, q, /*sorted=*/true);
    const double got = h.Percentile(q);
    EXPECT_LE(std::abs(got - want), 0.01 * want)
        << "q " << q << " exact " << want << " histogram " << got;
  }
}

TEST(HistogramTest, UniformUpToSixtySeconds) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<std::uint64_t> d(0, kSixtySeconds);
  std::vector<std::uint64_t> v;
  for (int i = 0; i < 200000; ++i) v.push_back(d(rng));
  ExpectAccurate(v);
}

TEST(HistogramTest, UniformSmallValues) {
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<std::uint64_t> d(0, 5000);
  std::vector<std::uint64_t> v;
  for (int i = 0; i < 100000; ++i) v.push_back(d(rng));
  ExpectAccurate(v);
}

TEST(HistogramTest, Exponential) {
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> d(1.0 / 200'000);  // mean 200 us
  std::vector<std::uint64_t> v;
  for (int i = 0; i < 200000; ++i) {
    v.push_back(static_cast<std::uint64_t>(d(rng)));
  }
  ExpectAccurate(v);
}

TEST(HistogramTest, LogUniformAcrossDecades) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> d(0, std::log(6e10));
  std::vector<std::uint64_t> v;
  for (int i = 0; i < 200000; ++i) {
    v.push_back(static_cast<std::uint64_t>(std::exp(d(rng))));
  }
  ExpectAccurate(v);
}

TEST(HistogramTest, Constant) {
  for (const std::uint64_t c :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{255},
        std::uint64_t{256}, std::uint64_t{123'457}, kSixtySeconds}) {
    ExpectAccurate(std::vector<std::uint64_t>(1000, c));
    Histogram h;
    h.RecordN(c, 1000);
    EXPECT_EQ(h.Percentile(0.5), static_cast<double>(c));  // clamped exact
  }
}

TEST(HistogramTest, Extremes) {
  ExpectAccurate({0, 1, 2, 255, 256, 257, 511, 512, kSixtySeconds,
                  UINT64_MAX / 2, UINT64_MAX});
  ExpectAccurate({1});
  // One outlier among many: p99.99 of 10^4 + 1 samples is the outlier's
  // neighbour, max is the outlier itself.
  std::vector<std::uint64_t> v(10000, 1000);
  v.push_back(kSixtySeconds);
  ExpectAccurate(v);
}

TEST(HistogramTest, BucketsTileTheRangeWithinOnePercent) {
  std::uint64_t next = 0;
  for (std::size_t i = 0; i < Histogram::kBucketCount; ++i) {
    const std::uint64_t low = Histogram::BucketLow(i);
    const std::uint64_t width = Histogram::BucketWidth(i);
    ASSERT_EQ(low, next) << "bucket " << i;
    ASSERT_EQ(Histogram::BucketIndex(low), i);
    ASSERT_EQ(Histogram::BucketIndex(low + (width - 1)), i);
    if (low > 0) {
      ASSERT_LE(static_cast<double>(width - 1) / static_cast<double>(low),
                1.0 / 128);
    }
    next = low + width;  // wraps to 0 after the last bucket
  }
  EXPECT_EQ(next, 0u);
  EXPECT_EQ(Histogram::BucketIndex(UINT64_MAX), Histogram::kBucketCount - 1);
}

TEST(HistogramTest, MergeEqualsRecordingAll) {
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> d(1e-6);
  Histogram a, b, all;
  for (int i = 0; i < 50000; ++i) {
    const auto v = static_cast<std::uint64_t>(d(rng));
    (i % 3 == 0 ? a : b).Record(v);
    all.Record(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  for (const double q : kQuantiles) {
    EXPECT_EQ(a.Percentile(q), all.Percentile(q)) << q;
  }
  // Merging an empty histogram changes nothing, nor does merging into one.
  Histogram empty;
  a.Merge(empty);
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.count(), all.count());
  empty.Merge(all);
  EXPECT_EQ(empty.Percentile(0.99), all.Percentile(0.99));
  EXPECT_EQ(empty.min(), all.min());
}

TEST(HistogramTest, CountAtOrAboveToTheBucket) {
  Histogram h;
  for (std::uint64_t v = 0; v < 100000; ++v) h.Record(v);
  EXPECT_EQ(h.CountAtOrAbove(0), 100000u);
  EXPECT_EQ(h.CountAtOrAbove(200), 100000u - 200);  // exact below 256
  const std::uint64_t low = Histogram::BucketLow(Histogram::BucketIndex(50000));
  EXPECT_EQ(h.CountAtOrAbove(50000), 100000u - low);
  EXPECT_LE(50000 - low, 50000 / 128);
  EXPECT_EQ(h.CountAtOrAbove(200000), 0u);
}

TEST(HistogramTest, Empty) {
  const Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0);
  for (const double q : kQuantiles) EXPECT_EQ(h.Percentile(q), 0) << q;
  EXPECT_EQ(h.CountAtOrAbove(0), 0u);
}

}  // namespace
}  // namespace serverkit::loadgen
