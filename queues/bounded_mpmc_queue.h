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
// Two additions: the enqueue and dequeue indices sit on their own cache lines,
// and consecutive positions are spread over different cache lines (position
// `p` lives in slot `(p % lines) * per_line + (p / lines) % per_line`), so
// neighbouring producers and consumers do not fight over one line.
//
// Capacity is rounded up to a power of two (and to at least one cache line of
// slots).
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
#include <memory>
#include <new>
#include <string_view>
#include <utility>

#include "base/cache_line.h"
#include "queues/queue.h"

namespace serverkit {

template <typename T>
class BoundedMpmcQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "bounded-mpmc";
  static constexpr Topology kTopology = Topology::kMpmc;
  static constexpr bool kBounded = true;

  explicit BoundedMpmcQueue(std::size_t capacity)
      : capacity_(RoundCapacity(capacity)),
        mask_(capacity_ - 1),
        lines_shift_(std::countr_zero(capacity_ / kSlotsPerLine)),
        slots_(static_cast<Slot*>(::operator new[](
            capacity_ * sizeof(Slot), std::align_val_t{kCacheLineSize}))) {
    for (std::size_t p = 0; p < capacity_; ++p) {
      new (&slots_[SlotIndex(p)]) Slot;
      slots_[SlotIndex(p)].seq.store(p, std::memory_order_relaxed);
    }
  }

  BoundedMpmcQueue(const BoundedMpmcQueue&) = delete;
  BoundedMpmcQueue& operator=(const BoundedMpmcQueue&) = delete;

  ~BoundedMpmcQueue() {
    const std::size_t head = dequeue_pos_.load(std::memory_order_relaxed);
    const std::size_t tail = enqueue_pos_.load(std::memory_order_relaxed);
    for (std::size_t p = head; p != tail; ++p) slots_[SlotIndex(p)].item()->~T();
    for (std::size_t i = 0; i < capacity_; ++i) slots_[i].~Slot();
    ::operator delete[](slots_, std::align_val_t{kCacheLineSize});
  }

  bool try_push(T&& v) {
    std::size_t pos = enqueue_pos_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_[SlotIndex(pos)];
      const std::size_t seq = slot.seq.load(std::memory_order_acquire);
      const auto diff =
          static_cast<std::intptr_t>(seq) - static_cast<std::intptr_t>(pos);
      if (diff == 0) {
        if (enqueue_pos_.compare_exchange_weak(pos, pos + 1,
                                               std::memory_order_relaxed)) {
          new (slot.storage) T(std::move(v));
          slot.seq.store(pos + 1, std::memory_order_release);
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
      Slot& slot = slots_[SlotIndex(pos)];
      const std::size_t seq = slot.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::intptr_t>(seq) -
                        static_cast<std::intptr_t>(pos + 1);
      if (diff == 0) {
        if (dequeue_pos_.compare_exchange_weak(pos, pos + 1,
                                               std::memory_order_relaxed)) {
          T* item = slot.item();
          out = std::move(*item);
          item->~T();
          slot.seq.store(pos + capacity_, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;  // empty: nothing published at this position yet
      } else {
        pos = dequeue_pos_.load(std::memory_order_relaxed);
      }
    }
  }

  std::size_t capacity() const { return capacity_; }

 private:
  struct Slot {
    std::atomic<std::size_t> seq;
    alignas(T) unsigned char storage[sizeof(T)];
    T* item() { return std::launder(reinterpret_cast<T*>(storage)); }
  };

  // Slots per cache line, rounded down to a power of two (at least 1).
  static constexpr std::size_t kSlotsPerLine =
      sizeof(Slot) >= kCacheLineSize ? 1
                                     : std::bit_floor(kCacheLineSize / sizeof(Slot));

  static std::size_t RoundCapacity(std::size_t requested) {
    std::size_t c = std::bit_ceil(requested < 2 ? std::size_t{2} : requested);
    return c < kSlotsPerLine * 2 ? kSlotsPerLine * 2 : c;
  }

  // Spreads consecutive positions over different cache lines (a bijection on
  // [0, capacity)).
  std::size_t SlotIndex(std::size_t pos) const {
    const std::size_t i = pos & mask_;
    const std::size_t line = i & ((capacity_ / kSlotsPerLine) - 1);
    const std::size_t within = i >> lines_shift_;
    return line * kSlotsPerLine + within;
  }

  // Read-only after construction; shares no line with the hot indices.
  alignas(kCacheLineSize) const std::size_t capacity_;
  const std::size_t mask_;
  const int lines_shift_;
  Slot* const slots_;

  alignas(kCacheLineSize) std::atomic<std::size_t> enqueue_pos_{0};
  alignas(kCacheLineSize) std::atomic<std::size_t> dequeue_pos_{0};
  char pad_[kCacheLineSize - sizeof(std::atomic<std::size_t>)];

  friend struct BoundedMpmcQueueLayout;
};

// Proves the padding: the two hot indices and the read-only fields each own a
// cache line.
struct BoundedMpmcQueueLayout {
  using Q = BoundedMpmcQueue<std::uint64_t>;
  static_assert(offsetof(Q, enqueue_pos_) - offsetof(Q, capacity_) ==
                kCacheLineSize);
  static_assert(offsetof(Q, dequeue_pos_) - offsetof(Q, enqueue_pos_) ==
                kCacheLineSize);
  static_assert(sizeof(Q) == 3 * kCacheLineSize);
};

static_assert(Queue<BoundedMpmcQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_BOUNDED_MPMC_QUEUE_H_
