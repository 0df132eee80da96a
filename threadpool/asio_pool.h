// -----------------------------------------------------------------------------
// threadpool/asio_pool.h
// -----------------------------------------------------------------------------
//
// `AsioPool`: `boost::asio::thread_pool` (Debian's libboost-dev, Boost 1.74)
// behind the `Executor` interface. The baseline the pool sweep compares every
// pool with.
//
// Submit is `boost::asio::post(pool, handler)`; drain is
// `boost::asio::thread_pool::join()` (it releases the pool's own work count,
// so the workers return once the queue is empty). Discard cannot use asio's
// `stop()`, which abandons handlers without a count and keeps them alive until
// the pool is destroyed; the adapter drains instead, with each not-yet-started
// handler dropping its task unrun (internal/adapter.h). Exceptions are caught
// by the adapter: one escaping an asio handler would leave the worker thread's
// `run()` and end the process.
//
// Thread-safety: thread-safe, per the `Executor` contract (executor.h).

#ifndef SERVERKIT_THREADPOOL_ASIO_POOL_H_
#define SERVERKIT_THREADPOOL_ASIO_POOL_H_

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "threadpool/executor.h"
#include "threadpool/internal/adapter.h"
#include "threadpool/task.h"

namespace serverkit {

class AsioPool {
 public:
  static constexpr std::string_view kName = "asio";

  explicit AsioPool(std::size_t workers)
      : workers_(workers == 0 ? 1 : workers), pool_(workers_) {}

  AsioPool(const AsioPool&) = delete;
  AsioPool& operator=(const AsioPool&) = delete;

  ~AsioPool() { shutdown(ShutdownMode::kDrain); }

  bool try_submit(Task&& task) {
    return core_.TrySubmit(task, [this](auto&& wrapped) {
      boost::asio::post(pool_, std::move(wrapped));
    });
  }

  std::size_t shutdown(ShutdownMode mode) {
    return core_.Shutdown(mode, [this] { pool_.join(); });
  }

  std::size_t workers() const { return workers_; }

  std::uint64_t task_exceptions() const { return core_.task_exceptions(); }

 private:
  const std::size_t workers_;
  threadpool_internal::AdapterCore core_{this, kName};
  boost::asio::thread_pool pool_;
};

static_assert(Executor<AsioPool>);

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_ASIO_POOL_H_
