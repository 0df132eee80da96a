// -----------------------------------------------------------------------------
// queues/swap_vector_queue.h
// -----------------------------------------------------------------------------
//
// `SwapVectorQueue<T>`: the pending-functor queue of muduo's and evpp's
// EventLoop. Producers append to a `std::vector` under a mutex; the consumer
// swaps the whole vector out under the lock and then drains its private copy
// with no lock at all, so it takes the lock once per batch, not once per item.
// Unbounded; the constructor's capacity is the initial reservation.
//
// Exceptions (queues/queue.h): rejects elements whose move may throw. A
// `push_back` that reallocates moves every queued item, and std::vector
// cannot undo a move-only item's move that throws part way.
//
// Thread-safety: `try_push` is thread-safe; `try_pop` must be called by one
// consumer thread at a time (MPSC).

#ifndef SERVERKIT_QUEUES_SWAP_VECTOR_QUEUE_H_
#define SERVERKIT_QUEUES_SWAP_VECTOR_QUEUE_H_

#include <cstddef>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "queues/queue.h"

namespace serverkit {

template <typename T>
class SwapVectorQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "swap-vector";
  static constexpr Topology kTopology = Topology::kMpsc;
  static constexpr bool kBounded = false;
  static constexpr bool kRequiresNothrowMove = true;

  explicit SwapVectorQueue(std::size_t capacity) requires NothrowMovable<T> {
    pending_.reserve(capacity);
    local_.reserve(capacity);
  }
  SwapVectorQueue(const SwapVectorQueue&) = delete;
  SwapVectorQueue& operator=(const SwapVectorQueue&) = delete;

  bool try_push(T&& v) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(std::move(v));
    return true;
  }

  bool try_pop(T& out) {
    if (next_ == local_.size()) {
      local_.clear();  // destroys the moved-from items of the last batch
      next_ = 0;
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) return false;
      pending_.swap(local_);
    }
    out = std::move(local_[next_++]);
    return true;
  }

  std::size_t capacity() const { return 0; }

 private:
  std::mutex mu_;
  std::vector<T> pending_;  // guarded by mu_
  std::vector<T> local_;    // consumer-only: the swapped-out batch
  std::size_t next_ = 0;    // consumer-only: next item of local_
};

static_assert(Queue<SwapVectorQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_SWAP_VECTOR_QUEUE_H_
