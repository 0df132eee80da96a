// The queue sweep: `bazel run -c opt //bench:queues [-- --profile=full]`
// (//queues:queue_benchmark).
//
// Every queue in queues/all_queues.h runs every scenario its topology allows:
//
//   throughput  P producers x C consumers move a fixed number of items.
//               Threads start inside the timed region; the time is the
//               wall-clock span until the last item is popped (manual time),
//               so it is real aggregate throughput, not summed per-thread time.
//               Consumers sum what they pop; a wrong sum fails the run.
//   latency     two threads bounce a token through two queues; every round
//               trip is timed; p50 / p99 / p99.9 in ns.
//   eventloop   evpp's post-task pattern: P producers post std::function
//               tasks to one loop thread that sleeps on an eventfd when idle,
//               with one eventfd write per post (coalesce:0) or one per
//               wake-up (coalesce:1).
//   pairs       T threads on one queue (MPMC only), each pushing one item and
//               then popping one, again and again: every thread contends on
//               both ends at once, so T = the core count is full contention
//               without oversubscription (the N:N shapes of `throughput`
//               need 2N threads). Items/s counts pushes (= pops); threads sum
//               what they pop, and a wrong sum fails the run.
//   burst       one thread pushes K items, then pops K: the uncontended cost.
//
// Waiting: producers and consumers retry a failed try_push / try_pop with a
// pause, and yield after kSpinsBeforeYield (64) failures (base/spin_wait.h;
// queues with their own blocking push/pop use those instead). Threads are
// pinned round-robin to the allowed cores.

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "base/percentile.h"
#include "base/spin_wait.h"
#include "base/type_list.h"
#include "bench/harness/floor.h"
#include "bench/harness/harness.h"
#include "queues/all_queues.h"
#include "queues/queue.h"

namespace serverkit::bench {
namespace {

constexpr std::size_t kCapacity = 8192;
constexpr std::uint64_t kLatencyWarmup = 1000;
// Round trips of the floor measured beside each latency repetition.
constexpr std::uint64_t kAdjacentFloorTrips = 10'000;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Retry with a pause, then yield (SpinThenYieldUntil), so oversubscribed runs
// make progress. Native blocking operations are used where a queue has them.
template <Queue Q>
void Push(Producer<Q>& p, typename Q::value_type&& v) {
  if constexpr (HasNativeBlocking<Q>) {
    p.spin_push(std::move(v));
  } else {
    SpinThenYieldUntil([&] { return p.try_push(std::move(v)); });
  }
}

template <Queue Q>
void Pop(Consumer<Q>& c, typename Q::value_type& out) {
  if constexpr (HasNativeBlocking<Q>) {
    c.spin_pop(out);
  } else {
    SpinThenYieldUntil([&] { return c.try_pop(out); });
  }
}

// ---------------------------------------------------------------- throughput

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
    if (sum.load() != items * (items - 1) / 2) {
      state.SkipWithError("checksum mismatch: items lost or duplicated");
      break;
    }
  }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * items));
  ThreadCounters(state, producers + consumers);
}

// ------------------------------------------------------------------- latency

// The round trips' percentiles and, with one iteration per repetition, their
// ratios to the mean of the floors measured just before and just after it.
// (No floor on one core: no ratio, and no ranking.)
void SetLatencyCounters(benchmark::State& state, std::vector<double>& samples,
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

// ----------------------------------------------------------------- eventloop

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

// --------------------------------------------------------------------- pairs

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
    if (sum.load() != items * (items - 1) / 2) {
      state.SkipWithError("checksum mismatch: items lost or duplicated");
      break;
    }
  }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * items));
  ThreadCounters(state, threads);
}

// --------------------------------------------------------------------- burst

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

// -------------------------------------------------------------- registration

std::vector<int> Widths(Profile profile) {
  std::vector<int> n = {1, 2};
  if (profile == Profile::kFull) {
    for (int w = 4; w <= 2 * Cores(); w *= 2) n.push_back(w);
  }
  return n;
}

// Each scenario's registration for one queue, `impl` its name.
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

template <typename F>
void RegisterQueue(Profile profile) {
  using Q = typename F::template Of<std::uint64_t>;
  using TaskQ = typename F::template Of<Task>;
  const std::string_view impl = Q::kName;
  DescribeImpl(impl, {{"topology", TopologyName(Q::kTopology)},
                      {"bounded", Q::kBounded},
                      {"blocking", HasNativeBlocking<Q>},
                      {"keeps_producer_order", KeepsProducerOrder<Q>()}});
  // The default profile's runs are short: paired rounds gain more from many
  // rounds than from long runs.
  const std::uint64_t items =
      ByProfile<std::uint64_t>(profile, 20'000, 400'000, 8'000'000);
  RegisterThroughput<Q>(profile, impl, items);
  if constexpr (Q::kTopology == Topology::kMpmc) {
    RegisterPairs<Q>(profile, impl, items);
  }
  RegisterLatency<Q>(profile, impl);
  if constexpr (TaskQ::kTopology != Topology::kSpsc) {
    RegisterEventLoop<TaskQ>(profile, impl);
  }
  RegisterBurst<Q>(profile, impl);
}

template <typename... Fs>
void RegisterAll(TypeList<Fs...>, Profile profile) {
  (RegisterQueue<Fs>(profile), ...);
}

}  // namespace
}  // namespace serverkit::bench

int main(int argc, char** argv) {
  using namespace serverkit::bench;
  SweepSpec spec;
  spec.family = "queues";
  spec.baseline = std::string(serverkit::MutexQueue<int>::kName);
  spec.rankings = {
      {"throughput", "items_per_second", true, "items/s"},
      // Ranked by the round trip's p50 as a multiple of the floor measured
      // just before and after each repetition on the same two cores: the
      // host's core-to-core distance moves within a sweep, and the ratio
      // cancels it (docs/methods.md, "The floor, drift and ...").
      {.scenario = "latency",
       .counter = "p50_x_floor",
       .higher_is_better = false,
       .unit = "x floor",
       .also_show = {"p50_ns", "p99_ns", "p999_ns", "floor_ns", "p99_x_floor",
                     "two_line_floor_ns", "p50_x_two_line_floor"},
       .vs_floor = true},
      // The reactor's pattern; its baseline is muduo's own task queue.
      {.scenario = "eventloop",
       .counter = "items_per_second",
       .higher_is_better = true,
       .unit = "tasks/s",
       .also_show = {"wakeups_per_task", "writes_per_task"},
       .baseline = std::string(serverkit::SwapVectorQueue<int>::kName)},
      {"pairs", "items_per_second", true, "items/s"},
      {"burst", "items_per_second", true, "items/s"},
  };
  spec.register_benchmarks = [](Profile p) {
    RegisterAll(serverkit::AllQueues{}, p);
  };
  spec.round_budget_s = 170;
  return RunSweep(spec, argc, argv);
}
