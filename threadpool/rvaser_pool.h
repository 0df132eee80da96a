// -----------------------------------------------------------------------------
// threadpool/rvaser_pool.h
// -----------------------------------------------------------------------------
//
// `RvaserPool`: Debian's libthread-pool-dev (4.0.0) behind the `Executor`
// interface. Despite the package description, its <thread_pool/thread_pool.hpp>
// is not bshoshany's BS::thread_pool but Robert Vaser's `thread_pool::
// ThreadPool` (progschj's ThreadPool plus Sean Parent's task stealing): one
// mutex-guarded `std::queue<std::function<void()>>` per worker, submitters
// `try_lock` their way round the queues, workers `try_lock`-steal before
// blocking on their own queue. Its API is the constructor
// `ThreadPool(num_threads)`, `num_threads()`, and
// `Submit(f, args...) -> std::future<R>` (a `shared_ptr<packaged_task>` per
// task); the destructor runs what is queued, then joins. There is no other
// way to wait, stop or discard.
//
// So: submit is `Submit(handler)` (its future is dropped); drain destroys the
// `ThreadPool` (which runs everything queued, then joins); discard drains
// with each unstarted handler dropping its task unrun (internal/adapter.h).
//
// Thread-safety: thread-safe, per the `Executor` contract (executor.h).

#ifndef SERVERKIT_THREADPOOL_RVASER_POOL_H_
#define SERVERKIT_THREADPOOL_RVASER_POOL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <thread_pool/thread_pool.hpp>
#include <utility>

#include "threadpool/executor.h"
#include "threadpool/internal/adapter.h"
#include "threadpool/task.h"

namespace serverkit {

class RvaserPool {
 public:
  static constexpr std::string_view kName = "rvaser-thread-pool";

  explicit RvaserPool(std::size_t workers)
      : workers_(workers == 0 ? 1 : workers) {
    pool_.emplace(workers_);
  }

  RvaserPool(const RvaserPool&) = delete;
  RvaserPool& operator=(const RvaserPool&) = delete;

  ~RvaserPool() { shutdown(ShutdownMode::kDrain); }

  bool try_submit(Task&& task) {
    return core_.TrySubmit(task, [this](auto&& wrapped) {
      (void)pool_->Submit(std::move(wrapped));
    });
  }

  std::size_t shutdown(ShutdownMode mode) {
    return core_.Shutdown(mode, [this] { pool_.reset(); });
  }

  std::size_t workers() const { return workers_; }

  std::uint64_t task_exceptions() const { return core_.task_exceptions(); }

 private:
  const std::size_t workers_;
  threadpool_internal::AdapterCore core_{this, kName};
  std::optional<thread_pool::ThreadPool> pool_;
};

static_assert(Executor<RvaserPool>);

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_RVASER_POOL_H_
