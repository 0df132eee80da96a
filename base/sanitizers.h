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

namespace serverkit {

#if defined(SERVERKIT_BASE_INTERNAL_TSAN)
inline constexpr bool kUnderTsan = true;
#else
inline constexpr bool kUnderTsan = false;
#endif

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
