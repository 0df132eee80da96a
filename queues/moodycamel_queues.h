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
#include <string_view>
#include <utility>

#include "queues/queue.h"

namespace serverkit {

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

  bool try_push(T&& v) { return q_.enqueue(std::move(v)); }
  bool try_pop(T& out) { return q_.try_dequeue(out); }
  std::size_t capacity() const { return 0; }

 private:
  moodycamel::ConcurrentQueue<T> q_;
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

  bool try_push(T&& v) { return q_.enqueue(std::move(v)); }
  bool try_pop(T& out) { return q_.try_dequeue(out); }
  bool try_push(ProducerToken& t, T&& v) {
    return q_.enqueue(t.token, std::move(v));
  }
  bool try_pop(ConsumerToken& t, T& out) {
    return q_.try_dequeue(t.token, out);
  }
  std::size_t capacity() const { return 0; }

 private:
  moodycamel::ConcurrentQueue<T> q_;
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

  bool try_push(T&& v) { return q_.enqueue(std::move(v)); }
  bool try_pop(T& out) { return q_.try_dequeue(out); }
  void push(T&& v) {
    while (!q_.enqueue(std::move(v))) {
    }
  }
  void pop(T& out) { q_.wait_dequeue(out); }
  std::size_t capacity() const { return 0; }

 private:
  moodycamel::BlockingConcurrentQueue<T> q_;
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

  bool try_push(T&& v) { return q_.enqueue(std::move(v)); }
  bool try_pop(T& out) { return q_.try_dequeue(out); }
  std::size_t capacity() const { return 0; }

 private:
  moodycamel::ReaderWriterQueue<T> q_;
};

static_assert(Queue<MoodycamelQueue<int>>);
static_assert(Queue<MoodycamelTokenQueue<int>>);
static_assert(HasProducerToken<MoodycamelTokenQueue<int>>);
static_assert(HasConsumerToken<MoodycamelTokenQueue<int>>);
static_assert(HasNativeBlocking<MoodycamelBlockingQueue<int>>);
static_assert(Queue<ReaderWriterQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_MOODYCAMEL_QUEUES_H_
