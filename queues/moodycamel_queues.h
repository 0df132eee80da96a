// -----------------------------------------------------------------------------
// queues/moodycamel_queues.h
// -----------------------------------------------------------------------------
//
// Adapters for moodycamel's queues (Debian's libconcurrentqueue-dev and
// libreaderwriterqueue-dev):
//
//   - `MoodycamelQueue<T>`: `moodycamel::ConcurrentQueue`, unbounded MPMC,
//     used without tokens (each push looks up the calling thread's implicit
//     producer sub-queue).
//   - `MoodycamelTokenQueue<T>`: the same queue used through explicit
//     producer and consumer tokens (per-thread handles, see `Producer<Q>`).
//   - `MoodycamelBlockingQueue<T>`: `moodycamel::BlockingConcurrentQueue`, the
//     same structure plus a semaphore; its native `pop` blocks.
//   - `ReaderWriterQueue<T>`: `moodycamel::ReaderWriterQueue`, unbounded SPSC
//     (a linked list of ring blocks).
//
// moodycamel's ConcurrentQueue keeps one sub-queue per producer, so it keeps
// per-producer order but gives no FIFO order between producers.
//
// All four are unbounded: the capacity, 0 included, is what to preallocate.
// moodycamel's enqueue returns false when it cannot allocate; the adapters
// throw std::bad_alloc then, as the contract asks of an unbounded queue.
//
// Exceptions (queues/queue.h): all four reject elements whose move may throw.
// ConcurrentQueue counts an item as dequeued, and destroys it, even when the
// move into `out` throws (the item is lost); ReaderWriterQueue leaks the
// block it has just allocated when the move into that block throws.
//
// Thread-safety: as each `kTopology` says.

#ifndef SERVERKIT_QUEUES_MOODYCAMEL_QUEUES_H_
#define SERVERKIT_QUEUES_MOODYCAMEL_QUEUES_H_

#include <concurrentqueue/blockingconcurrentqueue.h>
#include <concurrentqueue/concurrentqueue.h>
#include <readerwriterqueue/readerwriterqueue.h>

#include <cstddef>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

#include "base/sanitizers.h"
#include "queues/queue.h"

namespace serverkit {

namespace queues_internal {

// moodycamel orders an element's construction, move-out and destruction with
// standalone fences, which ThreadSanitizer does not model. Under TSan each
// element travels in a `MoodycamelSlot` that says that order on the slot's
// address: filling a slot releases, moving out of it acquires, and its
// destruction releases for the next slot the queue builds in the same recycled
// memory. Elsewhere the element is stored as it is.
template <typename T>
class MoodycamelSlot {
 public:
  MoodycamelSlot() = default;
  explicit MoodycamelSlot(T&& v) noexcept : value_(std::move(v)) {
    handoff_.Publish();
  }
  MoodycamelSlot(MoodycamelSlot&& o) noexcept
      : handoff_(o.handoff_), value_(std::move(o.value_)) {
    handoff_.Publish();
  }
  MoodycamelSlot& operator=(MoodycamelSlot&& o) noexcept {
    handoff_ = o.handoff_;
    value_ = std::move(o.value_);
    handoff_.Publish();
    return *this;
  }
  T& value() { return value_; }

 private:
  TsanHandoff handoff_;
  T value_;
};

template <typename T>
using MoodycamelStored = std::conditional_t<kUnderTsan, MoodycamelSlot<T>, T>;

// moodycamel's enqueue reports a failed allocation by returning false; the
// contract (queues/queue.h) has an unbounded queue throw std::bad_alloc.
template <typename T, typename Q, typename... Token>
bool MoodycamelEnqueue(Q& q, T&& v, Token&... token) {
  if constexpr (kUnderTsan) {
    // The queue moves from its argument only when it succeeds: on failure
    // the value goes back to the caller, as without the slot.
    MoodycamelSlot<T> slot(std::move(v));
    if (q.enqueue(token..., std::move(slot))) return true;
    v = std::move(slot.value());
  } else {
    if (q.enqueue(token..., std::move(v))) return true;
  }
  throw std::bad_alloc();
}

// `dequeue(slot)` is the queue's try_dequeue or wait_dequeue, bound.
template <typename T, typename F>
bool MoodycamelDequeue(T& out, F&& dequeue) {
  if constexpr (kUnderTsan) {
    MoodycamelSlot<T> slot;
    if (!dequeue(slot)) return false;
    out = std::move(slot.value());
    return true;
  } else {
    return dequeue(out);
  }
}

// The queue's try_dequeue (with a token, if given), through the slot.
template <typename T, typename Q, typename... Token>
bool MoodycamelTryDequeue(Q& q, T& out, Token&... token) {
  return MoodycamelDequeue(out,
                           [&](auto& o) { return q.try_dequeue(token..., o); });
}

}  // namespace queues_internal

template <typename T>
class MoodycamelQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "moodycamel";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = false;
  static constexpr bool kRequiresNothrowMove = true;  // see Exceptions above

