// -----------------------------------------------------------------------------
// queues/queue.h
// -----------------------------------------------------------------------------
//
// The one interface every queue in this project meets, as a C++20 concept.
//
// A `Queue` is a non-blocking FIFO of `value_type`:
//
//   - `Q(std::size_t capacity)` builds it. A bounded queue holds exactly
//     `capacity()` items (on an empty queue `try_push` succeeds `capacity()`
//     times, then fails), and `capacity()` is at least the capacity asked for:
//     some round up (our rings to a power of two, at least 2; atomic_queue to
//     at least 4096). A bounded queue throws `std::invalid_argument` for a
//     capacity of 0, or one beyond what it can hold. Unbounded queues take the
//     capacity, 0 included, as a hint for what to preallocate.
//   - `bool try_push(value_type&& v)` enqueues `v` and returns true, or returns
//     false when the queue is full and leaves `v` untouched, so the caller can
//     retry with the same value. An unbounded queue's `try_push` never
//     returns false: when memory runs out it throws `std::bad_alloc`, has
//     not enqueued `v`, and the queue goes on working, unless it declares
//     `static constexpr bool kUsableAfterBadAlloc = false` (tbb: oneTBB's
//     queue crashes on a later pop); `UsableAfterBadAlloc<Q>` reads that.
//     The typed test UnboundedThrowsBadAllocWhenMemoryRunsOut runs each
//     unbounded queue out of memory.
//   - `bool try_pop(value_type& out)` moves the oldest item into `out` and
//     returns true, or returns false when the queue is empty.
//   - `std::size_t capacity() const` is the bound, or 0 for an unbounded queue.
//   - `static constexpr std::string_view kName`: the short name used in test
//     and benchmark names ("mutex", "moodycamel", ...).
//   - `static constexpr Topology kTopology`: how many threads may push and pop
//     at once. Calling `try_push` from two threads at once on a queue whose
//     topology allows one producer is a data race.
//   - `static constexpr bool kBounded`.
//
// Ordering: a queue keeps per-producer order as seen by each consumer (if one
// thread pushes a before b, no consumer pops b and later a) unless it declares
// `static constexpr bool kKeepsProducerOrder = false`; `KeepsProducerOrder<Q>`
// reads that. With one producer and one consumer every queue is FIFO. Nothing
// here promises an order between producers (moodycamel gives none).
//
// Thread-safety: as `kTopology` says; construction and destruction are not
// thread-safe. Destroying a queue that still holds items destroys those items.
//
// Exceptions: a queue moves an element in (`try_push`) and out (`try_pop`
// move-assigns `out`). When a move may throw, each queue takes one of two
// policies:
//   - Rejects: the queue declares `static constexpr bool kRequiresNothrowMove
//     = true`, and `Q<T>` is not a `Queue` (its constructors are constrained on
//     `NothrowMovable<T>`) unless moving a `T` cannot throw. A lock-free queue
//     cannot undo a claimed position, so a throwing move would lose an item or
//     stall its consumers. bounded-mpmc, sharded-mpmc, swap-vector (its vector
//     reallocation cannot undo a throwing move) and every third-party adapter
//     (each header says why).
//   - Survives (the default): a move that throws propagates out of
//     `try_push` / `try_pop` and leaves the queue as it was. A `try_push` that
//     throws has not enqueued its value; a `try_pop` that throws leaves the
//     item at the head, to be popped again (in whatever state the element's
//     failed move left it); the queue goes on working. mutex, spsc-ring.
// Destructors may not throw (`std::movable` requires that already).
//
// Optional capabilities, detected by the helpers below rather than required:
//
//   - Per-thread handles (`Q::ProducerToken`, `Q::ConsumerToken`, constructible
//     from `Q&`, with `try_push(token, v)` / `try_pop(token, out)`), which
//     moodycamel uses to skip its producer lookup. Code that pushes or pops
//     goes through `Producer<Q>` / `Consumer<Q>`, which use the token when the
//     queue has one and cost nothing when it does not.
//   - Native blocking operations (`void push(value_type&&)`,
//     `void pop(value_type&)`), used by `SpinPush` / `SpinPop` in place of a
//     retry loop. Waiting in general is not part of a queue: see
//     `queues/wait_strategy.h`, which composes any `Queue` with a way to wait.

