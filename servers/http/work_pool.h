// -----------------------------------------------------------------------------
// servers/http/work_pool.h
// -----------------------------------------------------------------------------
//
// `WorkPool`: one thread pool of threadpool/all_pools.h (`AllPools`), chosen
// by its kName at run time, behind a small virtual interface, so that the
// HTTP server is compiled once rather than once per pool. `MakeWorkPool`
// is the factory (as servers/common's TaskQueueFactory is for task queues).
//
// It counts the submits accepted and those that failed (the pool had begun
// to shut down), for the server's stop line.
//
// Thread-safety: `try_submit` and the counters are thread-safe; `shutdown`
// is thread-safe as Executor's (threadpool/executor.h) is.

#ifndef SERVERKIT_SERVERS_HTTP_WORK_POOL_H_
#define SERVERKIT_SERVERS_HTTP_WORK_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "threadpool/executor.h"
#include "threadpool/task.h"

namespace serverkit::http {

class WorkPool {
 public:
  virtual ~WorkPool() = default;
  virtual std::string_view name() const = 0;
  virtual std::size_t workers() const = 0;
  // Executor::shutdown.
  virtual std::size_t shutdown(ShutdownMode mode) = 0;
  virtual std::uint64_t task_exceptions() const = 0;

  // Executor::try_submit (false once shutdown has begun, `task` untouched),
  // counted.
  bool try_submit(Task&& task) {
    if (do_try_submit(std::move(task))) {
      submitted_.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    failed_submits_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  // Tasks accepted; after shutdown(kDrain), every one of them has run.
  std::uint64_t submitted() const {
    return submitted_.load(std::memory_order_relaxed);
  }
  std::uint64_t failed_submits() const {
    return failed_submits_.load(std::memory_order_relaxed);
  }

 private:
  virtual bool do_try_submit(Task&& task) = 0;

  // Memory ordering: relaxed; counters read for a report.
  std::atomic<std::uint64_t> submitted_{0};
  std::atomic<std::uint64_t> failed_submits_{0};
};

// Every name MakeWorkPool takes: the kName of each pool of AllPools.
std::vector<std::string> WorkPoolNames();

// The pool named `name` with `threads` workers, or null when no pool has
// that name.
std::unique_ptr<WorkPool> MakeWorkPool(std::string_view name,
                                       std::size_t threads);

}  // namespace serverkit::http

#endif  // SERVERKIT_SERVERS_HTTP_WORK_POOL_H_