  explicit MoodycamelQueue(std::size_t capacity) requires NothrowMovable<T>
      : q_(capacity) {}

  bool try_push(T&& v) {
    return queues_internal::MoodycamelEnqueue(q_, std::move(v));
  }
  bool try_pop(T& out) {
    return queues_internal::MoodycamelTryDequeue(q_, out);
  }
  std::size_t capacity() const { return 0; }

 private:
  moodycamel::ConcurrentQueue<queues_internal::MoodycamelStored<T>> q_;
};

template <typename T>
class MoodycamelTokenQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "moodycamel-tokens";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = false;
  static constexpr bool kRequiresNothrowMove = true;  // see Exceptions above

  // Per-thread handles; each must not outlive the queue.
  struct ProducerToken {
    explicit ProducerToken(MoodycamelTokenQueue& q) : token(q.q_) {}
    moodycamel::ProducerToken token;
  };
  struct ConsumerToken {
    explicit ConsumerToken(MoodycamelTokenQueue& q) : token(q.q_) {}
    moodycamel::ConsumerToken token;
  };

  explicit MoodycamelTokenQueue(std::size_t capacity) requires NothrowMovable<T>
      : q_(capacity) {}

  bool try_push(T&& v) {
    return queues_internal::MoodycamelEnqueue(q_, std::move(v));
  }
  bool try_pop(T& out) {
    return queues_internal::MoodycamelTryDequeue(q_, out);
  }
  bool try_push(ProducerToken& t, T&& v) {
    return queues_internal::MoodycamelEnqueue(q_, std::move(v), t.token);
  }
  bool try_pop(ConsumerToken& t, T& out) {
    return queues_internal::MoodycamelTryDequeue(q_, out, t.token);
  }
  std::size_t capacity() const { return 0; }

 private:
  moodycamel::ConcurrentQueue<queues_internal::MoodycamelStored<T>> q_;
};

template <typename T>
class MoodycamelBlockingQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "moodycamel-blocking";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = false;
  static constexpr bool kRequiresNothrowMove = true;  // see Exceptions above

  // (clang-format 14 splits this requires-clause mid-way.)
  // clang-format off
  explicit MoodycamelBlockingQueue(std::size_t capacity)
    requires NothrowMovable<T>
      : q_(capacity) {}
  // clang-format on

  bool try_push(T&& v) {
    return queues_internal::MoodycamelEnqueue(q_, std::move(v));
  }
  bool try_pop(T& out) {
    return queues_internal::MoodycamelTryDequeue(q_, out);
  }
  void push(T&& v) { queues_internal::MoodycamelEnqueue(q_, std::move(v)); }
  void pop(T& out) {
    queues_internal::MoodycamelDequeue(out, [&](auto& o) {
      q_.wait_dequeue(o);
      return true;
    });
  }
  std::size_t capacity() const { return 0; }

 private:
  moodycamel::BlockingConcurrentQueue<queues_internal::MoodycamelStored<T>> q_;
};

template <typename T>
class ReaderWriterQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "readerwriterqueue";
  static constexpr Topology kTopology = Topology::kSpsc;
  static constexpr bool kBounded = false;
  static constexpr bool kRequiresNothrowMove = true;  // see Exceptions above

  explicit ReaderWriterQueue(std::size_t capacity) requires NothrowMovable<T>
      : q_(capacity) {}

  bool try_push(T&& v) {
    return queues_internal::MoodycamelEnqueue(q_, std::move(v));
  }
  bool try_pop(T& out) {
    return queues_internal::MoodycamelTryDequeue(q_, out);
  }
  std::size_t capacity() const { return 0; }

 private:
  moodycamel::ReaderWriterQueue<queues_internal::MoodycamelStored<T>> q_;
};

static_assert(Queue<MoodycamelQueue<int>>);
static_assert(Queue<MoodycamelTokenQueue<int>>);
static_assert(HasProducerToken<MoodycamelTokenQueue<int>>);
static_assert(HasConsumerToken<MoodycamelTokenQueue<int>>);
static_assert(HasNativeBlocking<MoodycamelBlockingQueue<int>>);
static_assert(Queue<ReaderWriterQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_MOODYCAMEL_QUEUES_H_
