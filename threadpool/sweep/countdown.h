// -----------------------------------------------------------------------------
// threadpool/sweep/countdown.h
// -----------------------------------------------------------------------------
//
// Countdown: the end of a batch of pool tasks. Each task calls Done; the
// one that completes the batch wakes the waiter and records the time, so a
// batch's span ends when its last task did, not when the waiter woke. A
// run that stops at its time cap cancels the tasks that will never run.
//
// Thread-safety: Done and Cancel from any thread; Reset, Wait and WaitUntil
// from the one waiting thread.

#ifndef SERVERKIT_THREADPOOL_SWEEP_COUNTDOWN_H_
#define SERVERKIT_THREADPOOL_SWEEP_COUNTDOWN_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "base/cache_line.h"
#include "threadpool/sweep/common.h"

namespace serverkit::bench::pool_sweep {

// The completing task may still be inside notify_all() when the waiter
// returns, so a Countdown must outlive the tasks (reuse it with Reset).
// Memory ordering: finished_ is published with release, read with acquire;
// FutexWait's fences order its waiter count against the wake.
class Countdown {
 public:
  explicit Countdown(std::uint64_t n) : left_(n) {}
  void Reset(std::uint64_t n) {
    left_.store(n, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_release);
  }
  void Done() {
    if (left_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
  }
  // Takes `n` tasks that will never run off the count (never submitted, or
  // discarded by a run that stopped at its time cap).
  void Cancel(std::uint64_t n) {
    if (n != 0 && left_.fetch_sub(n, std::memory_order_acq_rel) == n) Finish();
  }
  void Wait() {
    wait_.wait_until(
        [&] { return finished_.load(std::memory_order_acquire) != 0; });
  }
  // Waits until the count reaches zero (true) or `deadline` passes (false).
  // It polls, so read the time the count reached zero from finished_at().
  bool WaitUntil(Clock::time_point deadline) {
    while (finished_.load(std::memory_order_acquire) == 0) {
      const auto now = Clock::now();
      if (now >= deadline) return false;
      std::this_thread::sleep_for(std::min<Clock::duration>(
          deadline - now, std::chrono::milliseconds(1)));
    }
    return true;
  }
  // When the count reached zero; valid once Wait or WaitUntil saw it.
  Clock::time_point finished_at() const { return finished_at_; }
  // Tasks neither done nor cancelled yet.
  std::uint64_t left() const { return left_.load(std::memory_order_acquire); }

 private:
  void Finish() {
    finished_at_ = Clock::now();  // published by the release store below
    finished_.store(1, std::memory_order_release);
    wait_.notify_all();
  }

  alignas(kCacheLineSize) std::atomic<std::uint64_t> left_;
  alignas(kCacheLineSize) std::atomic<int> finished_{0};
  // Not std::atomic<int>::wait (latency.h says why); counts lost wake-ups.
  FutexWait<> wait_;
  Clock::time_point finished_at_{};
};

}  // namespace serverkit::bench::pool_sweep

#endif  // SERVERKIT_THREADPOOL_SWEEP_COUNTDOWN_H_
