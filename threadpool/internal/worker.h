// -----------------------------------------------------------------------------
// threadpool/internal/worker.h
// -----------------------------------------------------------------------------
//
// What every pool does around one task: remember which executor the calling
// thread is working for (so a pool can tell a submit or a shutdown made from
// inside one of its own tasks), run the task, count what it throws, and
// destroy it (its captured state, a promise included) on the worker.
//
// Thread-safety: thread-safe; the "current executor" is per thread.

#ifndef SERVERKIT_THREADPOOL_INTERNAL_WORKER_H_
#define SERVERKIT_THREADPOOL_INTERNAL_WORKER_H_

#include <atomic>
#include <cstdint>

#include "threadpool/task.h"

namespace serverkit::threadpool_internal {

// The executor whose task this thread is running, or nullptr.
inline thread_local const void* tls_current_executor = nullptr;

// True when the calling thread is inside a task run by `executor`.
inline bool InTaskOf(const void* executor) noexcept {
  return executor != nullptr && tls_current_executor == executor;
}

// Runs `task` for `executor`; an exception it throws is counted in
// `exceptions` and goes no further, so the worker survives. The task is left
// empty. Returns false if the task threw.
inline bool RunTask(Task& task, const void* executor,
                    std::atomic<std::uint64_t>& exceptions) noexcept {
  const void* saved = tls_current_executor;
  tls_current_executor = executor;
  bool ok = true;
  try {
    task();
  } catch (...) {
    exceptions.fetch_add(1, std::memory_order_relaxed);
    ok = false;
  }
  task.Reset();
  tls_current_executor = saved;
  return ok;
}

}  // namespace serverkit::threadpool_internal

#endif  // SERVERKIT_THREADPOOL_INTERNAL_WORKER_H_
