// -----------------------------------------------------------------------------
// base/thread_cpu.h
// -----------------------------------------------------------------------------
//
// ThreadCpuNs(): the calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID),
// the clock the slowed-on-purpose controls spin on and the tests that check
// them read: a preempted spin still costs its stated CPU. One read costs a
// system call (about 0.6 us in a VM).
//
// Thread-safety: thread-safe.

#ifndef SERVERKIT_BASE_THREAD_CPU_H_
#define SERVERKIT_BASE_THREAD_CPU_H_

#include <time.h>

#include <cstdint>

namespace serverkit {

inline std::uint64_t ThreadCpuNs() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace serverkit

#endif  // SERVERKIT_BASE_THREAD_CPU_H_
