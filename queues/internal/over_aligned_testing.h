// -----------------------------------------------------------------------------
// queues/internal/over_aligned_testing.h
// -----------------------------------------------------------------------------
//
// `OverAligned`: a test element over-aligned to two cache lines, as people pad
// values. Every constructor checks the address it runs at (constructing an
// object at an address that does not honour its alignment is undefined
// behaviour) and counts what it saw in the two static counters, which a test
// resets before it starts. For tests only (queue_test, bounded_mpmc_park_test).

#ifndef SERVERKIT_QUEUES_INTERNAL_OVER_ALIGNED_TESTING_H_
#define SERVERKIT_QUEUES_INTERNAL_OVER_ALIGNED_TESTING_H_

#include <atomic>
#include <cstdint>

namespace serverkit::queues_internal {

struct alignas(128) OverAligned {
  static inline std::atomic<long> misaligned{0};
  static inline std::atomic<long> constructed{0};

  OverAligned() { Check(); }
  explicit OverAligned(std::uint64_t v) : value(v) { Check(); }
  OverAligned(const OverAligned& o) : value(o.value) { Check(); }
  OverAligned(OverAligned&& o) noexcept : value(o.value) { Check(); }
  OverAligned& operator=(const OverAligned&) = default;
  OverAligned& operator=(OverAligned&&) noexcept = default;

  void Check() {
    constructed.fetch_add(1);
    if (reinterpret_cast<std::uintptr_t>(this) % alignof(OverAligned) != 0) {
      misaligned.fetch_add(1);
    }
  }

  std::uint64_t value = 0;
};
static_assert(alignof(OverAligned) == 128);

}  // namespace serverkit::queues_internal

#endif  // SERVERKIT_QUEUES_INTERNAL_OVER_ALIGNED_TESTING_H_
