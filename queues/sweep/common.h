// -----------------------------------------------------------------------------
// queues/sweep/common.h
// -----------------------------------------------------------------------------
//
// What the queue sweep's scenarios share (queues/queue_benchmark.cc lists
// them): the capacity every queue is built with, the clock, and the
// waiting push and pop: retry with a pause, then yield (SpinThenYieldUntil),
// so oversubscribed runs make progress; a queue's own blocking operations
// where it has them; the check that every item arrived once. `Widths` gives
// the thread counts a profile sweeps.
//
// Thread-safety: Push and Pop run on the thread that owns the handle.

#ifndef SERVERKIT_QUEUES_SWEEP_COMMON_H_
#define SERVERKIT_QUEUES_SWEEP_COMMON_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/spin_wait.h"
#include "bench/harness/harness.h"
#include "queues/queue.h"

namespace serverkit::bench::queue_sweep {

inline constexpr std::size_t kCapacity = 8192;
using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// After an iteration that moved the items 0..items-1: true when each
// arrived once (their sum says so), else the benchmark stops with an error.
inline bool EveryItemOnce(benchmark::State& state, std::uint64_t sum,
                          std::uint64_t items) {
  if (sum == items * (items - 1) / 2) return true;
  state.SkipWithError("checksum mismatch: items lost or duplicated");
  return false;
}

template <Queue Q>
void Push(Producer<Q>& p, typename Q::value_type&& v) {
  if constexpr (HasNativeBlocking<Q>) {
    p.spin_push(std::move(v));
  } else {
    SpinThenYieldUntil([&] { return p.try_push(std::move(v)); });
  }
}

template <Queue Q>
void Pop(Consumer<Q>& c, typename Q::value_type& out) {
  if constexpr (HasNativeBlocking<Q>) {
    c.spin_pop(out);
  } else {
    SpinThenYieldUntil([&] { return c.try_pop(out); });
  }
}

// The thread counts a profile sweeps: 1 and 2, and in the full profile
// powers of two up to twice the cores (oversubscribed).
inline std::vector<int> Widths(Profile profile) {
  std::vector<int> n = {1, 2};
  if (profile == Profile::kFull) {
    for (int w = 4; w <= 2 * Cores(); w *= 2) n.push_back(w);
  }
  return n;
}

}  // namespace serverkit::bench::queue_sweep

#endif  // SERVERKIT_QUEUES_SWEEP_COMMON_H_
