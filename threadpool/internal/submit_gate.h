// -----------------------------------------------------------------------------
// threadpool/internal/submit_gate.h
// -----------------------------------------------------------------------------
//
// `SubmitGate`: what makes "submit after shutdown" and "shutdown while
// someone submits" exact for pools whose queue has no lock to close.
//
// A submitter calls `Enter()` before it touches the queue and `Leave()` after
// its push is complete (or abandoned). `Close()` makes every later `Enter()`
// fail; `WaitForSubmitters()` then returns once every submitter that did get
// in has left. After both, no push can land in the queue any more, so the
// pool can drain it or count what it discards without missing a task.
//
// One word holds the closed bit (bit 0) and the number of submitters inside
// (the rest). A submit costs two read-modify-writes on that shared word: the
// price of an exact shutdown over a lock-free queue, and it is measured with
// each pool.
//
// Memory ordering: `Enter`'s increment and `Close`'s fetch_or are RMWs on the
// same word, so one of them comes first: either `Close` sees the submitter
// inside, or the submitter sees the closed bit. `Leave` is a release and
// `WaitForSubmitters` loads with acquire, so every push made inside the gate
// happens before `WaitForSubmitters` returns.
//
// Thread-safety: thread-safe.

#ifndef SERVERKIT_THREADPOOL_INTERNAL_SUBMIT_GATE_H_
#define SERVERKIT_THREADPOOL_INTERNAL_SUBMIT_GATE_H_

#include <atomic>
#include <cstdint>

#include "base/cache_line.h"
#include "base/spin_wait.h"

namespace serverkit::threadpool_internal {

class SubmitGate {
 public:
  // Returns true when the caller may push (it must call `Leave()` after), or
  // false once the gate is closed.
  bool Enter() noexcept {
    if (state_.load(std::memory_order_relaxed) & kClosed) return false;
    if (state_.fetch_add(kOne, std::memory_order_seq_cst) & kClosed) {
      Leave();
      return false;
    }
    return true;
  }

  void Leave() noexcept { state_.fetch_sub(kOne, std::memory_order_release); }

  // Closes the gate. Returns true for the call that closed it.
  bool Close() noexcept {
    return (state_.fetch_or(kClosed, std::memory_order_seq_cst) & kClosed) == 0;
  }

  // After `Close()`: waits until no submitter is inside.
  void WaitForSubmitters() const noexcept {
    SpinThenYieldUntil(
        [&] { return (state_.load(std::memory_order_acquire) >> 1) == 0; });
  }

  bool closed() const noexcept {
    return (state_.load(std::memory_order_acquire) & kClosed) != 0;
  }

 private:
  static constexpr std::uint64_t kClosed = 1;
  static constexpr std::uint64_t kOne = 2;
  alignas(kCacheLineSize) std::atomic<std::uint64_t> state_{0};
};

}  // namespace serverkit::threadpool_internal

#endif  // SERVERKIT_THREADPOOL_INTERNAL_SUBMIT_GATE_H_
