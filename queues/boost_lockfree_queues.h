// -----------------------------------------------------------------------------
// queues/boost_lockfree_queues.h
// -----------------------------------------------------------------------------
//
// Adapters for Boost.Lockfree (Debian's libboost-dev, 1.74):
//
//   - `BoostLockfreeQueue<T>`: `boost::lockfree::queue`, MPMC, a linked list
//     over a free list of nodes preallocated for `capacity` items. We push
//     with `bounded_push`, so it never allocates after construction and is
//     bounded.
//   - `BoostSpscQueue<T>`: `boost::lockfree::spsc_queue`, SPSC ring with a
//     runtime capacity.
//
// Both hold only trivially copyable values; other types are boxed (see
// internal/boxed.h).
//
// Capacity: exactly the capacity asked for (Boost allocates one node or slot
// more); 0 throws std::invalid_argument.
//
// Exceptions (queues/queue.h): both reject elements whose move may throw.
// A pop takes the box out of the queue before it moves the value out, and a
// full push moves the value back out of its box: a move that throws there
// would lose the item.
//
// Thread-safety: as each `kTopology` says.

#ifndef SERVERKIT_QUEUES_BOOST_LOCKFREE_QUEUES_H_
#define SERVERKIT_QUEUES_BOOST_LOCKFREE_QUEUES_H_

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/spsc_queue.hpp>
#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>

#include "queues/internal/boxed.h"
#include "queues/queue.h"

namespace serverkit {

template <typename T>
class BoostLockfreeQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "boost-lockfree";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = true;
  static constexpr bool kRequiresNothrowMove = true;  // see Exceptions above
  // Boost adds one to the capacity.
  static constexpr std::size_t kMaxCapacity =
      std::numeric_limits<std::size_t>::max() - 1;

  explicit BoostLockfreeQueue(std::size_t capacity) requires NothrowMovable<T>
      : capacity_(queues_internal::CheckedCapacity(kName, capacity,
                                                   kMaxCapacity)),
        q_(capacity_) {}
  BoostLockfreeQueue(const BoostLockfreeQueue&) = delete;
  BoostLockfreeQueue& operator=(const BoostLockfreeQueue&) = delete;

  ~BoostLockfreeQueue() {
    Stored s;
    while (q_.pop(s)) queues_internal::Discard<T>(s);
  }

  bool try_push(T&& v) {
    Stored s = queues_internal::Box(std::move(v));
    if (q_.bounded_push(s)) return true;
    queues_internal::Unbox(s, v);  // full: hand the value back untouched
    return false;
  }

  bool try_pop(T& out) {
    Stored s;
    if (!q_.pop(s)) return false;
    queues_internal::Unbox(s, out);
    return true;
  }

  std::size_t capacity() const { return capacity_; }

 private:
  using Stored = queues_internal::Stored<T>;
  const std::size_t capacity_;
  boost::lockfree::queue<Stored> q_;
};

template <typename T>
class BoostSpscQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "boost-spsc";
  static constexpr Topology kTopology = Topology::kSpsc;
  static constexpr bool kBounded = true;
  static constexpr bool kRequiresNothrowMove = true;  // see Exceptions above
  // Boost adds one to the capacity.
  static constexpr std::size_t kMaxCapacity =
      std::numeric_limits<std::size_t>::max() - 1;

  explicit BoostSpscQueue(std::size_t capacity) requires NothrowMovable<T>
      : capacity_(queues_internal::CheckedCapacity(kName, capacity,
                                                   kMaxCapacity)),
        q_(capacity_) {}
  BoostSpscQueue(const BoostSpscQueue&) = delete;
  BoostSpscQueue& operator=(const BoostSpscQueue&) = delete;

  ~BoostSpscQueue() {
    Stored s;
    while (q_.pop(s)) queues_internal::Discard<T>(s);
  }

  bool try_push(T&& v) {
    Stored s = queues_internal::Box(std::move(v));
    if (q_.push(s)) return true;
    queues_internal::Unbox(s, v);
    return false;
  }

  bool try_pop(T& out) {
    Stored s;
    if (!q_.pop(s)) return false;
    queues_internal::Unbox(s, out);
    return true;
  }

  std::size_t capacity() const { return capacity_; }

 private:
  using Stored = queues_internal::Stored<T>;
  const std::size_t capacity_;
  boost::lockfree::spsc_queue<Stored> q_;
};

static_assert(Queue<BoostLockfreeQueue<int>>);
static_assert(Queue<BoostSpscQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_BOOST_LOCKFREE_QUEUES_H_
