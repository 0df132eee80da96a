// -----------------------------------------------------------------------------
// queues/wait_strategy.h
// -----------------------------------------------------------------------------
//
// Waiting, kept apart from the queues. A wait strategy blocks a thread until a
// condition holds; `BlockingQueue<Q, W>` composes any non-blocking `Queue` with
// any strategy into a queue with blocking `push` / `pop` and `close`.
//
// A wait strategy `W` has:
//   - `template <class Pred> void wait_until(Pred ready)`: returns once a call
//     of `ready()` returned true. `ready` may have side effects (a `try_pop`):
//     it is called until it succeeds, and never again after that.
//   - `void notify_one()` / `void notify_all()`: called after the state that
//     `ready` tests has changed. They must be cheap when nobody waits.
// All members are thread-safe.
//
// Strategies:
//   - `SpinWait`: busy-waits with the CPU pause hint. Lowest latency, burns a
//     core; wrong when threads outnumber cores.
//   - `YieldWait`: `sched_yield` between tries.
//   - `FutexWait<kSpins>`: spins `kSpins` tries, then parks on a futex (the
//     futex system call on its epoch word); notifiers pay one fence and one
//     load when nobody is parked. A parked waiter also wakes after
//     `kFutexRescueAfter` (100 ms) to test its predicate, a safety net: a
//     make bench once hung in a wait built on std::atomic::wait (the cause
//     is in docs/components.md, "The lost wake-up"), so any lost wake-up
//     costs at most that long, and each one found is counted
//     (`FutexWaitRescues()`, 0 across //threadpool:wakeup_stress).
//   - `CondVarWait<kSpins>`: spins, then parks on a `std::condition_variable`.
//
// Memory ordering (FutexWait, CondVarWait): a waiter announces itself
// (seq_cst increment of `waiters_`), fences, and tests `ready()` once more
// before it parks; a notifier changes the state, fences, and reads `waiters_`.
// With both fences, either the notifier sees the waiter and wakes it, or the
// waiter's last test sees the new state: no wake-up is lost.

#ifndef SERVERKIT_QUEUES_WAIT_STRATEGY_H_
#define SERVERKIT_QUEUES_WAIT_STRATEGY_H_

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <utility>

#include "base/cache_line.h"
#include "base/futex.h"
#include "queues/queue.h"

namespace serverkit {

struct SpinWait {
  static constexpr std::string_view kName = "spin";
  template <typename Pred>
  void wait_until(Pred ready) {
    while (!ready()) CpuRelax();
  }
  void notify_one() {}
  void notify_all() {}
};

struct YieldWait {
  static constexpr std::string_view kName = "yield";
  template <typename Pred>
  void wait_until(Pred ready) {
    while (!ready()) sched_yield();
  }
  void notify_one() {}
  void notify_all() {}
};

namespace wait_internal {
// Lost wake-ups that FutexWait's timed park found, in this process.
inline std::atomic<std::uint64_t> futex_rescues{0};

// The futex calls on a 32-bit word (base/futex.h). Wait returns false when
// `timeout_ns` passed.
inline bool FutexWaitFor(std::atomic<std::uint32_t>* word,
                         std::uint32_t expected, long timeout_ns) {
  return FutexWaitWord(word, expected, timeout_ns);
}

inline void FutexWake(std::atomic<std::uint32_t>* word, int count) {
  FutexWakeWord(word, count);
}
}  // namespace wait_internal

// Lost wake-ups found (and ended) by FutexWait's timed park so far.
inline std::uint64_t FutexWaitRescues() {
  return wait_internal::futex_rescues.load(std::memory_order_relaxed);
}

// A parked FutexWait waiter tests its predicate at least this often.
inline constexpr long kFutexRescueAfterNs = 100'000'000;

template <int kSpins = 256>
class FutexWait {
 public:
  static constexpr std::string_view kName = "futex";

  template <typename Pred>
  void wait_until(Pred ready) {
    for (int i = 0; i < kSpins; ++i) {
      if (ready()) return;
      CpuRelax();
    }
    for (;;) {
      waiters_.fetch_add(1, std::memory_order_seq_cst);
      const std::uint32_t epoch = epoch_.load(std::memory_order_seq_cst);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (ready()) {
        waiters_.fetch_sub(1, std::memory_order_relaxed);
        return;
      }
      const bool woken =
          wait_internal::FutexWaitFor(&epoch_, epoch, kFutexRescueAfterNs);
      waiters_.fetch_sub(1, std::memory_order_relaxed);
      if (ready()) {
        // Ready with no notify since the park: a wake-up was lost.
        if (!woken && epoch_.load(std::memory_order_seq_cst) == epoch) {
          wait_internal::futex_rescues.fetch_add(1, std::memory_order_relaxed);
        }
        return;
      }
    }
  }

