// -----------------------------------------------------------------------------
// servers/loadgen/histogram.h
// -----------------------------------------------------------------------------
//
// `Histogram`: an HdrHistogram-style log-bucketed histogram of non-negative
// integer values (the load generator records nanoseconds). Values below 256
// are counted exactly; above, each power of two is split into 128 equal
// sub-buckets, so a bucket is at most 1/128 (0.78%) of its lower bound wide
// and a percentile, reported as its bucket's midpoint, is within 0.4% of the
// exact sample. Every uint64 value fits (about 7,400 buckets, 58 KiB).
// Record is O(1); percentiles walk the buckets. Count, sum, min and max are
// exact.
//
// Thread-safety: thread-compatible. The generator keeps one per thread and
// merges them at the end (`Merge`).

#ifndef SERVERKIT_SERVERS_LOADGEN_HISTOGRAM_H_
#define SERVERKIT_SERVERS_LOADGEN_HISTOGRAM_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace serverkit::loadgen {

class Histogram {
 public:
  // log2 of the sub-buckets per power of two.
  static constexpr int kSubBucketBits = 7;
  static constexpr std::uint64_t kSubBuckets = 1u << kSubBucketBits;
  static constexpr std::size_t kBucketCount =
      (64 - kSubBucketBits) * kSubBuckets + kSubBuckets;

  Histogram();

  void Record(std::uint64_t value) { RecordN(value, 1); }
  void RecordN(std::uint64_t value, std::uint64_t n) {
    counts_[BucketIndex(value)] += n;
    count_ += n;
    sum_ += static_cast<double>(value) * static_cast<double>(n);
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
  }

  // Adds every value `other` recorded.
  void Merge(const Histogram& other);

  std::uint64_t count() const { return count_; }
  // 0 when empty.
  std::uint64_t min() const { return count_ == 0 ? 0 : min_; }
  std::uint64_t max() const { return max_; }
  double mean() const;

  // The nearest-rank percentile (base/percentile.h's definition: the smallest
  // value with at least ceil(q * count) values at or below it), reported as
  // the midpoint of that value's bucket, clamped to [min, max]. `q` in [0, 1];
  // 0 when empty.
  double Percentile(double q) const;

  // How many values lie at or above `value`, to the bucket: values up to
  // 0.8% below it, in its bucket, are counted too.
  std::uint64_t CountAtOrAbove(std::uint64_t value) const;

  // The bucket of `value`: exact below 2 * kSubBuckets, then kSubBuckets per
  // power of two.
  static std::size_t BucketIndex(std::uint64_t value) {
    if (value < 2 * kSubBuckets) return static_cast<std::size_t>(value);
    const int shift = std::bit_width(value) - 1 - kSubBucketBits;
    return static_cast<std::size_t>(shift) * kSubBuckets +
           static_cast<std::size_t>(value >> shift);
  }
  // The smallest value of bucket `index`, and its width.
  static std::uint64_t BucketLow(std::size_t index);
  static std::uint64_t BucketWidth(std::size_t index);

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  double sum_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
};

}  // namespace serverkit::loadgen

#endif  // SERVERKIT_SERVERS_LOADGEN_HISTOGRAM_H_
