// -----------------------------------------------------------------------------
// queues/spsc_ring_queue.h
// -----------------------------------------------------------------------------
//
// `SpscRingQueue<T>`: our bounded single-producer single-consumer ring.
//
//   1. The slots carry sequence numbers (`queues/internal/sequenced_slots.h`):
//      the consumer learns that an item is there from the slot it will read
//      it from, and the producer learns that a slot is free from the slot it
//      will write. Neither side ever reads the other side's index, so one
//      hand-off moves one cache line (the slot's), where a ring with shared
//      indices moves two (the index's line, then the slot's).
//   2. Each side's position is private, on its own cache line; no atomic
//      read-modify-write anywhere.
//   3. Consecutive positions share a cache line (slot p % capacity), so a
//      stream of small items moves one line per several items
//      (docs/components.md, "Slot layout").
//
// Capacity is rounded up to a power of two (at least two); 0 throws
// std::invalid_argument. Slots honour `alignof(T)`, over-aligned types
// included.
//
// Exceptions (queues/queue.h): survives a throwing move. Each side's position
// is private and advances only after the move, so a push whose move throws
// publishes nothing, and a pop whose move throws leaves the item in its slot.
//
// Thread-safety: one producer thread and one consumer thread at a time (SPSC).
// Wait-free: both operations finish in a bounded number of steps.
//
// Memory ordering: the producer constructs the item, then stores the slot's
// sequence with release; the consumer loads it with acquire before reading
// the item. The consumer destroys the item before its release store that
// frees the slot, and the producer's acquire load orders that before it
// constructs into the slot again.

#ifndef SERVERKIT_QUEUES_SPSC_RING_QUEUE_H_
#define SERVERKIT_QUEUES_SPSC_RING_QUEUE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <utility>

#include "base/cache_line.h"
#include "queues/internal/sequenced_slots.h"
#include "queues/queue.h"

namespace serverkit {

template <typename T>
class SpscRingQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "spsc-ring";
  static constexpr Topology kTopology = Topology::kSpsc;
  static constexpr bool kBounded = true;

  static constexpr std::size_t kMaxCapacity =
      queues_internal::SequencedSlots<T>::kMaxCapacity;

  // `capacity` in [1, kMaxCapacity]; std::invalid_argument otherwise.
  explicit SpscRingQueue(std::size_t capacity)
      : SpscRingQueue(capacity, queues_internal::StartPositionForTesting{}) {}

  // Test-only: starts both positions at `start.position` (tests run them
  // across the wrap at 2^64).
  SpscRingQueue(std::size_t capacity,
                queues_internal::StartPositionForTesting start)
      : slots_(queues_internal::CheckedCapacity(kName, capacity, kMaxCapacity),
               start.position),
        write_(start.position),
        read_(start.position) {}

  SpscRingQueue(const SpscRingQueue&) = delete;
  SpscRingQueue& operator=(const SpscRingQueue&) = delete;

  ~SpscRingQueue() { slots_.Destroy(read_, write_); }

  bool try_push(T&& v) {
    Slot& slot = slots_.at(write_);
    if (slot.seq.load(std::memory_order_acquire) != write_) {
      return false;  // full: the slot still holds last lap's item
    }
    new (slot.storage) T(std::move(v));  // if it throws, nothing changed
    slot.seq.store(write_ + 1, std::memory_order_release);
    ++write_;
    return true;
  }

  bool try_pop(T& out) {
    Slot& slot = slots_.at(read_);
    if (slot.seq.load(std::memory_order_acquire) != read_ + 1) {
      return false;  // empty: nothing published at this position yet
    }
    T* item = slot.item();
    out = std::move(*item);  // if it throws, the item stays at the head
    item->~T();
    slot.seq.store(read_ + slots_.capacity(), std::memory_order_release);
    ++read_;
    return true;
  }

  std::size_t capacity() const { return slots_.capacity(); }

 private:
  using Slots = queues_internal::SequencedSlots<T>;
  using Slot = typename Slots::Slot;

  // Read-only after construction.
  alignas(kCacheLineSize) Slots slots_;

  // The producer's line: the next position it fills.
  alignas(kCacheLineSize) std::size_t write_;

  // The consumer's line: the next position it takes.
  alignas(kCacheLineSize) std::size_t read_;
  char pad_[kCacheLineSize - sizeof(std::size_t)];

  friend struct SpscRingQueueLayout;
};

// Proves the padding: producer state, consumer state and the read-only fields
// each own a cache line.
struct SpscRingQueueLayout {
  using Q = SpscRingQueue<std::uint64_t>;
  static_assert(offsetof(Q, write_) - offsetof(Q, slots_) == kCacheLineSize);
  static_assert(offsetof(Q, read_) - offsetof(Q, write_) == kCacheLineSize);
  static_assert(sizeof(Q) == 3 * kCacheLineSize);
};

static_assert(Queue<SpscRingQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_SPSC_RING_QUEUE_H_
