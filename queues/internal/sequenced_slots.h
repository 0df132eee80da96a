// -----------------------------------------------------------------------------
// queues/internal/sequenced_slots.h
// -----------------------------------------------------------------------------
//
// `SequencedSlots<T>`: the slot array under our two rings (`SpscRingQueue`,
// `BoundedMpmcQueue`). Each slot holds one `T` and a sequence number that
// says, for a position `pos` (a counter; see "Positions" below), whose
// turn the slot is:
//
//   seq == pos               free: the producer at `pos` may construct into it
//   seq == pos + 1           full: the consumer at `pos` may take the item
//   seq == pos + capacity    freed again, for the producer one lap later
//
// (Dmitry Vyukov's bounded-queue sequence scheme.) A side that finds the
// sequence behind its position knows at once that the ring is full (producer)
// or empty (consumer) without reading the other side's index, and a consumer
// waits on the very line it will read the item from: one cache line moves per
// hand-off when `T` fits in a line with its sequence.
//
// Layout:
//   - Slots are allocated with `max(alignof(Slot), kCacheLineSize)`, so an
//     over-aligned `T` (`struct alignas(128) ...`) is constructed at an
//     address that honours its alignment.
//   - Position `p` lives in slot `p % capacity`: consecutive positions share
//     a cache line (four 8-byte items with their sequences per line). Spread
//     over different lines instead, a stream moves one line per item rather
//     than one per four, which cost more than the spreading saved
//     (docs/components.md, "Slot layout", has the measurements).
//   - The capacity is a power of two, at least two: with one slot, "full for
//     the consumer at pos" and "free for the producer at pos + 1" would both
//     read pos + 1.
//
// Positions are `std::size_t` counters that wrap at 2^64; every comparison
// is an equality or the signed value of an unsigned difference, so the wrap
// is harmless. `StartPositionForTesting` starts a ring near it, so tests
// reach the wrap without 2^64 operations.
//
// Not thread-safe by itself: the rings decide who may touch which position.

#ifndef SERVERKIT_QUEUES_INTERNAL_SEQUENCED_SLOTS_H_
#define SERVERKIT_QUEUES_INTERNAL_SEQUENCED_SLOTS_H_

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>

#include "base/cache_line.h"

namespace serverkit::queues_internal {

// Test-only: the position a ring's first push and pop take, instead of 0.
// Only the constructors read it: it costs the hot path nothing.
struct StartPositionForTesting {
  std::size_t position = 0;
};

template <typename T>
class SequencedSlots {
 public:
  struct Slot {
    std::atomic<std::size_t> seq;
    alignas(T) unsigned char storage[sizeof(T)];
    T* item() { return std::launder(reinterpret_cast<T*>(storage)); }
  };

  // The alignment the slot array is allocated with (tests check it).
  static constexpr std::size_t kAlignment = alignof(Slot) > kCacheLineSize
                                                ? alignof(Slot)
                                                : kCacheLineSize;

  // The largest capacity whose slot array's size fits in a std::size_t.
  static constexpr std::size_t kMaxCapacity =
      std::bit_floor(std::numeric_limits<std::size_t>::max() / sizeof(Slot));

  // `requested` in [1, kMaxCapacity] (the owner checks it); the first
  // position is `start`.
  SequencedSlots(std::size_t requested, std::size_t start)
      : capacity_(RoundCapacity(requested)),
        mask_(capacity_ - 1),
        slots_(static_cast<Slot*>(::operator new[](
            capacity_ * sizeof(Slot), std::align_val_t{kAlignment}))) {
    for (std::size_t i = 0; i < capacity_; ++i) new (&slots_[i]) Slot;
    // Positions start, start + 1, ... (wrapping) are free for their producers.
    for (std::size_t i = 0; i < capacity_; ++i) {
      at(start + i).seq.store(start + i, std::memory_order_relaxed);
    }
  }

  SequencedSlots(const SequencedSlots&) = delete;
  SequencedSlots& operator=(const SequencedSlots&) = delete;

  // Destroys the items at positions [head, tail) and frees the slots. Not
  // thread-safe; the owner calls it from its destructor.
  void Destroy(std::size_t head, std::size_t tail) {
    for (std::size_t p = head; p != tail; ++p) at(p).item()->~T();
    for (std::size_t i = 0; i < capacity_; ++i) slots_[i].~Slot();
    ::operator delete[](slots_, std::align_val_t{kAlignment});
  }

  std::size_t capacity() const { return capacity_; }

  // The slot of position `pos`.
  Slot& at(std::size_t pos) const { return slots_[pos & mask_]; }

 private:
  static std::size_t RoundCapacity(std::size_t requested) {
    return std::bit_ceil(requested < 2 ? std::size_t{2} : requested);
  }

  std::size_t capacity_;
  std::size_t mask_;
  Slot* slots_;
};

}  // namespace serverkit::queues_internal

#endif  // SERVERKIT_QUEUES_INTERNAL_SEQUENCED_SLOTS_H_
