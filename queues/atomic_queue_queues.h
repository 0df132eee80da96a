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
// Capacity is rounded up to a power of two, and to at least 4096 slots:
// AtomicQueueB2 spreads consecutive positions over cache lines by swapping
// the index's low 6 bits (64 one-byte states per line) with the next 6, which
// takes 2^12 slots. `capacity()` reports that, and the queue holds exactly
// that many. Debian's header has no runtime-capacity variant without the
// minimum for non-atomic elements (the compile-time `AtomicQueue2<T, N>` has
// none, but its size is a template argument). Capacity 0, or one beyond
// 2^30 (its indices are compared as `int`), throws std::invalid_argument.
// Elements are default-constructed up front and live as long as the queue.
//
// Exceptions (queues/queue.h): both reject elements whose move may throw.
// atomic_queue's operations are `noexcept` (a throwing move terminates), and
// a slot whose move did not finish would stay "storing" or "loading" for good.
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
  static constexpr bool kRequiresNothrowMove = true;  // see Exceptions above
  static constexpr std::size_t kMaxCapacity = std::size_t{1} << 30;

  explicit AtomicQueue2(std::size_t capacity) requires NothrowMovable<T>
      : AtomicQueue2(kName, capacity) {}

  bool try_push(T&& v) { return q_.try_push(std::move(v)); }
  bool try_pop(T& out) { return q_.try_pop(out); }
  std::size_t capacity() const { return q_.capacity(); }

 protected:
  // `name`: the queue named in the capacity error.
  AtomicQueue2(std::string_view name, std::size_t capacity)
      : q_(static_cast<unsigned>(
            queues_internal::CheckedCapacity(name, capacity, kMaxCapacity))) {}

  atomic_queue::AtomicQueueB2<T> q_;
};

template <typename T>
class OptimistAtomicQueue2 : public AtomicQueue2<T> {
 public:
  static constexpr std::string_view kName = "atomic-queue-optimist";

  explicit OptimistAtomicQueue2(std::size_t capacity) requires NothrowMovable<T>
      : AtomicQueue2<T>(kName, capacity) {}

  void push(T&& v) { this->q_.push(std::move(v)); }
  void pop(T& out) { out = this->q_.pop(); }
};

static_assert(Queue<AtomicQueue2<int>>);
static_assert(Queue<OptimistAtomicQueue2<int>>);
static_assert(HasNativeBlocking<OptimistAtomicQueue2<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_ATOMIC_QUEUE_QUEUES_H_
