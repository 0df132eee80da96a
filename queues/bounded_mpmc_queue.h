// -----------------------------------------------------------------------------
// queues/bounded_mpmc_queue.h
// -----------------------------------------------------------------------------
//
// `BoundedMpmcQueue<T>`: our bounded multi-producer multi-consumer ring.
//
// The algorithm is Dmitry Vyukov's per-slot sequence ring, written for this
// project:
//   1. Each slot carries a sequence number. Slot `i` starts at `i`.
//   2. A producer reads the enqueue position `pos`; the slot is free for it
//   when
//      the slot's sequence equals `pos`. It claims `pos` with a CAS on the
//      enqueue index, constructs the item, and publishes it by storing `pos +
//      1` into the slot's sequence.
//   3. A consumer at dequeue position `pos` may take the slot when its sequence
//      is `pos + 1`; it claims `pos` with a CAS, moves the item out, and frees
//      the slot for the next lap by storing `pos + capacity`.
//   4. A sequence behind the position means full (producer) or empty
//      (consumer): the operation fails at once, without touching the other
//      side's index.
// The slots, their sequences and their layout (consecutive positions in
// consecutive slots, aligned for an over-aligned `T`) are
// `queues/internal/sequenced_slots.h`, shared with `SpscRingQueue`. The
// enqueue and dequeue indices sit on their own cache lines.
//
// Besides the exact try_push / try_pop, it has blocking `push` / `pop` (used
// by `Producer::spin_push` / `Consumer::spin_pop`): each claims its position
// with one fetch_add, which cannot fail, and then waits on its own slot, so
// contending threads do not retry a CAS on the shared index.
//
// Parking: `pop` waits by spinning, then by yielding (base/spin_wait.h), and
// after `kYieldsBeforePark` yields it parks in a futex on the queue's 32-bit
// `wake_` word (base/futex.h), so a consumer thread of an idle queue sleeps
// in the kernel without a condition variable beside the queue. The spin and
// yield phase is far longer than a hot hand-off, so a ping-pong through
// `spin_pop` never parks. `push` (waiting for a free slot when the ring is
// full) only spins and yields: it never parks. `try_pop` never waits.
//
// No lost wake-up (a Dekker pairing, with no fences, which ThreadSanitizer
// does not model): a consumer parking at position `pos` increments `parked_`
// (a seq_cst RMW) and then loads `enqueue_pos_` (seq_cst); a producer claims
// its position with a seq_cst RMW on `enqueue_pos_` and, after publishing,
// loads `parked_` (seq_cst). All four are in the single total order of
// seq_cst operations, so either
//   - the consumer's load sees the claim of `pos` (enqueue_pos_ > pos): the
//     item's producer is between its claim and its publish, and the consumer
//     spins and yields through that short window instead of parking; or
//   - the load comes before the claim, so the producer's later load of
//     `parked_` sees the consumer's increment (it stays counted until it
//     leaves the park step), and after publishing the producer increments
//     `wake_` (seq_cst) and wakes every thread sleeping on it. The consumer
//     read `wake_` before its load of `enqueue_pos_`, so before that
//     increment: the futex either sees the word changed and returns at once,
//     or sleeps and is woken.
// Wake all, not one: the word is the queue's, not the slot's, so one wake-up
// could go to a consumer parked at another position. Not std::atomic::wait
// on the slot: libstdc++ 12 waits on an 8-byte atomic through a proxy word
// shared with unrelated addresses, and its notify skips the wake when a
// shared count reads 0 (docs/components.md, "The lost wake-up").
//
// What it costs: a producer's claim is seq_cst (on x86 the same locked
// instruction as before, free), plus one load of `parked_` per push, a line
// of its own that is written only when a consumer parks or leaves the park
// step (an L1 hit while nobody parks). A push pays a notify (a futex
// syscall) only while some consumer is parked; a parked consumer pays a
// syscall to sleep and one to be woken. While consumers park and wake often,
// the `parked_` line moves between cores on every such push.
//
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
#include "base/futex.h"
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
  // A move that throws after a position is claimed would leave its slot
  // unpublished, and every later pop would wait for it (queues/queue.h).
  static constexpr bool kRequiresNothrowMove = true;
  static constexpr std::size_t kMaxCapacity =
      queues_internal::SequencedSlots<T>::kMaxCapacity;

  // (clang-format 14 splits these requires-clauses mid-way.)
  // clang-format off
  // `capacity` in [1, kMaxCapacity], rounded up to a power of two (at least
  // 2); std::invalid_argument otherwise.
  explicit BoundedMpmcQueue(std::size_t capacity)
    requires NothrowMovable<T>
      : BoundedMpmcQueue(capacity,
                         queues_internal::StartPositionForTesting{}) {}

  // Test-only: starts both positions at `start.position` (tests run them
  // across the wrap at 2^64).
  BoundedMpmcQueue(std::size_t capacity,
                   queues_internal::StartPositionForTesting start)
    requires NothrowMovable<T>
      : slots_(queues_internal::CheckedCapacity(kName, capacity, kMaxCapacity),
               start.position),
        enqueue_pos_(start.position),
        dequeue_pos_(start.position) {}
  // clang-format on

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
      // The signed value of the unsigned difference: right across the wrap.
      const auto diff = static_cast<std::intptr_t>(seq - pos);
      if (diff == 0) {
        // seq_cst: one half of the parking handshake (see the top).
        if (enqueue_pos_.compare_exchange_weak(pos, pos + 1,
                                               std::memory_order_seq_cst,
                                               std::memory_order_relaxed)) {
          Publish(slot, pos, std::move(v));
          WakeParked(slot);
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
      const auto diff = static_cast<std::intptr_t>(seq - (pos + 1));
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
    // seq_cst: one half of the parking handshake (see the top).
    const std::size_t pos =
        enqueue_pos_.fetch_add(1, std::memory_order_seq_cst);
    Slot& slot = slots_.at(pos);
    WaitFor(slot, pos);
    Publish(slot, pos, std::move(v));
    WakeParked(slot);
  }

  // Blocking pop: claims a position with one fetch_add and waits on that
  // slot until its item is published (atomic_queue's "optimist" pop): spins,
  // yields, then parks on the slot (see the top). Mixes freely with
  // try_push / try_pop; a claimed position is served in order.
  void pop(T& out) {
    const std::size_t pos =
        dequeue_pos_.fetch_add(1, std::memory_order_relaxed);
    Slot& slot = slots_.at(pos);
    WaitPublished(slot, pos);
    Take(slot, pos, out);
  }

  std::size_t capacity() const { return slots_.capacity(); }

  // How many consumers are in `pop`'s park step now (parked, or about to park
  // or leave). For tests and monitoring; a snapshot that may be stale at once.
  std::uint32_t parked_consumers() const {
    return parked_.load(std::memory_order_relaxed);
  }

  // Yields a blocked `pop` makes (after base/spin_wait.h's pauses) before it
  // parks: tens of microseconds on an idle core, far above a hot hand-off.
  static constexpr unsigned kYieldsBeforePark = 64;

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

  // Waits until the item at `pos` is published: pauses, then
  // `kYieldsBeforePark` yields, then parks.
  void WaitPublished(Slot& slot, std::size_t pos) {
    const std::size_t want = pos + 1;
    SpinThenYield backoff;
    for (unsigned yields = 0; yields < kYieldsBeforePark;) {
      if (slot.seq.load(std::memory_order_acquire) == want) return;
      if (backoff.yielding()) ++yields;
      backoff.Pause();
    }
    Park(slot, pos);
  }

  // The consumer's half of the parking handshake (see the top).
  void Park(Slot& slot, std::size_t pos) {
    const std::size_t want = pos + 1;
    for (;;) {
      parked_.fetch_add(1, std::memory_order_seq_cst);
      const std::uint32_t epoch = wake_.load(std::memory_order_seq_cst);
      const std::size_t claimed = enqueue_pos_.load(std::memory_order_seq_cst);
      // Positions grow without wrapping in practice; the signed difference
      // keeps the comparison right across a wrap anyway.
      if (static_cast<std::intptr_t>(claimed - pos) > 0) {
        // `pos` is claimed: its producer is between its claim and its
        // publish (or, in `push` on a full ring, waiting for the previous
        // lap's consumer). It may not see us, so do not sleep.
        parked_.fetch_sub(1, std::memory_order_relaxed);
        WaitFor(slot, want);
        return;
      }
      // Not claimed yet: the producer that claims `pos` will see `parked_`
      // non-zero and wake us after it publishes. Any other publish while we
      // are parked wakes us too; that just goes round again.
      if (slot.seq.load(std::memory_order_acquire) != want) {
        FutexWaitWord(&wake_, epoch);
      }
      parked_.fetch_sub(1, std::memory_order_relaxed);
      if (slot.seq.load(std::memory_order_acquire) == want) return;
    }
  }

  // The producer's half: after publishing, wakes the parked consumers, if any
  // consumer is parked at all.
  void WakeParked(Slot&) {
    if (parked_.load(std::memory_order_seq_cst) != 0) {
      wake_.fetch_add(1, std::memory_order_seq_cst);
      FutexWakeWord(&wake_, INT32_MAX);
    }
  }

  // Read-only after construction; shares no line with the hot indices.
  alignas(kCacheLineSize) Slots slots_;

  alignas(kCacheLineSize) std::atomic<std::size_t> enqueue_pos_;
  alignas(kCacheLineSize) std::atomic<std::size_t> dequeue_pos_;
  // Consumers in the park step. Read by every push, written only by parking
  // consumers: on its own line, so pops and pushes do not write it.
  alignas(kCacheLineSize) std::atomic<std::uint32_t> parked_{0};
  // The futex word parked consumers sleep on; bumped by a wake.
  std::atomic<std::uint32_t> wake_{0};
  char pad_[kCacheLineSize - 2 * sizeof(std::atomic<std::uint32_t>)];

  friend struct BoundedMpmcQueueLayout;
};

// Proves the padding: the two hot indices, the parked-consumer count and the
// read-only fields each own a cache line.
struct BoundedMpmcQueueLayout {
  using Q = BoundedMpmcQueue<std::uint64_t>;
  static_assert(offsetof(Q, enqueue_pos_) - offsetof(Q, slots_) ==
                kCacheLineSize);
  static_assert(offsetof(Q, dequeue_pos_) - offsetof(Q, enqueue_pos_) ==
                kCacheLineSize);
  static_assert(offsetof(Q, parked_) - offsetof(Q, dequeue_pos_) ==
                kCacheLineSize);
  static_assert(sizeof(Q) == 4 * kCacheLineSize);
};

static_assert(Queue<BoundedMpmcQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_BOUNDED_MPMC_QUEUE_H_
