// -----------------------------------------------------------------------------
// threadpool/queue_pool.h
// -----------------------------------------------------------------------------
//
// `QueuePool<Q, W>`: a pool whose workers pull `Task`s from any
// multi-producer multi-consumer `Queue` of queues/all_queues.h, and park
// through a wait strategy of queues/wait_strategy.h (`FutexWait<>` by default:
// spin a little, then sleep on a futex). It is what turns the queue sweep's
// ranking into a pool ranking: the same pool, only the queue changes.
//
//   QueuePool<MoodycamelQueue<Task>> pool(4);
//
// Submitters push with the queue's plain `try_push` (no producer token: a
// submitter may be any thread); each worker pops through its own
// `Consumer<Q>`, so queues with consumer tokens use them. A bounded queue
// blocks submitters while it is full (they wait on a second wait strategy),
// except a task submitting to its own full pool, which runs the new task in
// place. The queue's own blocking operations (moodycamel-blocking,
// atomic-queue-optimist) are not used: a worker parked inside a queue could
// not be woken for shutdown, so in a pool those queues behave as their
// non-blocking twins.
//
// Shutdown goes through a `SubmitGate` (internal/submit_gate.h): close the
// gate, wake blocked submitters, wait until no submitter is inside; from then
// on the queue only shrinks. Drain: workers pop until the queue is empty.
// Discard: workers stop after their current task, and `shutdown` pops and
// counts what is left once they have exited. Anything a worker could not see
// (a queue whose `try_pop` may fail spuriously) is run by `shutdown` itself
// in drain mode, so "drain runs everything" holds for every queue.
//
// Thread-safety: thread-safe, per the `Executor` contract (executor.h).
//
// Memory ordering: a task is published by the queue (its push and pop
// synchronise); the stop flag is stored with release after
// `WaitForSubmitters` and read with acquire by workers, which then see every
// accepted push.

#ifndef SERVERKIT_THREADPOOL_QUEUE_POOL_H_
#define SERVERKIT_THREADPOOL_QUEUE_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/cache_line.h"
#include "base/joined_name.h"
#include "queues/queue.h"
#include "queues/wait_strategy.h"
#include "threadpool/executor.h"
#include "threadpool/internal/submit_gate.h"
#include "threadpool/internal/worker.h"
#include "threadpool/task.h"

namespace serverkit {

namespace threadpool_internal {
inline constexpr std::string_view kQueuePoolPrefix = "queue-";
inline constexpr std::string_view kDash = "-";

template <typename Q, typename W>
constexpr std::string_view QueuePoolName() {
  if constexpr (std::is_same_v<W, FutexWait<>>) {
    return JoinedName<kQueuePoolPrefix, Q::kName>::value;
  } else {
    return JoinedName<kQueuePoolPrefix, Q::kName, kDash, W::kName>::value;
  }
}
}  // namespace threadpool_internal

// True for queues a pool can use: they hold `Task`s and allow many producers
// (submitters) and many consumers (workers).
template <typename Q>
concept PoolQueue = Queue<Q> && std::same_as<typename Q::value_type, Task> &&
                    Q::kTopology == Topology::kMpmc;

template <PoolQueue Q, typename W = FutexWait<>>
class QueuePool {
 public:
  static constexpr std::string_view kName =
      threadpool_internal::QueuePoolName<Q, W>();
  static constexpr std::size_t kDefaultCapacity = 8192;
  using queue_type = Q;

  // `capacity` is the bound of a bounded queue (submitters block beyond it)
  // and a preallocation hint for an unbounded one.
  explicit QueuePool(std::size_t workers,
                     std::size_t capacity = kDefaultCapacity)
      : queue_(capacity) {
    const std::size_t n = workers == 0 ? 1 : workers;
    threads_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      threads_.emplace_back([this] { WorkerLoop(); });
    }
  }

  QueuePool(const QueuePool&) = delete;
  QueuePool& operator=(const QueuePool&) = delete;

  ~QueuePool() { shutdown(ShutdownMode::kDrain); }

  bool try_submit(Task&& task) {
    if (!gate_.Enter()) return false;
    if (!queue_.try_push(std::move(task))) {
      // Full (bounded queues only).
      if (threadpool_internal::InTaskOf(this)) {
        gate_.Leave();
        threadpool_internal::RunTask(task, this, exceptions_);
        return true;
      }
      bool pushed = false;
      not_full_.wait_until([&] {
        if (gate_.closed()) return true;
        pushed = queue_.try_push(std::move(task));
        return pushed;
      });
      if (!pushed) {
        gate_.Leave();
        return false;
      }
    }
    not_empty_.notify_one();
    gate_.Leave();
    return true;
  }

  std::size_t shutdown(ShutdownMode mode) {
    if (threadpool_internal::InTaskOf(this)) {
      throw std::logic_error(
          "QueuePool::shutdown called from one of its tasks");
    }
    std::lock_guard<std::mutex> once(shutdown_mu_);
    if (stopped_) return 0;
    gate_.Close();
    not_full_.notify_all();
    gate_.WaitForSubmitters();
    stop_.store(mode == ShutdownMode::kDrain ? kDrain : kDiscard,
                std::memory_order_release);
    not_empty_.notify_all();
    for (std::thread& t : threads_) t.join();
    stopped_ = true;
    // Whatever is left: dropped (discard), or run here (drain; see above).
    std::size_t dropped = 0;
    Task task;
    while (queue_.try_pop(task)) {
      if (mode == ShutdownMode::kDrain) {
        threadpool_internal::RunTask(task, this, exceptions_);
      } else {
        task.Reset();
        ++dropped;
      }
    }
    return dropped;
  }

  std::size_t workers() const { return threads_.size(); }

  std::uint64_t task_exceptions() const {
    return exceptions_.load(std::memory_order_relaxed);
  }

 private:
  enum : int { kRunning = 0, kDrain = 1, kDiscard = 2 };

  void WorkerLoop() {
    Consumer<Q> consumer(queue_);
    Task task;
    for (;;) {
      bool popped = false;
      not_empty_.wait_until([&] {
        if (stop_.load(std::memory_order_acquire) == kDiscard) return true;
        popped = consumer.try_pop(task);
        return popped || stop_.load(std::memory_order_acquire) != kRunning;
      });
      if (!popped) {
        if (stop_.load(std::memory_order_acquire) == kDiscard) return;
        // Draining: the stop flag was read after the failed pop; look again
        // now that every accepted push is visible.
        popped = consumer.try_pop(task);
        if (!popped) return;
      }
      if constexpr (Q::kBounded) not_full_.notify_one();
      threadpool_internal::RunTask(task, this, exceptions_);
    }
  }

  Q queue_;
  W not_empty_;
  W not_full_;
  threadpool_internal::SubmitGate gate_;
  alignas(kCacheLineSize) std::atomic<int> stop_{kRunning};
  std::atomic<std::uint64_t> exceptions_{0};
  std::mutex shutdown_mu_;
  bool stopped_ = false;  // guarded by shutdown_mu_
  std::vector<std::thread> threads_;
};

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_QUEUE_POOL_H_
