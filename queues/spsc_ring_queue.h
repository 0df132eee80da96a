// -----------------------------------------------------------------------------
// queues/spsc_ring_queue.h
// -----------------------------------------------------------------------------
//
// `SpscRingQueue<T>`: our bounded single-producer single-consumer ring.
//
//   1. The producer owns the write index, the consumer the read index; each
//      sits on its own cache line.
//   2. Each side keeps a private copy of the other side's index and reloads
//      the shared one only when its copy says "full" (producer) or "empty"
//      (consumer). In steady state a push or pop touches no line the other
//      thread writes, except the slot itself.
//   3. Indices grow without wrapping (64-bit); `index & mask` picks the slot.
//
// Capacity is rounded up to a power of two.
//
// Thread-safety: one producer thread and one consumer thread at a time (SPSC).
// Wait-free: both operations finish in a bounded number of steps.
//
// Memory ordering: the producer constructs the item, then stores the write
// index with release; the consumer loads it with acquire before reading the
// item. Symmetrically the consumer's release store of the read index orders
// its destruction of the item before the producer reuses the slot.

#ifndef SERVERKIT_QUEUES_SPSC_RING_QUEUE_H_
#define SERVERKIT_QUEUES_SPSC_RING_QUEUE_H_

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <utility>

#include "base/cache_line.h"
#include "queues/queue.h"

namespace serverkit {

template <typename T>
class SpscRingQueue {
 public:
  using value_type = T;
  static constexpr std::string_view kName = "spsc-ring";
  static constexpr Topology kTopology = Topology::kSpsc;
  static constexpr bool kBounded = true;

  explicit SpscRingQueue(std::size_t capacity)
      : capacity_(std::bit_ceil(capacity < 2 ? std::size_t{2} : capacity)),
        mask_(capacity_ - 1),
        items_(static_cast<T*>(
            ::operator new[](capacity_ * sizeof(T), kItemsAlignment))) {}

  SpscRingQueue(const SpscRingQueue&) = delete;
  SpscRingQueue& operator=(const SpscRingQueue&) = delete;

  ~SpscRingQueue() {
    const std::size_t w = write_.load(std::memory_order_relaxed);
    for (std::size_t r = read_.load(std::memory_order_relaxed); r != w; ++r) {
      items_[r & mask_].~T();
    }
    ::operator delete[](items_, kItemsAlignment);
  }

  bool try_push(T&& v) {
    const std::size_t w = write_.load(std::memory_order_relaxed);
    if (w - cached_read_ == capacity_) {
      cached_read_ = read_.load(std::memory_order_acquire);
      if (w - cached_read_ == capacity_) return false;
    }
    new (&items_[w & mask_]) T(std::move(v));
    write_.store(w + 1, std::memory_order_release);
    return true;
  }

  bool try_pop(T& out) {
    const std::size_t r = read_.load(std::memory_order_relaxed);
    if (r == cached_write_) {
      cached_write_ = write_.load(std::memory_order_acquire);
      if (r == cached_write_) return false;
    }
    T* item = std::launder(&items_[r & mask_]);
    out = std::move(*item);
    item->~T();
    read_.store(r + 1, std::memory_order_release);
    return true;
  }

  std::size_t capacity() const { return capacity_; }

 private:
  static constexpr std::align_val_t kItemsAlignment{
      alignof(T) > kCacheLineSize ? alignof(T) : kCacheLineSize};

  // Read-only after construction.
  alignas(kCacheLineSize) const std::size_t capacity_;
  const std::size_t mask_;
  T* const items_;

  // Producer's line.
  alignas(kCacheLineSize) std::atomic<std::size_t> write_{0};
  std::size_t cached_read_ = 0;

  // Consumer's line.
  alignas(kCacheLineSize) std::atomic<std::size_t> read_{0};
  std::size_t cached_write_ = 0;
  char pad_[kCacheLineSize - 2 * sizeof(std::size_t)];

  friend struct SpscRingQueueLayout;
};

// Proves the padding: producer state, consumer state and the read-only fields
// each own a cache line.
struct SpscRingQueueLayout {
  using Q = SpscRingQueue<std::uint64_t>;
  static_assert(offsetof(Q, write_) - offsetof(Q, capacity_) == kCacheLineSize);
  static_assert(offsetof(Q, read_) - offsetof(Q, write_) == kCacheLineSize);
  static_assert(sizeof(Q) == 3 * kCacheLineSize);
};

static_assert(Queue<SpscRingQueue<int>>);

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_SPSC_RING_QUEUE_H_
