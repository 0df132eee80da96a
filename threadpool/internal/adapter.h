// -----------------------------------------------------------------------------
// threadpool/internal/adapter.h
// -----------------------------------------------------------------------------
//
// `AdapterCore`: the bookkeeping that bends a third-party pool (Asio, oneTBB,
// thread_pool) to the `Executor` contract when the pool itself cannot:
//
//   - Submit after shutdown: a `SubmitGate` in front of the pool's own submit.
//   - Exceptions: every task runs inside a `Wrapped` callable that catches and
//     counts (an exception escaping an Asio handler or a oneTBB enqueued task
//     would end the process; thread_pool would hide it in a future nobody
//     reads).
//   - Discard: none of the three can drop its queue *and* say how many it
//     dropped (asio's `stop()` abandons handlers without a count and keeps
//     them alive until the pool is destroyed; oneTBB's `cancel()` gives no
//     count; thread_pool has no discard at all). So `shutdown(kDiscard)` sets a
//     flag and then drains the pool as usual: every wrapper that starts after
//     the flag destroys its task unrun and counts it. The count is exact and
//     the tasks (their promises) are destroyed before `shutdown` returns; the
//     cost is that the third-party pool still dequeues each dropped task.
//
// Thread-safety: thread-safe.

#ifndef SERVERKIT_THREADPOOL_INTERNAL_ADAPTER_H_
#define SERVERKIT_THREADPOOL_INTERNAL_ADAPTER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "threadpool/executor.h"
#include "threadpool/internal/submit_gate.h"
#include "threadpool/internal/worker.h"
#include "threadpool/task.h"

namespace serverkit::threadpool_internal {

class AdapterCore {
 public:
  // What the third-party pool runs: a copy-free, nothrow-movable callable
  // whose call operator is const (oneTBB stores its functor as `const F`).
  class Wrapped {
   public:
    Wrapped(AdapterCore* core, Task&& task) noexcept
        : core_(core), task_(std::move(task)) {}
    Wrapped(Wrapped&&) noexcept = default;
    Wrapped& operator=(Wrapped&&) noexcept = default;

    void operator()() const { core_->Run(task_); }

   private:
    AdapterCore* core_;
    mutable Task task_;
  };

  // `owner` is the adapter, for `InTaskOf`; `name` for error messages.
  AdapterCore(const void* owner, std::string_view name)
      : owner_(owner), name_(name) {}

  // Hands `task` to `post(Wrapped&&)` unless shutdown has begun.
  template <typename Post>
  bool TrySubmit(Task& task, Post&& post) {
    if (!gate_.Enter()) return false;
    struct Leave {
      SubmitGate& gate;
      ~Leave() { gate.Leave(); }
    } leave{gate_};
    post(Wrapped(this, std::move(task)));
    return true;
  }

  // Closes the gate, waits for submitters, then calls `join()`, which must
  // return only once every task handed to the pool has been called.
  template <typename Join>
  std::size_t Shutdown(ShutdownMode mode, Join&& join) {
    if (InTaskOf(owner_)) {
      throw std::logic_error(std::string(name_) +
                             ": shutdown called from one of its tasks");
    }
    std::lock_guard<std::mutex> once(shutdown_mu_);
    if (stopped_) return 0;
    gate_.Close();
    gate_.WaitForSubmitters();
    if (mode == ShutdownMode::kDiscard) {
      discarding_.store(true, std::memory_order_release);
    }
    join();
    stopped_ = true;
    return static_cast<std::size_t>(dropped_.load(std::memory_order_acquire));
  }

  std::uint64_t task_exceptions() const {
    return exceptions_.load(std::memory_order_relaxed);
  }

 private:
  void Run(Task& task) {
    if (discarding_.load(std::memory_order_acquire)) {
      task.Reset();
      dropped_.fetch_add(1, std::memory_order_release);
      return;
    }
    RunTask(task, owner_, exceptions_);
  }

  const void* const owner_;
  const std::string_view name_;
  SubmitGate gate_;
  std::atomic<bool> discarding_{false};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> exceptions_{0};
  std::mutex shutdown_mu_;
  bool stopped_ = false;  // guarded by shutdown_mu_
};

}  // namespace serverkit::threadpool_internal

#endif  // SERVERKIT_THREADPOOL_INTERNAL_ADAPTER_H_
