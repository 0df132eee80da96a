// -----------------------------------------------------------------------------
// queues/sweep/eventloop.h
// -----------------------------------------------------------------------------
//
// The queue sweep's `eventloop` scenario, evpp's post-task pattern: P
// producers post std::function tasks to one loop thread that sleeps on an
// eventfd when idle, with one eventfd write per post (coalesce:0) or one
// per wake-up (coalesce:1). The loop sums what the tasks add; a wrong sum
// fails the run.
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_QUEUES_SWEEP_EVENTLOOP_H_
#define SERVERKIT_QUEUES_SWEEP_EVENTLOOP_H_

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/harness/harness.h"
#include "queues/queue.h"
#include "queues/sweep/common.h"

namespace serverkit::bench::queue_sweep {

// What the loop's queue carries.
using Task = std::function<void()>;

template <Queue Q>
void BM_EventLoop(benchmark::State& state, int producers, bool coalesce,
                  std::uint64_t tasks) {
  std::uint64_t wakeups = 0, writes_total = 0;
  double cpu_ns = 0;
  for (auto _ : state) {
    Q q(kCapacity);
    const int efd = eventfd(0, EFD_CLOEXEC);
    if (efd < 0) {
      state.SkipWithError("eventfd failed");
      break;
    }
    std::atomic<bool> notified{false};
    std::atomic<std::uint64_t> writes{0};
    std::uint64_t executed = 0, sum = 0;
    const double cpu0 = ProcessCpuNanos();
    const auto start = Clock::now();
    std::thread loop([&] {
      PinToCore(0);
      Consumer<Q> handle(q);
      Task task;
      while (executed < tasks) {
        while (handle.try_pop(task)) {
          task();
          ++executed;
        }
        if (executed == tasks) break;
        if (coalesce) {
          // Clear the flag, then look once more: a producer that saw the flag
          // set did not write the eventfd, and its task must not be missed.
          notified.exchange(false, std::memory_order_acq_rel);
          if (handle.try_pop(task)) {
            task();
            ++executed;
            continue;
          }
        }
        std::uint64_t n;
        if (read(efd, &n, sizeof(n)) == sizeof(n)) ++wakeups;
      }
    });
    std::vector<std::thread> threads;
    for (int p = 0; p < producers; ++p) {
      threads.emplace_back([&, p] {
        PinToCore(1 + p);
        Producer<Q> handle(q);
        std::uint64_t local_writes = 0;
        for (std::uint64_t v = p; v < tasks; v += producers) {
          Push(handle, Task([&sum, v] { sum += v; }));
          if (!coalesce ||
              !notified.exchange(true, std::memory_order_acq_rel)) {
            const std::uint64_t one = 1;
            if (write(efd, &one, sizeof(one)) == sizeof(one)) ++local_writes;
          }
        }
        writes.fetch_add(local_writes);
      });
    }
    for (auto& t : threads) t.join();
    loop.join();
    state.SetIterationTime(Seconds(Clock::now() - start));
    cpu_ns += ProcessCpuNanos() - cpu0;
    close(efd);
    writes_total += writes.load();
    if (sum != tasks * (tasks - 1) / 2) {
      state.SkipWithError("checksum mismatch: tasks lost or run twice");
      break;
    }
  }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * tasks));
  const double per_task = 1.0 / static_cast<double>(state.iterations() * tasks);
  state.counters["wakeups_per_task"] = static_cast<double>(wakeups) * per_task;
  state.counters["writes_per_task"] =
      static_cast<double>(writes_total) * per_task;
  state.counters["cpu_ns_per_item"] = cpu_ns * per_task;
  ThreadCounters(state, producers + 1);
}

template <Queue TaskQ>
void RegisterEventLoop(Profile profile, std::string_view impl) {
  const std::uint64_t tasks =
      ByProfile<std::uint64_t>(profile, 5'000, 50'000, 1'000'000);
  DescribeScenario("eventloop", {{"tasks", tasks}, {"capacity", kCapacity}});
  for (int p : Widths(profile)) {
    for (int coalesce : {0, 1}) {
      RegisterTimedOnce(BenchName("queues", "eventloop", impl,
                                  {{"producers", p}, {"coalesce", coalesce}})
                            .c_str(),
                        [=](benchmark::State& s) {
                          BM_EventLoop<TaskQ>(s, p, coalesce != 0, tasks);
                        });
    }
  }
}

}  // namespace serverkit::bench::queue_sweep

#endif  // SERVERKIT_QUEUES_SWEEP_EVENTLOOP_H_