#ifndef SERVERKIT_QUEUES_QUEUE_H_
#define SERVERKIT_QUEUES_QUEUE_H_

#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "base/cache_line.h"

namespace serverkit {

// How many threads may use a queue at once.
enum class Topology {
  kSpsc,  // one producer thread, one consumer thread
  kMpsc,  // many producers, one consumer
  kMpmc,  // many producers, many consumers
};

constexpr bool AllowsProducers(Topology t, int producers) {
  return producers == 1 || t != Topology::kSpsc;
}

constexpr bool AllowsConsumers(Topology t, int consumers) {
  return consumers == 1 || t == Topology::kMpmc;
}

constexpr std::string_view TopologyName(Topology t) {
  switch (t) {
    case Topology::kSpsc:
      return "spsc";
    case Topology::kMpsc:
      return "mpsc";
    case Topology::kMpmc:
      return "mpmc";
  }
  return "?";
}

// (clang-format 14 flattens requires-expressions and splits the
// concepts below at `&&`.)
// clang-format off

// What a queue that rejects throwing moves requires of its elements.
template <typename T>
concept NothrowMovable =
    std::is_nothrow_move_constructible_v<T> &&
    std::is_nothrow_move_assignable_v<T>;

// True when `Q` declares `kRequiresNothrowMove = true` (see Exceptions above).
template <typename Q>
constexpr bool RequiresNothrowMove() {
  if constexpr (requires { Q::kRequiresNothrowMove; }) {
    return Q::kRequiresNothrowMove;
  } else {
    return false;
  }
}

template <typename Q>
concept Queue =
    std::movable<typename Q::value_type> &&
    (!RequiresNothrowMove<Q>() || NothrowMovable<typename Q::value_type>) &&
    std::constructible_from<Q, std::size_t> &&
    requires {
      { Q::kName } -> std::convertible_to<std::string_view>;
      { Q::kTopology } -> std::convertible_to<Topology>;
      { Q::kBounded } -> std::convertible_to<bool>;
    } &&
    requires(Q& q, const Q& cq, typename Q::value_type& out,
             typename Q::value_type&& v) {
      { q.try_push(std::move(v)) } -> std::same_as<bool>;
      { q.try_pop(out) } -> std::same_as<bool>;
      { cq.capacity() } -> std::same_as<std::size_t>;
    };

// True unless `Q` declares `kKeepsProducerOrder = false` (see Ordering above).
template <typename Q>
constexpr bool KeepsProducerOrder() {
  if constexpr (requires { Q::kKeepsProducerOrder; }) {
    return Q::kKeepsProducerOrder;
  } else {
    return true;
  }
}

// True unless `Q` declares `kUsableAfterBadAlloc = false` (see try_push).
template <typename Q>
constexpr bool UsableAfterBadAlloc() {
  if constexpr (requires { Q::kUsableAfterBadAlloc; }) {
    return Q::kUsableAfterBadAlloc;
  } else {
    return true;
  }
}

// Queues with per-thread producer / consumer handles (moodycamel's tokens).
template <typename Q>
concept HasProducerToken =
    Queue<Q> && requires(Q& q, typename Q::ProducerToken& t,
                         typename Q::value_type&& v) {
      typename Q::ProducerToken;
      requires std::constructible_from<typename Q::ProducerToken, Q&>;
      { q.try_push(t, std::move(v)) } -> std::same_as<bool>;
    };

template <typename Q>
concept HasConsumerToken =
    Queue<Q> && requires(Q& q, typename Q::ConsumerToken& t,
                         typename Q::value_type& out) {
      typename Q::ConsumerToken;
      requires std::constructible_from<typename Q::ConsumerToken, Q&>;
      { q.try_pop(t, out) } -> std::same_as<bool>;
    };

// Queues with their own blocking push / pop (tbb::concurrent_bounded_queue,
// moodycamel's BlockingConcurrentQueue, atomic_queue's optimistic push/pop).
template <typename Q>
concept HasNativeBlocking =
    Queue<Q> && requires(Q& q, typename Q::value_type& out,
                         typename Q::value_type&& v) {
      q.push(std::move(v));
      q.pop(out);
    };
// clang-format on

namespace queues_internal {

// The capacity a bounded queue was asked for, if it is in [1, max]; throws
// std::invalid_argument, naming the queue, otherwise (see the contract above).
inline std::size_t CheckedCapacity(std::string_view queue, std::size_t capacity,
                                   std::size_t max) {
  if (capacity == 0 || capacity > max) {
    throw std::invalid_argument(
        std::string(queue) + ": capacity " + std::to_string(capacity) +
        (capacity == 0
             ? " (a bounded queue must hold at least one item)"
             : " is beyond the largest it can hold, " + std::to_string(max)));
  }
  return capacity;
}

struct NoToken {
  template <typename Q>
  explicit NoToken(Q&) {}
};

template <typename Q>
struct ProducerTokenOf {
  using type = NoToken;
};
template <HasProducerToken Q>
struct ProducerTokenOf<Q> {
  using type = typename Q::ProducerToken;
};

template <typename Q>
struct ConsumerTokenOf {
  using type = NoToken;
};
template <HasConsumerToken Q>
struct ConsumerTokenOf<Q> {
  using type = typename Q::ConsumerToken;
};
}  // namespace queues_internal

// Producer<Q>
//
// A per-thread handle for pushing into `Q`. Holds the queue's producer token
// when it has one. A `Producer` is thread-hostile: make one per thread. It must
// not outlive its queue.
template <Queue Q>
class Producer {
 public:
  using value_type = typename Q::value_type;

