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
// Thread-safety: as each `kTopology` says.

#ifndef SERVERKIT_QUEUES_BOOST_LOCKFREE_QUEUES_H_
#define SERVERKIT_QUEUES_BOOST_LOCKFREE_QUEUES_H_

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/spsc_queue.hpp>
#include <cstddef>
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

  explicit BoostLockfreeQueue(std::size_t capacity)
      : capacity_(capacity), q_(capacity) {}
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

  explicit BoostSpscQueue(std::size_t capacity)
      : capacity_(capacity), q_(capacity) {}
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
