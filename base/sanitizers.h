// -----------------------------------------------------------------------------
// base/sanitizers.h
// -----------------------------------------------------------------------------
//
// Whether this translation unit is compiled under a sanitizer, as constants,
// from what the compiler itself says (gcc: `__SANITIZE_THREAD__`,
// `__SANITIZE_ADDRESS__`; clang: `__has_feature`), so no build flag has to be
// passed along. Tests use them to shrink their workloads: ThreadSanitizer runs
// them 5-15x slower, AddressSanitizer 2-3x.
//
//   constexpr int kSteps = kUnderSanitizer ? 4'000 : 20'000;
//
// UndefinedBehaviorSanitizer is not counted: it barely slows a test down.
//
// `TsanRelease(addr)` and `TsanAcquire(addr)` tell ThreadSanitizer about an
// order it cannot see (an uninstrumented library, a standalone fence): what a
// thread did before a release on `addr` happens before what another thread
// does after a later acquire on `addr`. They are no-ops in other builds.
// `TsanHandoff` says it for an object that such code moves across threads and
// whose memory it recycles.

#ifndef SERVERKIT_BASE_SANITIZERS_H_
#define SERVERKIT_BASE_SANITIZERS_H_

#if defined(__SANITIZE_THREAD__)
#define SERVERKIT_BASE_INTERNAL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SERVERKIT_BASE_INTERNAL_TSAN 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SERVERKIT_BASE_INTERNAL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SERVERKIT_BASE_INTERNAL_ASAN 1
#endif
#endif

#if defined(SERVERKIT_BASE_INTERNAL_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace serverkit {

#if defined(SERVERKIT_BASE_INTERNAL_TSAN)
inline constexpr bool kUnderTsan = true;
#else
inline constexpr bool kUnderTsan = false;
#endif

inline void TsanRelease([[maybe_unused]] const void* addr) noexcept {
#if defined(SERVERKIT_BASE_INTERNAL_TSAN)
  __tsan_release(const_cast<void*>(addr));
#endif
}

inline void TsanAcquire([[maybe_unused]] const void* addr) noexcept {
#if defined(SERVERKIT_BASE_INTERNAL_TSAN)
  __tsan_acquire(const_cast<void*>(addr));
#endif
}

// A member that orders, on its own address, the object it is part of. Declare
// it first: it is then constructed before the other members and destroyed
// after them.
//   - Construction acquires: the object comes after the end of whatever the
//     library destroyed at the same address before.
//   - `Publish()`, once the object is filled, releases; a thread that then
//     copies or moves from the object acquires it first.
//   - Destruction releases, for the next object built at that address.
class TsanHandoff {
 public:
  TsanHandoff() noexcept { TsanAcquire(this); }
  TsanHandoff(const TsanHandoff& from) noexcept {
    TsanAcquire(this);
    TsanAcquire(&from);
  }
  TsanHandoff& operator=(const TsanHandoff& from) noexcept {
    TsanAcquire(&from);
    return *this;
  }
  ~TsanHandoff() { TsanRelease(this); }

  void Publish() const noexcept { TsanRelease(this); }
};

#if defined(SERVERKIT_BASE_INTERNAL_ASAN)
inline constexpr bool kUnderAsan = true;
#else
inline constexpr bool kUnderAsan = false;
#endif

// Under ThreadSanitizer or AddressSanitizer.
inline constexpr bool kUnderSanitizer = kUnderTsan || kUnderAsan;

}  // namespace serverkit

#undef SERVERKIT_BASE_INTERNAL_TSAN
#undef SERVERKIT_BASE_INTERNAL_ASAN

#endif  // SERVERKIT_BASE_SANITIZERS_H_
