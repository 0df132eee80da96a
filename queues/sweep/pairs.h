// -----------------------------------------------------------------------------
// queues/sweep/pairs.h
// -----------------------------------------------------------------------------
//
// The queue sweep's `pairs` scenario (MPMC queues only): T threads on one
// queue, each pushing one item and then popping one, so every thread
// contends on both ends at once. Threads sum what they pop; a wrong sum
// fails the run.
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_QUEUES_SWEEP_PAIRS_H_
#define SERVERKIT_QUEUES_SWEEP_PAIRS_H_

#include <atomic>
#include <cstdint>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/harness/harness.h"
#include "queues/queue.h"
#include "queues/sweep/common.h"

namespace serverkit::bench::queue_sweep {

template <Queue Q>
void BM_Pairs(benchmark::State& state, int threads, std::uint64_t items) {
  for (auto _ : state) {
    Q q(kCapacity);
    std::atomic<std::uint64_t> sum{0};
    std::vector<std::thread> workers;
    workers.reserve(threads);
    const auto start = Clock::now();
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        PinToCore(t);
        Producer<Q> out(q);
        Consumer<Q> in(q);
        std::uint64_t local = 0;
        // A thread's k-th pop starts after its k-th push: the queue never
        // holds more than `threads` items, and every pop finds one in the end.
        for (std::uint64_t v = t; v < items; v += threads) {
          Push(out, std::uint64_t{v});
          std::uint64_t got;
          Pop(in, got);
          local += got;
        }
        sum.fetch_add(local);
      });
    }
    for (auto& w : workers) w.join();
    state.SetIterationTime(Seconds(Clock::now() - start));
    if (!EveryItemOnce(state, sum.load(), items)) break;
  }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * items));
  ThreadCounters(state, threads);
}

template <Queue Q>
void RegisterPairs(Profile profile, std::string_view impl,
                   std::uint64_t items) {
  DescribeScenario("pairs", {{"items", items}, {"capacity", kCapacity}});
  for (int t : Widths(profile)) {
    if (t < 2) continue;  // one thread alone is `burst` with K = 1
    RegisterTimedOnce(
        BenchName("queues", "pairs", impl, {{"threads", t}}).c_str(),
        [=](benchmark::State& s) { BM_Pairs<Q>(s, t, items); });
  }
}

}  // namespace serverkit::bench::queue_sweep

#endif  // SERVERKIT_QUEUES_SWEEP_PAIRS_H_
