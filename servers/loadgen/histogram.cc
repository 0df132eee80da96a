#include "servers/loadgen/histogram.h"

#include <algorithm>
#include <cmath>

namespace serverkit::loadgen {

Histogram::Histogram() : counts_(kBucketCount, 0) {}

void Histogram::Merge(const Histogram& other) {
  for (std::size_t i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

double Histogram::mean() const {
  return count_ == 0 ? 0 : sum_ / static_cast<double>(count_);
}

std::uint64_t Histogram::BucketLow(std::size_t index) {
  if (index < 2 * kSubBuckets) return index;
  const std::size_t shift = index / kSubBuckets - 1;
  return static_cast<std::uint64_t>(index - shift * kSubBuckets) << shift;
}

std::uint64_t Histogram::BucketWidth(std::size_t index) {
  if (index < 2 * kSubBuckets) return 1;
  return std::uint64_t{1} << (index / kSubBuckets - 1);
}

double Histogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const double rank_d = std::ceil(q * static_cast<double>(count_));
  const std::uint64_t rank =
      rank_d < 1 ? 1 : std::min(count_, static_cast<std::uint64_t>(rank_d));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBucketCount; ++i) {
    seen += counts_[i];
    if (seen < rank) continue;
    const double mid = static_cast<double>(BucketLow(i)) +
                       static_cast<double>(BucketWidth(i) - 1) / 2;
    return std::clamp(mid, static_cast<double>(min_),
                      static_cast<double>(max_));
  }
  return static_cast<double>(max_);
}

std::uint64_t Histogram::CountAtOrAbove(std::uint64_t value) const {
  std::uint64_t n = 0;
  for (std::size_t i = BucketIndex(value); i < kBucketCount; ++i) {
    n += counts_[i];
  }
  return n;
}

}  // namespace serverkit::loadgen
