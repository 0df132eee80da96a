// -----------------------------------------------------------------------------
// bench/harness/internal/sysinfo.h
// -----------------------------------------------------------------------------
//
// What the harness reads of the machine beyond harness.h's thread helpers
// (`Cores`, `AllowedCpus`, `PinToCore`, ..., defined in sysinfo.cc): whether
// pinning was refused, for the rankings' footer, and the CPU model, for the
// JSON context.
//
// Thread-safety: `PinningRefused` is for the main thread, after the
// benchmarks ran; `CpuModel` may be called from any thread.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_SYSINFO_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_SYSINFO_H_

#include <string>

namespace serverkit::bench::internal {

// Whether the system refused a PinToCore call at least once.
bool PinningRefused();

// The "model name" of /proc/cpuinfo ("unknown" when it names none).
std::string CpuModel();

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_SYSINFO_H_
