// The pool sweep: `bazel run -c opt //bench:threadpool [-- --profile=full]`
// (//threadpool:threadpool_benchmark).
//
// Scenarios (names `threadpool/<scenario>/<impl>/<param>:<value>/...`):
//
//   tiny     S submitters push N tiny tasks (empty, or about 1 us of
//            calibrated arithmetic) into a pool of one worker per core. The
//            time is the wall-clock span from the first submit to the end of
//            the last task, or to the time cap (manual time): tasks/s. Each
//            task also records its submit-to-start latency: p50 / p99 in ns
//            (under this flood it is mostly time spent queued behind the
//            burst). Every pool of AllPools runs, and with empty tasks also
//            QueuePool over every MPMC queue of AllQueues, so the pool ranking
//            can be read beside the queue ranking. Ends with a table of each
//            pool's throughput as a ratio to boost::asio::thread_pool.
//   latency  submit-to-start latency of a pool that is not flooded: each of
//            S submitters keeps one empty task in flight (submit, wait until
//            it has started, repeat), so a sample is the hand-off itself: the
//            queue, plus waking a parked or spinning worker. p50/p99/p99.9 ns.
//   fanout   parallel-for: one thread submits C chunks of about 2 us each and
//            waits for all of them (fan-in), R rounds: rounds/s and the
//            p50 / p99 round time.
//   sleep    the seed comparison, scaled to this machine: W workers run T
//            tasks that each sleep 2 ms and bump an atomic counter. Each task
//            measures its own sleep, so the ideal wall time is
//            sum(measured sleeps) / W: what is left over is what the pool
//            adds (`overhead_pct`, and `overhead_us_per_task` =
//            (wall * W - sum of sleeps) / T). `ideal_cal_ms` is the ideal from
//            the mean sleep measured on an idle thread before the sweep, and
//            `overhead_cal_pct` the overhead against it (it also counts the
//            extra oversleep of a loaded machine).
//
// Pools own their threads, so nothing is pinned here. Every pool is built
// before its timed region and shut down after it.
//
// Sized by time, not by the core count. Pools have one worker per core, so
// how fast a point runs depends on the machine (a slow pool with many
// workers drains a flood slowly). Every tiny, latency and fanout point
// therefore stops at its count or at its time cap (TimeCap()), whichever
// comes first, and the cap covers the whole run: a tiny point that reaches
// its cap with tasks still queued counts the tasks that finished by then and
// discards the rest (`shutdown(kDiscard)`, outside the timed region),
// instead of waiting for a backlog that grows with a slow pool. The `capped`
// counter marks a point that stopped early; its rate counts what it
// finished. The sleep scenario has a fixed size. So a pass runs the same
// points on any machine, each bounded by its cap (docs/components.md gives
// the times); only the thread count, and so the `oversubscribed` mark, follows
// the machine.
//
// Each scenario lives in threadpool/sweep/<scenario>.h, what they share in
// threadpool/sweep/common.h and countdown.h; this file registers them for
// every pool, in one order per pool (tiny, latency, fanout, sleep), and
// runs the sweep.

#include <cstdio>
#include <string>

#include "base/type_list.h"
#include "bench/harness/harness.h"
#include "threadpool/all_pools.h"
#include "threadpool/sweep/fanout.h"
#include "threadpool/sweep/latency.h"
#include "threadpool/sweep/sleep.h"
#include "threadpool/sweep/tiny.h"

namespace serverkit::bench::pool_sweep {
namespace {

// A pool's traits in the JSON context: the queue a QueuePool runs on.
template <typename P>
void DescribePool() {
  if constexpr (requires { typename P::queue_type; }) {
    using Q = typename P::queue_type;
    DescribeImpl(P::kName, {{"queue", Q::kName}, {"bounded", Q::kBounded}});
  } else {
    DescribeImpl(P::kName, {});
  }
}

template <typename P>
void RegisterPool(Profile profile) {
  DescribePool<P>();
  RegisterTiny<P>(profile, 0);
  RegisterTiny<P>(profile, 1000);
  RegisterLatency<P>(profile);
  RegisterFanout<P>(profile);
  RegisterSleep<P>(profile);
}

template <typename... Ps>
void RegisterPools(TypeList<Ps...>, Profile profile) {
  (RegisterPool<Ps>(profile), ...);
}

// QueuePool over the MPMC queues that AllPools does not already hold: empty
// tiny tasks only.
template <typename... Ps>
void RegisterQueuePools(TypeList<Ps...>, Profile profile) {
  (
      [&] {
        if constexpr (!Contains<AllPools, Ps>::value) {
          DescribePool<Ps>();
          RegisterTiny<Ps>(profile, 0);
        }
      }(),
      ...);
}

}  // namespace
}  // namespace serverkit::bench::pool_sweep

int main(int argc, char** argv) {
  using namespace serverkit::bench;
  using namespace serverkit::bench::pool_sweep;
  SweepSpec spec;
  spec.family = "threadpool";
  spec.pins_threads = false;  // pools own their worker threads
  spec.baseline = std::string(serverkit::AsioPool::kName);
  spec.rankings = {
      {"tiny", "items_per_second", true, "tasks/s", {"p50_ns", "p99_ns"}},
      {"latency", "p50_ns", false, "ns", {"p99_ns", "p999_ns"}},
      {"fanout", "items_per_second", true, "rounds/s", {"p50_us", "p99_us"}},
      {"sleep",
       "overhead_pct",
       false,
       "%",
       {"wall_ms", "ideal_ms", "overhead_us_per_task", "overhead_cal_pct",
        "mean_sleep_us"}},
  };
  spec.register_benchmarks = [](Profile p) {
    Calibrate();
    std::string skipped;
    for (const auto& s : serverkit::SkippedQueues()) {
      skipped += (skipped.empty() ? "" : ", ") + s;
    }
    benchmark::AddCustomContext(
        "queue_pools",
        "QueuePool over every MPMC queue of AllQueues; skipped (a pool has "
        "many submitters and many workers): " +
            skipped);
    benchmark::AddCustomContext("spin_per_us", std::to_string(g_spins_per_us));
    benchmark::AddCustomContext("mean_sleep_2ms_us",
                                std::to_string(g_mean_sleep_us));
    std::printf(
        "calibration: %.0f spins/us; sleep_for(2ms) takes %.1f us on "
        "average here\nskipped queues: %s\n",
        g_spins_per_us, g_mean_sleep_us, skipped.c_str());
    RegisterPools(serverkit::AllPools{}, p);
    RegisterQueuePools(serverkit::AllQueuePools{}, p);
  };
  spec.round_budget_s = 75;
  const int rc = RunSweep(spec, argc, argv);
  PrintRatiosToAsio();
  return rc;
}
