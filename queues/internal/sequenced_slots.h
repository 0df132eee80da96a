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
//   - Consecutive positions are spread over different cache lines: position
//     `p` lives in slot `(p % lines) * per_line + (p / lines) % per_line`, so
//     a producer filling position p+1 does not fight over the line that the
//     consumer is reading position p from.
//   - The capacity is a power of two, at least two lines' worth of slots.
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
        lines_mask_(capacity_ / kSlotsPerLine - 1),
        lines_shift_(std::countr_zero(capacity_ / kSlotsPerLine)),
        slots_(static_cast<Slot*>(::operator new[](
            capacity_ * sizeof(Slot), std::align_val_t{kAlignment}))) {
    for (std::size_t p = 0; p < capacity_; ++p) {
      Slot* s = new (&slots_[SlotIndex(p)]) Slot;
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
  Slot& at(std::size_t pos) const { return slots_[SlotIndex(pos)]; }

 private:
  // Slots per cache line, rounded down to a power of two (at least 1).
  static constexpr std::size_t kSlotsPerLine =
      sizeof(Slot) >= kCacheLineSize
          ? 1
          : std::bit_floor(kCacheLineSize / sizeof(Slot));

  static std::size_t RoundCapacity(std::size_t requested) {
    const std::size_t c =
        std::bit_ceil(requested < 2 ? std::size_t{2} : requested);
    return c < kSlotsPerLine * 2 ? kSlotsPerLine * 2 : c;
  }

  // A bijection on [0, capacity): consecutive positions land on different
  // cache lines.
  std::size_t SlotIndex(std::size_t pos) const {
    const std::size_t i = pos & mask_;
    return (i & lines_mask_) * kSlotsPerLine + (i >> lines_shift_);
  }

  std::size_t capacity_;
  std::size_t mask_;
  std::size_t lines_mask_;
  int lines_shift_;
  Slot* slots_;
};

}  // namespace serverkit::queues_internal

#endif  // SERVERKIT_QUEUES_INTERNAL_SEQUENCED_SLOTS_H_
