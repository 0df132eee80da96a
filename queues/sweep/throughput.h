// -----------------------------------------------------------------------------
// queues/sweep/throughput.h
// -----------------------------------------------------------------------------
//
// The queue sweep's `throughput` scenario: P producers x C consumers move a
// fixed number of items, timed from the threads' start to the last pop
// (manual time), for every shape the queue's topology allows. Consumers sum
// what they pop; a wrong sum fails the run.
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_QUEUES_SWEEP_THROUGHPUT_H_
#define SERVERKIT_QUEUES_SWEEP_THROUGHPUT_H_

#include <atomic>
#include <cstdint>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "bench/harness/harness.h"
#include "queues/queue.h"
#include "queues/sweep/common.h"

namespace serverkit::bench::queue_sweep {

template <Queue Q>
void BM_Throughput(benchmark::State& state, int producers, int consumers,
                   std::uint64_t items) {
  for (auto _ : state) {
    Q q(kCapacity);
    std::atomic<std::uint64_t> sum{0};
    std::vector<std::thread> threads;
    threads.reserve(producers + consumers);
    const auto start = Clock::now();
    for (int p = 0; p < producers; ++p) {
      threads.emplace_back([&, p] {
        PinToCore(p);
        Producer<Q> handle(q);
        for (std::uint64_t v = p; v < items; v += producers) {
          Push(handle, std::uint64_t{v});
        }
      });
    }
    for (int c = 0; c < consumers; ++c) {
      threads.emplace_back([&, c] {
        PinToCore(producers + c);
        Consumer<Q> handle(q);
        std::uint64_t quota =
            items / consumers + (c == 0 ? items % consumers : 0);
        std::uint64_t local = 0;
        for (; quota > 0; --quota) {
          std::uint64_t v;
          Pop(handle, v);
          local += v;
        }
        sum.fetch_add(local);
      });
    }
    for (auto& t : threads) t.join();
    state.SetIterationTime(Seconds(Clock::now() - start));
    if (!EveryItemOnce(state, sum.load(), items)) break;
  }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * items));
  ThreadCounters(state, producers + consumers);
}

// Registers one queue's throughput shapes, `impl` its name.
template <Queue Q>
void RegisterThroughput(Profile profile, std::string_view impl,
                        std::uint64_t items) {
  DescribeScenario("throughput", {{"items", items}, {"capacity", kCapacity}});
  std::vector<std::pair<int, int>> shapes;
  for (int n : Widths(profile)) {
    shapes.push_back({1, n});
    if (n != 1) shapes.push_back({n, 1});
    if (n != 1) shapes.push_back({n, n});
  }
  for (auto [p, c] : shapes) {
    if (!AllowsProducers(Q::kTopology, p) ||
        !AllowsConsumers(Q::kTopology, c)) {
      continue;
    }
    RegisterTimedOnce(
        BenchName("queues", "throughput", impl,
                  {{"producers", p}, {"consumers", c}})
            .c_str(),
        [=](benchmark::State& s) { BM_Throughput<Q>(s, p, c, items); });
  }
}

}  // namespace serverkit::bench::queue_sweep

#endif  // SERVERKIT_QUEUES_SWEEP_THROUGHPUT_H_
