// -----------------------------------------------------------------------------
// base/percentile.h
// -----------------------------------------------------------------------------
//
// `Percentile(samples, q)`: the exact nearest-rank percentile of a set of
// samples, as every latency figure of the sweeps and the ping-pong client
// reports it (p50, p99, p99.9).
//
// Thread-safety: thread-compatible (it sorts `samples` in place).

#ifndef SERVERKIT_BASE_PERCENTILE_H_
#define SERVERKIT_BASE_PERCENTILE_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace serverkit {

// The smallest sample with at least `q` of the samples at or below it (nearest
// rank, no interpolation); `q` in [0, 1], q = 0 gives the minimum. Sorts
// `samples` in place unless the caller says they are `sorted` already. 0 when
// there are no samples.
inline double Percentile(std::vector<double>& samples, double q,
                         bool sorted = false) {
  if (samples.empty()) return 0;
  if (!sorted) std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(q * static_cast<double>(samples.size()));
  std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  if (index >= samples.size()) index = samples.size() - 1;
  return samples[index];
}

}  // namespace serverkit

#endif  // SERVERKIT_BASE_PERCENTILE_H_
