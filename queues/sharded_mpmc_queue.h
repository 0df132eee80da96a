// -----------------------------------------------------------------------------
// queues/sharded_mpmc_queue.h
// -----------------------------------------------------------------------------
//
// `ShardedMpmcQueue<T>`: our bounded MPMC queue for contention, made of
// `shards()` independent `BoundedMpmcQueue` rings (one per core by default).
//
// Why: a single ring, however it claims positions, makes every producer
// write one shared index line and every consumer another, and hands each
// slot from core to core: with threads that each push and then pop (the
// sweep's `pairs` scenario) it falls an order of magnitude behind moodycamel
// with tokens, whose producers own sub-queues (docs/components.md). Here
// each producer owns a shard and each consumer prefers one, so a
// thread that pushes and pops, or a producer and consumer paired on a shard,
// touch lines that no other core writes.
//
// Who goes where:
//   - A `ProducerToken` (what `Producer<Q>` holds) is given a shard round
//     robin, per queue, when it is made; it always pushes there.
//   - A `ConsumerToken` (what `Consumer<Q>` holds) is given a home shard the
//     same way. A pop tries the home shard first, then the others in turn.
//     Every `kVisitEvery`-th pop first tries one other shard (cycling through
//     them), so a shard with no consumer at home is still served while the
//     home shard never runs dry: the oldest item of any shard is taken
//     within `kVisitEvery * (shards() - 1)` pops of any one consumer.
//   - Without a token, a thread pushes to, and pops from, the shard of its
//     own thread index (numbers handed out as threads first use any sharded
//     queue), with the same visits.
//
// Contract (queues/queue.h), with these policies:
//   - Capacity: `capacity()` is one shard's bound (the requested capacity
//     rounded up, as `BoundedMpmcQueue` rounds it): any one producer can have
//     that many items queued, and the queue as a whole holds up to
//     `shards() * capacity()`. `try_push` fails when the producer's own shard
//     is full, even if another shard has room: moving on would break the
//     producer's order. Memory is `shards()` rings of `capacity()` slots.
//   - Order: per-producer order holds for the pushes made through one token,
//     and for a thread's token-less pushes; the two are not ordered with each
//     other (moodycamel's rule for explicit and implicit producers). There is
//     no order between producers, and no global FIFO: an item in another
//     shard may be older than the one a pop returns. For a strict FIFO, use
//     `BoundedMpmcQueue`.
//   - try_push / try_pop are exact: a failed push leaves the value untouched;
//     a pop fails only when every shard was empty when it looked (not one
//     instant: a concurrent push to a shard it already passed is not seen).
//   - Capacity 0 throws std::invalid_argument.
//   - Exceptions: rejects elements whose move may throw, as its shards do.
//
// Thread-safety: any number of producers and consumers (MPMC); a token
// belongs to one thread at a time and must not outlive its queue. Progress
// is the shards': a producer preempted between claiming a slot and filling
// it holds up the consumer of that slot, in its shard only.

#ifndef SERVERKIT_QUEUES_SHARDED_MPMC_QUEUE_H_
#define SERVERKIT_QUEUES_SHARDED_MPMC_QUEUE_H_

#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

#include "queues/bounded_mpmc_queue.h"
#include "queues/queue.h"

namespace serverkit {

namespace queues_internal {

// A thread's place among the sharded queues' token-less users: its index
// (0, 1, 2, ... in the order threads first ask) and its visit counter.
struct ShardThreadState {
  std::size_t index;
  unsigned pops = 0;
};

inline ShardThreadState& ThisShardThread() {
  static std::atomic<std::size_t> next{0};
  thread_local ShardThreadState state{
      next.fetch_add(1, std::memory_order_relaxed)};
  return state;
}

}  // namespace queues_internal

template <typename T>
class ShardedMpmcQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "sharded-mpmc";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = true;
  static constexpr bool kRequiresNothrowMove = true;  // as BoundedMpmcQueue

  // Every this many pops, a consumer tries another shard before its home.
  // A visit that finds an item moves it, and then its producer's consumer,
  // across cores: at 2 threads that each push and pop, a visit every 64 pops
  // gave 54M pairs/s, every 256 92M, no visits at all 121M (moodycamel-tokens
  // 77M, same run).
  // moodycamel's consumer token rotates after 256 items too.
  static constexpr unsigned kVisitEvery = 256;
  // The most shards a queue has.
  static constexpr std::size_t kMaxShards = 64;

