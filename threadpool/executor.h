// -----------------------------------------------------------------------------
// threadpool/executor.h
// -----------------------------------------------------------------------------
//
// The one interface every thread pool in this project meets, as a C++20
// concept, and the two ways to submit work through it.
//
// An `Executor` runs `Task`s (threadpool/task.h) on its own worker threads:
//
//   - `E(std::size_t workers)` starts it with that many workers (0 counts as
//     1). `std::size_t workers() const` reports the number.
//   - `bool try_submit(Task&& task)` queues `task` and returns true, or returns
//     false once shutdown has begun and leaves `task` untouched (the caller
//     may run it, drop it, or report it). It never throws for that reason and
//     never hangs: a submitter blocked on a full bounded queue is released
//     with false when shutdown begins. A submit made from inside one of the
//     executor's own tasks is never blocked by a full queue: the task runs in
//     place instead (caller-runs), so a bounded pool cannot deadlock on itself.
//   - `std::size_t shutdown(ShutdownMode mode)`: closes the door (every later
//     `try_submit` fails, from any thread, tasks included), then
//       kDrain:   runs everything already queued, waits for it, stops the
//                 workers, and returns 0;
//       kDiscard: lets the running tasks finish, destroys every queued task
//                 that has not started (a `SubmitWithFuture` future then holds
//                 `std::future_error(broken_promise)`), stops the workers, and
//                 returns exactly how many it dropped.
//     Every accepted task is either run or counted by `kDiscard`, never both,
//     never neither. A second `shutdown` returns 0 at once. Calling it from a
//     task of the same executor throws `std::logic_error` (it would wait for
//     itself). The destructor calls `shutdown(kDrain)` if nobody did.
//   - `std::uint64_t task_exceptions() const`: how many tasks ended with an
//     exception. A throwing task does not kill its worker.
//   - `static constexpr std::string_view kName`: the short name used in test
//     and benchmark names ("mutex", "asio", ...).
//
// Ordering: none promised. Pools with one FIFO queue start tasks in
// submission order; work-stealing and third-party pools may not.
//
// Thread-safety: `try_submit`, `workers`, `task_exceptions` are thread-safe;
// `shutdown` is thread-safe (concurrent calls: one does the work, the others
// wait for it to finish and return 0). Construction and destruction are
// not thread-safe.
//
// Submitting (free functions, like `asio::post`, so that every executor gets
// them without repeating them):
//
//   Submit(pool, f);                    // void; throws ExecutorShutDownError
//   auto fut = SubmitWithFuture(pool, f);  // std::future<R>; throws likewise
//
// `SubmitWithFuture` stores f's result or exception in the future; an
// exception is also counted by the pool (`task_exceptions`).

#ifndef SERVERKIT_THREADPOOL_EXECUTOR_H_
#define SERVERKIT_THREADPOOL_EXECUTOR_H_

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "threadpool/task.h"

namespace serverkit {

enum class ShutdownMode {
  kDrain,    // run everything queued, then stop
  kDiscard,  // drop what is queued (report how many), then stop
};

// Thrown by `Submit` / `SubmitWithFuture` after shutdown has begun.
class ExecutorShutDownError : public std::logic_error {
 public:
  explicit ExecutorShutDownError(std::string_view executor)
      : std::logic_error(std::string("submit after shutdown of executor '") +
                         std::string(executor) + "'") {}
};

// (clang-format 14 flattens requires-expressions and splits the
// requires-clauses below at `&>`, as if it were a comparison.)
// clang-format off
template <typename E>
concept Executor =
    std::constructible_from<E, std::size_t> &&
    requires {
      { E::kName } -> std::convertible_to<std::string_view>;
    } &&
    requires(E& e, const E& ce, Task&& task, ShutdownMode mode) {
      { e.try_submit(std::move(task)) } -> std::same_as<bool>;
      { e.shutdown(mode) } -> std::same_as<std::size_t>;
      { ce.workers() } -> std::same_as<std::size_t>;
      { ce.task_exceptions() } -> std::same_as<std::uint64_t>;
    };

// Submits `f` (any `void()`-callable; a result is ignored) to `e`.
// Throws `ExecutorShutDownError` after shutdown has begun.
template <Executor E, typename F>
  requires std::invocable<std::decay_t<F>&>
void Submit(E& e, F&& f) {
  Task task(std::forward<F>(f));
  if (!e.try_submit(std::move(task))) throw ExecutorShutDownError(E::kName);
}

// Submits `f` and returns a future for its result (or its exception).
// Throws `ExecutorShutDownError` after shutdown has begun.
template <Executor E, typename F>
  requires std::invocable<std::decay_t<F>&>
auto SubmitWithFuture(E& e, F&& f)
    -> std::future<std::invoke_result_t<std::decay_t<F>&>> {
  using R = std::invoke_result_t<std::decay_t<F>&>;
  std::promise<R> promise;
  std::future<R> future = promise.get_future();
  Task task([promise = std::move(promise),
             fn = std::decay_t<F>(std::forward<F>(f))]() mutable {
    try {
      if constexpr (std::is_void_v<R>) {
        std::invoke(fn);
        promise.set_value();
      } else {
        promise.set_value(std::invoke(fn));
      }
    } catch (...) {
      promise.set_exception(std::current_exception());
      throw;  // the pool counts it too
    }
  });
  if (!e.try_submit(std::move(task))) throw ExecutorShutDownError(E::kName);
  return future;
}
// clang-format on

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_EXECUTOR_H_
