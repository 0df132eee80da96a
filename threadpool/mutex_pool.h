// -----------------------------------------------------------------------------
// threadpool/mutex_pool.h
// -----------------------------------------------------------------------------
//
// `MutexPool`: muduo's `ThreadPool`, the reference pool. One `std::deque` of
// tasks, one mutex, two condition variables (`not_empty_` for workers,
// `not_full_` for submitters), and an optional bound on the queue
// (`max_queue`, 0 = unbounded) that blocks submitters while the queue is full.
//
// Differences from muduo's:
//   - muduo's `stop()` wakes `notEmpty_` only, so a `run()` blocked on a full
//     queue at that moment sleeps on `notFull_` forever (and its task would be
//     pushed into a pool nobody drains; chenshuo/muduo issue 458). Here
//     `shutdown` wakes both conditions and a blocked submitter returns false
//     with its task untouched.
//   - muduo's `stop()` drops what is still queued, silently (muduo issue 45);
//     `shutdown(kDrain)` runs it and `shutdown(kDiscard)` reports how many
//     tasks it dropped.
//   - A task that throws is counted; muduo's worker aborts the process.
//   - A task that submits to its own full pool runs the new task in place
//     instead of blocking (every worker blocked on `not_full_` would deadlock).
//   - Condition variables are notified after the mutex is released.
//
// Thread-safety: thread-safe, per the `Executor` contract (executor.h).

#ifndef SERVERKIT_THREADPOOL_MUTEX_POOL_H_
#define SERVERKIT_THREADPOOL_MUTEX_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "threadpool/executor.h"
#include "threadpool/internal/worker.h"
#include "threadpool/task.h"

namespace serverkit {

class MutexPool {
 public:
  static constexpr std::string_view kName = "mutex";

  explicit MutexPool(std::size_t workers, std::size_t max_queue = 0)
      : max_queue_(max_queue) {
    const std::size_t n = workers == 0 ? 1 : workers;
    threads_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      threads_.emplace_back([this] { WorkerLoop(); });
    }
  }

  MutexPool(const MutexPool&) = delete;
  MutexPool& operator=(const MutexPool&) = delete;

  ~MutexPool() { shutdown(ShutdownMode::kDrain); }

  bool try_submit(Task&& task) {
    std::unique_lock<std::mutex> lock(mu_);
    if (max_queue_ > 0 && !closed_ && queue_.size() >= max_queue_) {
      if (threadpool_internal::InTaskOf(this)) {
        lock.unlock();
        threadpool_internal::RunTask(task, this, exceptions_);
        return true;
      }
      not_full_.wait(lock,
                     [&] { return closed_ || queue_.size() < max_queue_; });
    }
    if (closed_) return false;
    queue_.push_back(std::move(task));
    lock.unlock();
    not_empty_.notify_one();
    return true;
  }

  std::size_t shutdown(ShutdownMode mode) {
    if (threadpool_internal::InTaskOf(this)) {
      throw std::logic_error(
          "MutexPool::shutdown called from one of its tasks");
    }
    std::lock_guard<std::mutex> once(shutdown_mu_);
    if (stopped_) return 0;
    std::deque<Task> dropped;
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
      if (mode == ShutdownMode::kDiscard) dropped.swap(queue_);
    }
    not_empty_.notify_all();
    not_full_.notify_all();
    for (std::thread& t : threads_) t.join();
    stopped_ = true;
    return dropped.size();  // destroyed here: their futures break
  }

  std::size_t workers() const { return threads_.size(); }

  std::uint64_t task_exceptions() const {
    return exceptions_.load(std::memory_order_relaxed);
  }

  // 0 when unbounded.
  std::size_t max_queue() const { return max_queue_; }

 private:
  void WorkerLoop() {
    for (;;) {
      Task task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        not_empty_.wait(lock, [&] { return !queue_.empty() || closed_; });
        if (queue_.empty()) return;  // closed and drained
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      if (max_queue_ > 0) not_full_.notify_one();
      threadpool_internal::RunTask(task, this, exceptions_);
    }
  }

  const std::size_t max_queue_;
  std::mutex mu_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<Task> queue_;  // guarded by mu_
  bool closed_ = false;     // guarded by mu_
  std::atomic<std::uint64_t> exceptions_{0};
  std::mutex shutdown_mu_;
  bool stopped_ = false;  // guarded by shutdown_mu_
  std::vector<std::thread> threads_;
};

static_assert(Executor<MutexPool>);

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_MUTEX_POOL_H_