  void notify_one() { Notify(/*all=*/false); }
  void notify_all() { Notify(/*all=*/true); }

 private:
  void Notify(bool all) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (waiters_.load(std::memory_order_relaxed) == 0) return;
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    wait_internal::FutexWake(&epoch_, all ? INT32_MAX : 1);
  }

  alignas(kCacheLineSize) std::atomic<std::uint32_t> epoch_{0};
  std::atomic<std::uint32_t> waiters_{0};
};

template <int kSpins = 64>
class CondVarWait {
 public:
  static constexpr std::string_view kName = "condvar";

  template <typename Pred>
  void wait_until(Pred ready) {
    for (int i = 0; i < kSpins; ++i) {
      if (ready()) return;
      CpuRelax();
    }
    std::unique_lock<std::mutex> lock(mu_);
    waiters_.fetch_add(1, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    while (!ready()) cv_.wait(lock);
    waiters_.fetch_sub(1, std::memory_order_relaxed);
  }

  void notify_one() { Notify(/*all=*/false); }
  void notify_all() { Notify(/*all=*/true); }

 private:
  void Notify(bool all) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (waiters_.load(std::memory_order_relaxed) == 0) return;
    // Taking the lock orders this wake-up after a waiter's last test of
    // `ready()`, so it cannot fall between that test and `cv_.wait`.
    { std::lock_guard<std::mutex> lock(mu_); }
    if (all) {
      cv_.notify_all();
    } else {
      cv_.notify_one();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<std::uint32_t> waiters_{0};
};

// BlockingQueue<Q, W>
//
// Blocking `push` / `pop` over any `Queue`, waiting with strategy `W`, plus
// `close()`: after it, `push` fails and `pop` drains what is left, then fails.
// Nothing is lost: every item whose `push` returned true is returned by a
// `pop` (a push that races with `close` may land after a popper has seen the
// queue closed and empty; a later `pop` or `try_pop` still returns it, and
// otherwise the queue destroys it).
//
// Thread-safety: as `Q::kTopology` says for pushes and pops; `close` is
// thread-safe.
template <Queue Q, typename W = FutexWait<>>
class BlockingQueue {
 public:
  using value_type = typename Q::value_type;
  using queue_type = Q;

  explicit BlockingQueue(std::size_t capacity) : q_(capacity) {}

  // Pushes `v`, waiting while the queue is full. Returns false (and leaves `v`
  // untouched) if the queue is closed.
  bool push(value_type&& v) {
    if (closed_.load(std::memory_order_acquire)) return false;
    if (!q_.try_push(std::move(v))) {
      bool pushed = false;
      not_full_.wait_until([&] {
        if (closed_.load(std::memory_order_acquire)) return true;
        pushed = q_.try_push(std::move(v));
        return pushed;
      });
      if (!pushed) return false;
    }
    not_empty_.notify_one();
    return true;
  }

  // Pops into `out`, waiting while the queue is empty. Returns false once the
  // queue is closed and drained.
  bool pop(value_type& out) {
    bool popped = false;
    not_empty_.wait_until([&] {
      popped = q_.try_pop(out);
      return popped || closed_.load(std::memory_order_acquire);
    });
    if (!popped) popped = q_.try_pop(out);  // an item pushed just before close
    if (popped && Q::kBounded) not_full_.notify_one();
    return popped;
  }

  bool try_pop(value_type& out) {
    if (!q_.try_pop(out)) return false;
    if (Q::kBounded) not_full_.notify_one();
    return true;
  }

  void close() {
    closed_.store(true, std::memory_order_release);
    not_empty_.notify_all();
    not_full_.notify_all();
  }

  bool closed() const { return closed_.load(std::memory_order_acquire); }

  Q& queue() { return q_; }

 private:
  Q q_;
  W not_empty_;
  W not_full_;
  std::atomic<bool> closed_{false};
};

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_WAIT_STRATEGY_H_
