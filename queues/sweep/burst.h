// -----------------------------------------------------------------------------
// queues/sweep/burst.h
// -----------------------------------------------------------------------------
//
// The queue sweep's `burst` scenario: one thread pushes K items, then pops
// K, the uncontended cost of both ends.
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_QUEUES_SWEEP_BURST_H_
#define SERVERKIT_QUEUES_SWEEP_BURST_H_

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "bench/harness/harness.h"
#include "queues/queue.h"
#include "queues/sweep/common.h"

namespace serverkit::bench::queue_sweep {

template <Queue Q>
void BM_Burst(benchmark::State& state, std::uint64_t burst) {
  Q q(kCapacity);
  Producer<Q> producer(q);
  Consumer<Q> consumer(q);
  std::uint64_t sum = 0, expected = 0;
  for (auto _ : state) {
    for (std::uint64_t i = 0; i < burst; ++i) {
      if (!producer.try_push(std::uint64_t{i})) {
        state.SkipWithError("a push failed below the capacity");
        return;
      }
    }
    for (std::uint64_t i = 0; i < burst; ++i) {
      std::uint64_t v = 0;
      if (!consumer.try_pop(v)) {
        state.SkipWithError("a pop failed on a non-empty queue");
        return;
      }
      sum += v;
    }
    expected += burst * (burst - 1) / 2;
  }
  if (sum != expected) state.SkipWithError("checksum mismatch in burst");
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * burst));
  ThreadCounters(state, 1);
}

template <Queue Q>
void RegisterBurst(Profile profile, std::string_view impl) {
  const double burst_min_time = ByProfile(profile, 0.001, 0.02, 0.5);
  DescribeScenario("burst", {{"min_time_s", burst_min_time}});
  for (std::uint64_t k : {std::uint64_t{64}, std::uint64_t{4096}}) {
    RegisterSweepBenchmark(
        BenchName("queues", "burst", impl, {{"burst", static_cast<long>(k)}})
            .c_str(),
        [=](benchmark::State& s) { BM_Burst<Q>(s, k); })
        ->MinTime(burst_min_time)
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace serverkit::bench::queue_sweep

#endif  // SERVERKIT_QUEUES_SWEEP_BURST_H_
