// -----------------------------------------------------------------------------
// queues/tbb_queues.h
// -----------------------------------------------------------------------------
//
// Adapters for oneTBB 2021.8 (Debian's libtbb-dev):
//
//   - `TbbQueue<T>`: `tbb::concurrent_queue`, unbounded MPMC.
//   - `TbbBoundedQueue<T>`: `tbb::concurrent_bounded_queue` with
//     `set_capacity(capacity)`; its native `push` / `pop` block (TBB parks
//     waiters in its own monitor).
//
// Capacity: `TbbBoundedQueue` holds exactly the capacity asked for; 0 throws
// std::invalid_argument. `TbbQueue` ignores it.
//
// Exceptions (queues/queue.h): both reject elements whose move may throw. A
// push whose move throws is skipped cleanly, but a pop destroys the item and
// moves past it even when the move into `out` throws (the item is lost).
//
// Out of memory: `TbbQueue::try_push` throws std::bad_alloc, as the
// contract asks, but oneTBB's queue is broken afterwards: a later pop of an
// item pushed before the failure dies of SIGSEGV inside micro_queue::pop
// (seen under an address-space cap in queue_test). It declares
// kUsableAfterBadAlloc = false.
//
// Thread-safety: thread-safe (MPMC).

#ifndef SERVERKIT_QUEUES_TBB_QUEUES_H_
#define SERVERKIT_QUEUES_TBB_QUEUES_H_

#include <oneapi/tbb/concurrent_queue.h>

#include <cstddef>
#include <limits>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

#include "base/sanitizers.h"
#include "queues/queue.h"

namespace serverkit {

namespace queues_internal {
// oneTBB's allocator recycles queue pages inside the uninstrumented libtbb.so,
// where ThreadSanitizer cannot see the order; under TSan the pages come from
// the (intercepted) standard allocator instead.
template <typename T>
using TbbAllocator =
    std::conditional_t<kUnderTsan, std::allocator<T>,
                       oneapi::tbb::cache_aligned_allocator<T>>;
}  // namespace queues_internal

template <typename T>
class TbbQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "tbb";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = false;
  static constexpr bool kRequiresNothrowMove = true;   // see Exceptions above
  static constexpr bool kUsableAfterBadAlloc = false;  // see Out of memory

  explicit TbbQueue(std::size_t /*capacity*/) requires NothrowMovable<T> {}

  bool try_push(T&& v) {
    q_.push(std::move(v));
    return true;
  }
  bool try_pop(T& out) { return q_.try_pop(out); }
  std::size_t capacity() const { return 0; }

 private:
  oneapi::tbb::concurrent_queue<T, queues_internal::TbbAllocator<T>> q_;
};

template <typename T>
class TbbBoundedQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "tbb-bounded";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = true;
  static constexpr bool kRequiresNothrowMove = true;  // see Exceptions above
  // TBB takes a signed capacity (negative: unbounded).
  static constexpr std::size_t kMaxCapacity =
      std::numeric_limits<std::ptrdiff_t>::max();

  explicit TbbBoundedQueue(std::size_t capacity) requires NothrowMovable<T>
      : capacity_(queues_internal::CheckedCapacity(kName, capacity,
                                                   kMaxCapacity)) {
    q_.set_capacity(static_cast<std::ptrdiff_t>(capacity_));
  }

  bool try_push(T&& v) { return q_.try_push(std::move(v)); }
  bool try_pop(T& out) { return q_.try_pop(out); }
  void push(T&& v) { q_.push(std::move(v)); }
  void pop(T& out) { q_.pop(out); }
  std::size_t capacity() const { return capacity_; }

 private:
  const std::size_t capacity_;
  oneapi::tbb::concurrent_bounded_queue<T, queues_internal::TbbAllocator<T>> q_;
};

static_assert(Queue<TbbQueue<int>>);
static_assert(HasNativeBlocking<TbbBoundedQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_TBB_QUEUES_H_