  // (clang-format 14 splits these requires-clauses mid-way.)
  // clang-format off
  // One shard per hardware thread (std::thread::hardware_concurrency; 1 when
  // unknown), at most kMaxShards.
  explicit ShardedMpmcQueue(std::size_t capacity)
    requires NothrowMovable<T>
      : ShardedMpmcQueue(capacity, DefaultShards()) {}

  // `shards` in [1, kMaxShards]; std::invalid_argument otherwise.
  ShardedMpmcQueue(std::size_t capacity, std::size_t shards)
    requires NothrowMovable<T>
      : ShardedMpmcQueue(capacity, shards,
                         queues_internal::StartPositionForTesting{}) {}

  // Test-only: starts every shard's positions at `start.position` (tests run
  // them across the wrap at 2^64).
  ShardedMpmcQueue(std::size_t capacity, std::size_t shards,
                   queues_internal::StartPositionForTesting start)
    requires NothrowMovable<T>
      : count_(CheckedShards(shards)),
        shards_(std::make_unique<std::unique_ptr<Shard>[]>(count_)) {
    queues_internal::CheckedCapacity(kName, capacity, Shard::kMaxCapacity);
    for (std::size_t i = 0; i < count_; ++i) {
      shards_[i] = std::make_unique<Shard>(capacity, start);
    }
  }
  // clang-format on

  ShardedMpmcQueue(const ShardedMpmcQueue&) = delete;
  ShardedMpmcQueue& operator=(const ShardedMpmcQueue&) = delete;

  class ProducerToken {
   public:
    explicit ProducerToken(ShardedMpmcQueue& q) : shard_(q.NextShard()) {}

   private:
    friend class ShardedMpmcQueue;
    std::size_t shard_;
  };

  class ConsumerToken {
   public:
    explicit ConsumerToken(ShardedMpmcQueue& q) : home_(q.NextHome()) {}

   private:
    friend class ShardedMpmcQueue;
    std::size_t home_;
    unsigned pops_ = 0;
  };

  bool try_push(ProducerToken& t, T&& v) {
    return shards_[t.shard_]->try_push(std::move(v));
  }

  bool try_pop(ConsumerToken& t, T& out) { return Pop(t.home_, t.pops_, out); }

  bool try_push(T&& v) {
    return shards_[queues_internal::ThisShardThread().index % count_]->try_push(
        std::move(v));
  }

  bool try_pop(T& out) {
    queues_internal::ShardThreadState& s = queues_internal::ThisShardThread();
    return Pop(s.index % count_, s.pops, out);
  }

  std::size_t capacity() const { return shards_[0]->capacity(); }
  std::size_t shards() const { return count_; }

 private:
  using Shard = BoundedMpmcQueue<T>;

  static std::size_t DefaultShards() {
    const std::size_t n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : (n > kMaxShards ? kMaxShards : n);
  }

  static std::size_t CheckedShards(std::size_t shards) {
    if (shards == 0 || shards > kMaxShards) {
      throw std::invalid_argument(
          "ShardedMpmcQueue: shards must be in [1, 64]");
    }
    return shards;
  }

  std::size_t NextShard() {
    return next_producer_.fetch_add(1, std::memory_order_relaxed) % count_;
  }
  std::size_t NextHome() {
    return next_consumer_.fetch_add(1, std::memory_order_relaxed) % count_;
  }

  // Home first, then the others in turn; every kVisitEvery-th pop visits one
  // other shard (the visits cycle through all of them) before home.
  bool Pop(std::size_t home, unsigned& pops, T& out) {
    const std::size_t n = count_;
    if (n > 1 && ++pops % kVisitEvery == 0) {
      // The visits go to home + 1, home + 2, ... (wrapping), then again.
      const std::size_t k = (pops / kVisitEvery - 1) % (n - 1);  // 0 .. n-2
      std::size_t visit = home + 1 + k;
      if (visit >= n) visit -= n;
      if (shards_[visit]->try_pop(out)) return true;
    }
    std::size_t i = home;
    for (std::size_t tried = 0; tried < n; ++tried) {
      if (shards_[i]->try_pop(out)) return true;
      if (++i == n) i = 0;
    }
    return false;
  }

  // Read-only after construction.
  const std::size_t count_;
  const std::unique_ptr<std::unique_ptr<Shard>[]> shards_;

  // Written only when a token is made.
  alignas(kCacheLineSize) std::atomic<std::size_t> next_producer_{0};
  std::atomic<std::size_t> next_consumer_{0};
};

static_assert(Queue<ShardedMpmcQueue<int>>);
static_assert(HasProducerToken<ShardedMpmcQueue<int>>);
static_assert(HasConsumerToken<ShardedMpmcQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_SHARDED_MPMC_QUEUE_H_
