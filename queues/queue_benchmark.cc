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
//
// Each scenario lives in queues/sweep/<scenario>.h, what they share in
// queues/sweep/common.h; this file registers them for every queue, in one
// order per queue (throughput, pairs, latency, eventloop, burst), and runs
// the sweep.

#include <cstdint>
#include <string>
#include <string_view>

#include "base/type_list.h"
#include "bench/harness/harness.h"
#include "queues/all_queues.h"
#include "queues/queue.h"
#include "queues/sweep/burst.h"
#include "queues/sweep/eventloop.h"
#include "queues/sweep/latency.h"
#include "queues/sweep/pairs.h"
#include "queues/sweep/throughput.h"

namespace serverkit::bench::queue_sweep {
namespace {

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
}  // namespace serverkit::bench::queue_sweep

int main(int argc, char** argv) {
  using namespace serverkit::bench;
  using namespace serverkit::bench::queue_sweep;
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
  spec.round_budget_s = 105;
  return RunSweep(spec, argc, argv);
}
