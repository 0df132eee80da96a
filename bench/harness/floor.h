// -----------------------------------------------------------------------------
// bench/harness/floor.h
// -----------------------------------------------------------------------------
//
// The machine's core-to-core floor: two threads pinned to two cores bounce
// a cache line, the next of 64 each round trip (floor.cc says why one line
// alone is not stable), and every round trip is timed. A queue round trip
// between the same two cores pays at least this (two cache-line transfers), so
// a queue's latency is best read as a multiple of the floor measured in the
// same run.
//
// The floor sends the reply on the request's own line. A round trip through
// two queues (one each way) cannot: the request and the reply are on two
// lines, each written by one core and read by the other.
// `FloorLines::kTwoLines` measures that pattern, with nothing else of a
// queue in it: the least a ping-pong through any two queues can cost
// (docs/components.md, "Two floors", has its ratio to the one-line floor).
//
// The floor moves with the host (a VM's vCPUs sit at a distance the
// hypervisor chooses and changes), which is why every sweep measures it at
// its start, at its end, and interleaved with its own benchmarks.
//
// The waiting side spins on a plain load, without a pause instruction. That
// is not always the fastest spin: a floor whose loops pause can measure
// under this one, so a queue whose waits pause can come in under 1.0x of
// either floor (docs/methods.md).
//
// Thread-safety: `MeasureFloor` may be called from any thread; it starts and
// joins its one helper thread, and pins both to the cores it names (the
// calling thread's affinity is restored before it returns).

#ifndef SERVERKIT_BENCH_HARNESS_FLOOR_H_
#define SERVERKIT_BENCH_HARNESS_FLOOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace serverkit::bench {

struct FloorSample {
  int cpu_a = -1;  // the CPUs (as the OS numbers them) the two threads ran on
  int cpu_b = -1;
  std::uint64_t round_trips = 0;
  double p50_ns = 0;
  double p99_ns = 0;
  double p999_ns = 0;
};

// The two CPUs the floor and the queue latency scenario use: the first two
// this process may run on (`PinToCore(0)` and `PinToCore(1)`). nullopt with
// fewer than two.
std::optional<std::pair<int, int>> FloorCpus();

// Where the reply of a round trip goes.
enum class FloorLines {
  kSameLine,  // onto the request's line: the floor every sweep measures
  kTwoLines,  // onto a line of its own: a two-queue ping-pong's bound
};

// Bounces a cache line `round_trips` times (after a short warm-up; round trip
// i uses the (i % 64)-th of 64 lines, or of two sets of 64 with kTwoLines)
// between a thread pinned to `PinToCore(0)` and one pinned to `PinToCore(1)`.
// nullopt when fewer than two cores are allowed or pinning is refused: a
// floor measured on one core would be the scheduler's, not the hardware's.
// `samples`, when given, receives every round trip in ns (sorted).
std::optional<FloorSample> MeasureFloor(
    std::uint64_t round_trips, std::vector<double>* samples = nullptr,
    FloorLines lines = FloorLines::kSameLine);

// A sweep's host drifted when the floor's p50 before and after the sweep
// differ by more than this fraction (max / min - 1), or when the floor's
// interleaved repetitions vary by a coefficient of variation above it.
inline constexpr double kDriftThreshold = 0.20;

// Why the host drifted (one sentence a rule), or nothing when it held still.
// A value that was not measured (nullopt) takes no part.
std::vector<std::string> FloorDrift(std::optional<double> before_p50_ns,
                                    std::optional<double> after_p50_ns,
                                    std::optional<double> row_cv,
                                    double threshold = kDriftThreshold);

}  // namespace serverkit::bench

#endif  // SERVERKIT_BENCH_HARNESS_FLOOR_H_
