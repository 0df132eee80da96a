// -----------------------------------------------------------------------------
// queues/mutex_queue.h
// -----------------------------------------------------------------------------
//
// `MutexQueue<T>`: a `std::deque` under one `std::mutex`. The trivially correct
// reference every other queue is tested against, and the baseline of the
// sweep. Unbounded; the constructor's capacity is ignored.
//
// Exceptions (queues/queue.h): survives a throwing move. `push_back` at the
// end of a deque has no effect if it throws, and a pop moves the item out
// before it removes it.
//
// Thread-safety: thread-safe (MPMC).

#ifndef SERVERKIT_QUEUES_MUTEX_QUEUE_H_
#define SERVERKIT_QUEUES_MUTEX_QUEUE_H_

#include <cstddef>
#include <deque>
#include <mutex>
#include <string_view>
#include <utility>

#include "queues/queue.h"

namespace serverkit {

template <typename T>
class MutexQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "mutex";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = false;

  explicit MutexQueue(std::size_t /*capacity*/) {}
  MutexQueue(const MutexQueue&) = delete;
  MutexQueue& operator=(const MutexQueue&) = delete;

  bool try_push(T&& v) {
    std::lock_guard<std::mutex> lock(mu_);
    items_.push_back(std::move(v));
    return true;
  }

  bool try_pop(T& out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (items_.empty()) return false;
    out = std::move(items_.front());  // if it throws, the item stays
    items_.pop_front();
    return true;
  }

  std::size_t capacity() const { return 0; }

 private:
  std::mutex mu_;
  std::deque<T> items_;  // guarded by mu_
};

static_assert(Queue<MutexQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_MUTEX_QUEUE_H_
