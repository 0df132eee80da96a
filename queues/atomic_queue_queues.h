// -----------------------------------------------------------------------------
// queues/atomic_queue_queues.h
// -----------------------------------------------------------------------------
//
// Adapters for atomic_queue (Debian's libatomic-queue-dev):
//
//   - `AtomicQueue2<T>`: `atomic_queue::AtomicQueueB2`, the runtime-capacity
//     ring for any (non-atomic) element type, used through `try_push` /
//     `try_pop`.
//   - `OptimistAtomicQueue2<T>`: the same ring used the way atomic_queue's own
//     benchmarks define "Optimist": through its blocking `push` / `pop`, which
//     claim a position with one `fetch_add` and then wait on that slot, instead
//     of the CAS loop of `try_push` / `try_pop`. `SpinPush` / `SpinPop` use
//     these native operations; the non-blocking ones are the same as above.
//
// Capacity is rounded up to a power of two, and to at least 256 slots.
// Elements are default-constructed up front and live as long as the queue.
//
// Ordering: atomic_queue's slots carry a state (empty, storing, stored,
// loading) but no lap number, so when a producer is preempted between claiming
// a position and storing into it, a producer one lap ahead may fill that slot
// first and a consumer takes the later item first. Our conformance test sees
// this with 4 producers on 2 cores: per-producer order is NOT kept with more
// than one producer or consumer (no item is lost or duplicated).
//
// Thread-safety: thread-safe (MPMC).

#ifndef SERVERKIT_QUEUES_ATOMIC_QUEUE_QUEUES_H_
#define SERVERKIT_QUEUES_ATOMIC_QUEUE_QUEUES_H_

#include <atomic_queue/atomic_queue.h>

#include <cstddef>
#include <string_view>
#include <utility>

#include "queues/queue.h"

namespace serverkit {

template <typename T>
class AtomicQueue2 {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "atomic-queue";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = true;
  static constexpr bool kKeepsProducerOrder = false;  // see Ordering above

  explicit AtomicQueue2(std::size_t capacity)
      : q_(static_cast<unsigned>(capacity)) {}

  bool try_push(T&& v) { return q_.try_push(std::move(v)); }
  bool try_pop(T& out) { return q_.try_pop(out); }
  std::size_t capacity() const { return q_.capacity(); }

 protected:
  atomic_queue::AtomicQueueB2<T> q_;
};

template <typename T>
class OptimistAtomicQueue2 : public AtomicQueue2<T> {
 public:
  static constexpr std::string_view kName = "atomic-queue-optimist";

  using AtomicQueue2<T>::AtomicQueue2;

  void push(T&& v) { this->q_.push(std::move(v)); }
  void pop(T& out) { out = this->q_.pop(); }
};

static_assert(Queue<AtomicQueue2<int>>);
static_assert(Queue<OptimistAtomicQueue2<int>>);
static_assert(HasNativeBlocking<OptimistAtomicQueue2<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_ATOMIC_QUEUE_QUEUES_H_
