// -----------------------------------------------------------------------------
// base/cache_line.h
// -----------------------------------------------------------------------------
//
// The project's one cache-line constant and a CPU pause hint.
//
// `kCacheLineSize` is fixed at 64 bytes (every x86-64 and most AArch64 parts).
// We do not use `std::hardware_destructive_interference_size` in headers: gcc
// 12 warns (-Winterference-size) that its value may differ between translation
// units compiled with different -mtune flags.

#ifndef SERVERKIT_BASE_CACHE_LINE_H_
#define SERVERKIT_BASE_CACHE_LINE_H_

#include <cstddef>

namespace serverkit {

inline constexpr std::size_t kCacheLineSize = 64;

// CpuRelax()
//
// Tells the CPU that the caller is in a spin-wait loop (x86 `pause`), which
// saves power and frees the sibling hyper-thread. A no-op elsewhere.
inline void CpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace serverkit

#endif  // SERVERKIT_BASE_CACHE_LINE_H_
