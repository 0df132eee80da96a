// -----------------------------------------------------------------------------
// queues/sweep/latency.h
// -----------------------------------------------------------------------------
//
// The queue sweep's `latency` scenario: two threads pinned to two cores
// bounce a token through two queues, every round trip timed (p50 / p99 /
// p99.9 in ns), and each repetition's round trips read as a multiple of the
// floor (bench/harness/floor.h) measured just before and after it between
// the same two cores.
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_QUEUES_SWEEP_LATENCY_H_
#define SERVERKIT_QUEUES_SWEEP_LATENCY_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <thread>
#include <vector>

#include "base/percentile.h"
#include "bench/harness/floor.h"
#include "bench/harness/harness.h"
#include "queues/queue.h"
#include "queues/sweep/common.h"

namespace serverkit::bench::queue_sweep {

inline constexpr std::uint64_t kLatencyWarmup = 1000;
// Round trips of the floor measured beside each latency repetition.
inline constexpr std::uint64_t kAdjacentFloorTrips = 10'000;

// The round trips' percentiles and, with one iteration per repetition, their
// ratios to the mean of the floors measured just before and just after it.
// (No floor on one core: no ratio, and no ranking.)
inline void SetLatencyCounters(benchmark::State& state,
                               std::vector<double>& samples,
                               const std::vector<double>& floors,
                               const std::vector<double>& two_line_floors) {
  std::sort(samples.begin(), samples.end());
  state.counters["p50_ns"] = Percentile(samples, 0.50, true);
  state.counters["p99_ns"] = Percentile(samples, 0.99, true);
  state.counters["p999_ns"] = Percentile(samples, 0.999, true);
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  if (!floors.empty()) {
    const double floor_ns = mean(floors);
    state.counters["floor_ns"] = floor_ns;
    state.counters["p50_x_floor"] = state.counters["p50_ns"] / floor_ns;
    state.counters["p99_x_floor"] = state.counters["p99_ns"] / floor_ns;
  }
  if (!two_line_floors.empty()) {
    const double two_ns = mean(two_line_floors);
    state.counters["two_line_floor_ns"] = two_ns;
    state.counters["p50_x_two_line_floor"] = state.counters["p50_ns"] / two_ns;
  }
}

template <Queue Q>
void BM_Latency(benchmark::State& state, std::uint64_t round_trips) {
  constexpr std::uint64_t kWarmup = kLatencyWarmup;
  std::vector<double> samples;
  samples.reserve(round_trips * 2);
  bool echo_ok = true;
  std::vector<double> floors, two_line_floors;
  // The floor right before and right after this repetition's round trips,
  // between the same two cores: the host's core-to-core distance moves
  // over minutes, and the ratio to the floor measured beside it is what
  // stays comparable between repetitions, runs and hosts. Beside it, the
  // two-line floor: the same bounce with the reply on a line of its own,
  // the least any two-queue round trip can cost (floor.h).
  auto measure_floors = [&] {
    if (auto f = MeasureFloor(kAdjacentFloorTrips)) floors.push_back(f->p50_ns);
    if (auto f =
            MeasureFloor(kAdjacentFloorTrips, nullptr, FloorLines::kTwoLines)) {
      two_line_floors.push_back(f->p50_ns);
    }
  };
  for (auto _ : state) {
    measure_floors();
    Q ping(kCapacity), pong(kCapacity);
    // The echo thread's bound is its own copy: read through a reference, it
    // would be loaded from this thread's stack frame every round trip, a
    // line this thread writes (a second line moving between the cores).
    const std::uint64_t total = kWarmup + round_trips;
    std::thread echo([&ping, &pong, total] {
      PinToCore(1);
      Consumer<Q> in(ping);
      Producer<Q> out(pong);
      for (std::uint64_t i = 0; i < total; ++i) {
        std::uint64_t v;
        in.spin_pop(v);
        out.spin_push(v + 1);
      }
    });
    PinToCore(0);
    Producer<Q> out(ping);
    Consumer<Q> in(pong);
    Clock::duration measured{};
    for (std::uint64_t i = 0; i < total; ++i) {
      const auto t0 = Clock::now();
      out.spin_push(std::uint64_t{i});
      std::uint64_t v;
      in.spin_pop(v);
      const auto t1 = Clock::now();
      echo_ok &= v == i + 1;
      if (i >= kWarmup) {
        measured += t1 - t0;
        samples.push_back(
            std::chrono::duration<double, std::nano>(t1 - t0).count());
      }
    }
    echo.join();
    UnpinThread();
    measure_floors();
    state.SetIterationTime(Seconds(measured));
    if (!echo_ok) {
      state.SkipWithError("the echoed token was wrong");
      break;
    }
  }
  SetLatencyCounters(state, samples, floors, two_line_floors);
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * round_trips));
  ThreadCounters(state, 2);
}

template <Queue Q>
void RegisterLatency(Profile profile, std::string_view impl) {
  const std::uint64_t trips =
      ByProfile<std::uint64_t>(profile, 2'000, 40'000, 1'000'000);
  DescribeScenario("latency",
                   {{"round_trips", trips},
                    {"warmup_round_trips", kLatencyWarmup},
                    {"adjacent_floor_round_trips", kAdjacentFloorTrips}});
  RegisterTimedOnce(BenchName("queues", "latency", impl).c_str(),
                    [=](benchmark::State& s) { BM_Latency<Q>(s, trips); });
}

}  // namespace serverkit::bench::queue_sweep

#endif  // SERVERKIT_QUEUES_SWEEP_LATENCY_H_
