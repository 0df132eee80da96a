// -----------------------------------------------------------------------------
// threadpool/work_stealing_pool.h
// -----------------------------------------------------------------------------
//
// `WorkStealingPool`: one task deque per worker ("lane"); a worker that finds
// its own lane empty steals from the others before it parks.
//
//   - A task submitted from inside a task of this pool goes to the back of
//     the running worker's own lane (no shared state touched: fan-out from a
//     task stays local until someone idle steals it).
//   - A task from any other thread goes to the lanes round-robin, with a
//     per-thread cursor (no shared counter).
//   - A worker pops the front of its own lane (FIFO: a flood of small tasks
//     does not starve the oldest); a thief takes the front of a victim's lane
//     too, scanning the lanes after its own. Each lane is a `std::deque` under
//     its own mutex, with an atomic size that lets a scan skip empty lanes
//     without locking. (A lock-free Chase-Lev deque would save the lock on the
//     owner's path; this version keeps the structure simple and measurable.)
//   - Idle workers park on one `FutexWait<>` (queues/wait_strategy.h); a
//     submit wakes one, which scans every lane.
//
// Shutdown: as `QueuePool` (a `SubmitGate`, then a stop flag; drain pops until
// every lane is empty; discard counts what is left after the workers exit).
//
// `steals()` counts tasks taken from another worker's lane.
//
// Thread-safety: thread-safe, per the `Executor` contract (executor.h).
//
// Memory ordering: a lane's contents are guarded by its mutex. Its `size` is
// stored (relaxed) under the mutex and read (relaxed) without it, only to skip
// lanes: a submitter updates `size` before `FutexWait::notify_one` (a seq_cst
// fence and a load of the waiter count), and a parking worker announces
// itself and fences before its last scan, so either the submitter wakes it or
// its last scan sees the new size.

#ifndef SERVERKIT_THREADPOOL_WORK_STEALING_POOL_H_
#define SERVERKIT_THREADPOOL_WORK_STEALING_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base/cache_line.h"
#include "queues/wait_strategy.h"
#include "threadpool/executor.h"
#include "threadpool/internal/submit_gate.h"
#include "threadpool/internal/worker.h"
#include "threadpool/task.h"

namespace serverkit {

class WorkStealingPool {
 public:
  static constexpr std::string_view kName = "work-stealing";

  explicit WorkStealingPool(std::size_t workers)
      : lanes_count_(workers == 0 ? 1 : workers),
        lanes_(new Lane[lanes_count_]) {
    threads_.reserve(lanes_count_);
    for (std::size_t i = 0; i < lanes_count_; ++i) {
      threads_.emplace_back([this, i] { WorkerLoop(i); });
    }
  }

  WorkStealingPool(const WorkStealingPool&) = delete;
  WorkStealingPool& operator=(const WorkStealingPool&) = delete;

  ~WorkStealingPool() { shutdown(ShutdownMode::kDrain); }

  bool try_submit(Task&& task) {
    if (!gate_.Enter()) return false;
    std::size_t lane;
    if (threadpool_internal::InTaskOf(this)) {
      lane = tls_lane_;
    } else {
      thread_local std::size_t cursor =
          std::hash<std::thread::id>{}(std::this_thread::get_id());
      lane = cursor++ % lanes_count_;
    }
    Push(lanes_[lane], std::move(task));
    wake_.notify_one();
    gate_.Leave();
    return true;
  }

  std::size_t shutdown(ShutdownMode mode) {
    if (threadpool_internal::InTaskOf(this)) {
      throw std::logic_error(
          "WorkStealingPool::shutdown called from one of its tasks");
    }
    std::lock_guard<std::mutex> once(shutdown_mu_);
    if (stopped_) return 0;
    gate_.Close();
    gate_.WaitForSubmitters();
    stop_.store(mode == ShutdownMode::kDrain ? kDrain : kDiscard,
                std::memory_order_release);
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
    stopped_ = true;
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < lanes_count_; ++i) {
      Task task;
      while (Pop(lanes_[i], task)) {
        if (mode == ShutdownMode::kDrain) {
          threadpool_internal::RunTask(task, this, exceptions_);
        } else {
          task.Reset();
          ++dropped;
        }
      }
    }
    return dropped;
  }

  std::size_t workers() const { return lanes_count_; }

  std::uint64_t task_exceptions() const {
    return exceptions_.load(std::memory_order_relaxed);
  }

  // Tasks a worker took from another worker's lane, so far.
  std::uint64_t steals() const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < lanes_count_; ++i) {
      n += lanes_[i].steals.load(std::memory_order_relaxed);
    }
    return n;
  }

 private:
  enum : int { kRunning = 0, kDrain = 1, kDiscard = 2 };

  struct alignas(kCacheLineSize) Lane {
    std::mutex mu;
    std::deque<Task> tasks;                // guarded by mu
    std::atomic<std::size_t> size{0};      // written under mu; a hint outside
    std::atomic<std::uint64_t> steals{0};  // written by the lane's worker
  };
  static_assert(alignof(Lane) == kCacheLineSize);

  static void Push(Lane& lane, Task&& task) {
    std::lock_guard<std::mutex> lock(lane.mu);
    lane.tasks.push_back(std::move(task));
    lane.size.store(lane.tasks.size(), std::memory_order_relaxed);
  }

  static bool Pop(Lane& lane, Task& out) {
    if (lane.size.load(std::memory_order_relaxed) == 0) return false;
    std::lock_guard<std::mutex> lock(lane.mu);
    if (lane.tasks.empty()) return false;
    out = std::move(lane.tasks.front());
    lane.tasks.pop_front();
    lane.size.store(lane.tasks.size(), std::memory_order_relaxed);
    return true;
  }

  bool FindWork(std::size_t self, Task& out) {
    if (Pop(lanes_[self], out)) return true;
    for (std::size_t i = 1; i < lanes_count_; ++i) {
      if (Pop(lanes_[(self + i) % lanes_count_], out)) {
        lanes_[self].steals.fetch_add(1, std::memory_order_relaxed);
        return true;
      }
    }
    return false;
  }

  void WorkerLoop(std::size_t self) {
    tls_lane_ = self;
    Task task;
    for (;;) {
      bool found = false;
      wake_.wait_until([&] {
        if (stop_.load(std::memory_order_acquire) == kDiscard) return true;
        found = FindWork(self, task);
        return found || stop_.load(std::memory_order_acquire) != kRunning;
      });
      if (!found) {
        if (stop_.load(std::memory_order_acquire) == kDiscard) return;
        // Draining: every accepted push is visible now; one more scan.
        found = FindWork(self, task);
        if (!found) return;
      }
      threadpool_internal::RunTask(task, this, exceptions_);
    }
  }

  // The lane of the worker running on this thread (valid inside our tasks).
  static inline thread_local std::size_t tls_lane_ = 0;

  const std::size_t lanes_count_;
  std::unique_ptr<Lane[]> lanes_;
  FutexWait<> wake_;
  threadpool_internal::SubmitGate gate_;
  alignas(kCacheLineSize) std::atomic<int> stop_{kRunning};
  std::atomic<std::uint64_t> exceptions_{0};
  std::mutex shutdown_mu_;
  bool stopped_ = false;  // guarded by shutdown_mu_
  std::vector<std::thread> threads_;
};

static_assert(Executor<WorkStealingPool>);

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_WORK_STEALING_POOL_H_
