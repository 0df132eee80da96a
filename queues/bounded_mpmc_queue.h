// -----------------------------------------------------------------------------
// queues/bounded_mpmc_queue.h
// -----------------------------------------------------------------------------
//
// `BoundedMpmcQueue<T>`: our bounded multi-producer multi-consumer ring.
//
// The algorithm is Dmitry Vyukov's per-slot sequence ring, written for this
// project:
//   1. Each slot carries a sequence number. Slot `i` starts at `i`.
//   2. A producer reads the enqueue position `pos`; the slot is free for it when
//      the slot's sequence equals `pos`. It claims `pos` with a CAS on the
//      enqueue index, constructs the item, and publishes it by storing `pos + 1`
//      into the slot's sequence.
//   3. A consumer at dequeue position `pos` may take the slot when its sequence
//      is `pos + 1`; it claims `pos` with a CAS, moves the item out, and frees
//      the slot for the next lap by storing `pos + capacity`.
//   4. A sequence behind the position means full (producer) or empty
//      (consumer): the operation fails at once, without touching the other
//      side's index.
// The slots, their sequences and their layout (consecutive positions on
// different cache lines, slots aligned for an over-aligned `T`) are
// `queues/internal/sequenced_slots.h`, shared with `SpscRingQueue`. The
// enqueue and dequeue indices sit on their own cache lines.
//
// Besides the exact try_push / try_pop, it has blocking `push` / `pop` (used
// by `Producer::spin_push` / `Consumer::spin_pop`): each claims its position
// with one fetch_add, which cannot fail, and then waits on its own slot, so
// contending threads do not retry a CAS on the shared index.
//
// Capacity is rounded up to a power of two (and to at least two cache lines'
// worth of slots).
//
// Thread-safety: thread-safe (MPMC). Progress: not lock-free in the strict
// sense; a producer preempted between its claim and its publish makes
// consumers see that slot as empty until it resumes (later items wait behind
// it, which keeps FIFO order).
//
// Memory ordering: the store of a slot's sequence is a release and its load an
// acquire, so everything a producer wrote to the item before publishing it is
// visible to the consumer that pops it, and a consumer's reads of an item
// happen before the next producer overwrites the slot.

#ifndef SERVERKIT_QUEUES_BOUNDED_MPMC_QUEUE_H_
#define SERVERKIT_QUEUES_BOUNDED_MPMC_QUEUE_H_

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <utility>

#include "base/cache_line.h"
#include "base/spin_wait.h"
#include "queues/internal/sequenced_slots.h"
#include "queues/queue.h"

namespace serverkit {

template <typename T>
class BoundedMpmcQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "bounded-mpmc";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = true;

  explicit BoundedMpmcQueue(std::size_t capacity) : slots_(capacity) {}

  BoundedMpmcQueue(const BoundedMpmcQueue&) = delete;
  BoundedMpmcQueue& operator=(const BoundedMpmcQueue&) = delete;

  ~BoundedMpmcQueue() {
    slots_.Destroy(dequeue_pos_.load(std::memory_order_relaxed),
                   enqueue_pos_.load(std::memory_order_relaxed));
  }

  bool try_push(T&& v) {
    std::size_t pos = enqueue_pos_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_.at(pos);
      const std::size_t seq = slot.seq.load(std::memory_order_acquire);
      const auto diff =
          static_cast<std::intptr_t>(seq) - static_cast<std::intptr_t>(pos);
      if (diff == 0) {
        if (enqueue_pos_.compare_exchange_weak(pos, pos + 1,
                                               std::memory_order_relaxed)) {
          Publish(slot, pos, std::move(v));
          return true;
        }
      } else if (diff < 0) {
        return false;  // full: the slot still holds last lap's item
      } else {
        pos = enqueue_pos_.load(std::memory_order_relaxed);
      }
    }
  }

  bool try_pop(T& out) {
    std::size_t pos = dequeue_pos_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_.at(pos);
      const std::size_t seq = slot.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::intptr_t>(seq) -
                        static_cast<std::intptr_t>(pos + 1);
      if (diff == 0) {
        if (dequeue_pos_.compare_exchange_weak(pos, pos + 1,
                                               std::memory_order_relaxed)) {
          Take(slot, pos, out);
          return true;
        }
      } else if (diff < 0) {
        return false;  // empty: nothing published at this position yet
      } else {
        pos = dequeue_pos_.load(std::memory_order_relaxed);
      }
    }
  }

  // Blocking push: claims a position with one fetch_add (no retry loop, so
  // producers never collide on the index) and then waits until the consumer
  // of the previous lap has freed that slot. Waits by spinning, then by
  // yielding the CPU (base/spin_wait.h): it never sleeps in the kernel.
  void push(T&& v) {
    const std::size_t pos =
        enqueue_pos_.fetch_add(1, std::memory_order_relaxed);
    Slot& slot = slots_.at(pos);
    WaitFor(slot, pos);
    Publish(slot, pos, std::move(v));
  }

  // Blocking pop: claims a position with one fetch_add and waits on that
  // slot until its item is published (atomic_queue's "optimist" pop). Mixes
  // freely with try_push / try_pop; a claimed position is served in order.
  void pop(T& out) {
    const std::size_t pos =
        dequeue_pos_.fetch_add(1, std::memory_order_relaxed);
    Slot& slot = slots_.at(pos);
    WaitFor(slot, pos + 1);
    Take(slot, pos, out);
  }

  std::size_t capacity() const { return slots_.capacity(); }

 private:
  using Slots = queues_internal::SequencedSlots<T>;
  using Slot = typename Slots::Slot;

  static void Publish(Slot& slot, std::size_t pos, T&& v) {
    new (slot.storage) T(std::move(v));
    slot.seq.store(pos + 1, std::memory_order_release);
  }

  void Take(Slot& slot, std::size_t pos, T& out) {
    T* item = slot.item();
    out = std::move(*item);
    item->~T();
    slot.seq.store(pos + slots_.capacity(), std::memory_order_release);
  }

  // Waits until the slot's sequence reads `seq` (base/spin_wait.h: pauses,
  // then yields, so a waiter does not starve the thread it waits for when
  // threads outnumber cores).
  static void WaitFor(Slot& slot, std::size_t seq) {
    SpinThenYieldUntil(
        [&] { return slot.seq.load(std::memory_order_acquire) == seq; });
  }

  // Read-only after construction; shares no line with the hot indices.
  alignas(kCacheLineSize) Slots slots_;

  alignas(kCacheLineSize) std::atomic<std::size_t> enqueue_pos_{0};
  alignas(kCacheLineSize) std::atomic<std::size_t> dequeue_pos_{0};
  char pad_[kCacheLineSize - sizeof(std::atomic<std::size_t>)];

  friend struct BoundedMpmcQueueLayout;
};

// Proves the padding: the two hot indices and the read-only fields each own a
// cache line.
struct BoundedMpmcQueueLayout {
  using Q = BoundedMpmcQueue<std::uint64_t>;
  static_assert(offsetof(Q, enqueue_pos_) - offsetof(Q, slots_) ==
                kCacheLineSize);
  static_assert(offsetof(Q, dequeue_pos_) - offsetof(Q, enqueue_pos_) ==
                kCacheLineSize);
  static_assert(sizeof(Q) == 3 * kCacheLineSize);
};

static_assert(Queue<BoundedMpmcQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_BOUNDED_MPMC_QUEUE_H_
