// -----------------------------------------------------------------------------
// queues/internal/sequenced_slots.h
// -----------------------------------------------------------------------------
//
// `SequencedSlots<T>`: the slot array under our two rings (`SpscRingQueue`,
// `BoundedMpmcQueue`). Each slot holds one `T` and a sequence number that
// says, for a position `pos` (a counter that grows without wrapping), whose
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
//     a cache line (four 8-byte items with their sequences per line). Until
//     2026-11-25 consecutive positions were spread over different lines, so
//     that a producer at p+1 would not touch the line a consumer reads p from.
//     Measured on the 2-core VM, that spreading cost more than it saved: a
//     stream moved one line per item instead of one per four (1:1 1.39x
//     spsc-ring, 1.93x bounded-mpmc with lines shared), and the round trip
//     went from 1.24x the core-to-core floor to 1.00x in the host's near
//     state (no change in its far state; README, "Slot layout").
//   - The capacity is a power of two, at least two.
//
// Not thread-safe by itself: the rings decide who may touch which position.

#ifndef SERVERKIT_QUEUES_INTERNAL_SEQUENCED_SLOTS_H_
#define SERVERKIT_QUEUES_INTERNAL_SEQUENCED_SLOTS_H_

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>

#include "base/cache_line.h"

namespace serverkit::queues_internal {

template <typename T>
class SequencedSlots {
 public:
  struct Slot {
    std::atomic<std::size_t> seq;
    alignas(T) unsigned char storage[sizeof(T)];
    T* item() { return std::launder(reinterpret_cast<T*>(storage)); }
  };

  // The alignment the slot array is allocated with (tests check it).
  static constexpr std::size_t kAlignment =
      alignof(Slot) > kCacheLineSize ? alignof(Slot) : kCacheLineSize;

  explicit SequencedSlots(std::size_t requested)
      : capacity_(RoundCapacity(requested)),
        mask_(capacity_ - 1),
        slots_(static_cast<Slot*>(::operator new[](
            capacity_ * sizeof(Slot), std::align_val_t{kAlignment}))) {
    for (std::size_t p = 0; p < capacity_; ++p) {
      Slot* s = new (&slots_[p]) Slot;
      s->seq.store(p, std::memory_order_relaxed);
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
