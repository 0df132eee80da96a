// -----------------------------------------------------------------------------
// base/spin_wait.h
// -----------------------------------------------------------------------------
//
// The project's one spin-then-yield wait, for short waits on another thread
// (a full queue, a submitter leaving a gate):
//
//   - `SpinThenYield`: what to do after a failed try. The first
//     `kSpinsBeforeYield` calls to `Pause()` are a CPU pause hint
//     (`CpuRelax()`); every later one is `std::this_thread::yield()`, so a
//     waiter that outnumbers the cores lets the thread it waits for run.
//   - `SpinThenYieldUntil(ready)`: calls `ready()` until it returns true,
//     pausing that way between the tries.
//
// For waits that may be long, park instead (queues/wait_strategy.h).
//
// Thread-safety: a `SpinThenYield` belongs to the one thread that waits.

#ifndef SERVERKIT_BASE_SPIN_WAIT_H_
#define SERVERKIT_BASE_SPIN_WAIT_H_

#include <thread>

#include "base/cache_line.h"

namespace serverkit {

// Failed tries answered with a pause before a spin-wait starts yielding.
inline constexpr unsigned kSpinsBeforeYield = 64;

class SpinThenYield {
 public:
  // Waits a little before the next try.
  void Pause() noexcept {
    if (spins_ < kSpinsBeforeYield) {
      ++spins_;
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }

  // Whether `Pause()` yields now (the spins are used up).
  bool yielding() const noexcept { return spins_ == kSpinsBeforeYield; }

 private:
  unsigned spins_ = 0;
};

// Returns once `ready()` returned true; `ready` may have side effects (a
// `try_push`): it is called until it succeeds, and never again after that.
template <typename Pred>
void SpinThenYieldUntil(Pred&& ready) {
  for (SpinThenYield backoff; !ready();) backoff.Pause();
}

}  // namespace serverkit

#endif  // SERVERKIT_BASE_SPIN_WAIT_H_