  explicit Producer(Q& q) : q_(q), token_(q) {}

  bool try_push(value_type&& v) {
    if constexpr (HasProducerToken<Q>) {
      return q_.try_push(token_, std::move(v));
    } else {
      return q_.try_push(std::move(v));
    }
  }

  // Pushes `v`, spinning while the queue is full. Uses the queue's own
  // blocking push where it has one.
  void spin_push(value_type&& v) {
    if constexpr (HasNativeBlocking<Q> && !HasProducerToken<Q>) {
      q_.push(std::move(v));
    } else {
      while (!try_push(std::move(v))) CpuRelax();
    }
  }

  Q& queue() { return q_; }

 private:
  using Token = typename queues_internal::ProducerTokenOf<Q>::type;
  Q& q_;
  [[no_unique_address]] Token token_;
};

// Consumer<Q>
//
// A per-thread handle for popping from `Q`; the mirror of `Producer<Q>`.
template <Queue Q>
class Consumer {
 public:
  using value_type = typename Q::value_type;

  explicit Consumer(Q& q) : q_(q), token_(q) {}

  bool try_pop(value_type& out) {
    if constexpr (HasConsumerToken<Q>) {
      return q_.try_pop(token_, out);
    } else {
      return q_.try_pop(out);
    }
  }

  // Pops into `out`, spinning while the queue is empty. Uses the queue's own
  // blocking pop where it has one (which may sleep once a wait grows long:
  // bounded-mpmc's pop parks on a futex).
  void spin_pop(value_type& out) {
    if constexpr (HasNativeBlocking<Q> && !HasConsumerToken<Q>) {
      q_.pop(out);
    } else {
      while (!try_pop(out)) CpuRelax();
    }
  }

  Q& queue() { return q_; }

 private:
  using Token = typename queues_internal::ConsumerTokenOf<Q>::type;
  Q& q_;
  [[no_unique_address]] Token token_;
};

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_QUEUE_H_
