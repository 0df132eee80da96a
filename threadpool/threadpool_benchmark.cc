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

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/cache_line.h"
#include "base/percentile.h"
#include "base/type_list.h"
#include "bench/harness/harness.h"
#include "queues/wait_strategy.h"
#include "threadpool/all_pools.h"
#include "threadpool/executor.h"

namespace serverkit::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
double Nanos(Clock::duration d) {
  return std::chrono::duration<double, std::nano>(d).count();
}

// A point stops at its count or at its time cap, whichever comes first (see
// the top of the file).
Clock::duration CapDuration(double cap_s) {
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(cap_s));
}

// Sorts samples and drops the slots a capped run never filled (NaN).
void DropUnmeasured(std::vector<double>& samples) {
  std::erase_if(samples, [](double x) { return std::isnan(x); });
  std::sort(samples.begin(), samples.end());
}

// ------------------------------------------------------------------- work

// Calibrated busy work: `Spin(g_spins_per_us * us)` takes about `us`
// microseconds of one core.
double g_spins_per_us = 100;
double g_mean_sleep_us = 2000;  // measured mean of sleep_for(2ms)

std::uint64_t Spin(std::uint64_t n) {
  std::uint64_t x = n | 1;
  for (std::uint64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    benchmark::DoNotOptimize(x);
  }
  return x;
}

void Calibrate() {
  constexpr std::uint64_t kProbe = 2'000'000;
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    Spin(kProbe);
    best = std::min(best, Nanos(Clock::now() - t0));
  }
  g_spins_per_us = static_cast<double>(kProbe) / (best / 1000.0);

  constexpr int kSleeps = 100;
  double total_us = 0;
  for (int i = 0; i < kSleeps; ++i) {
    const auto t0 = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    total_us += Nanos(Clock::now() - t0) / 1000.0;
  }
  g_mean_sleep_us = total_us / kSleeps;
}

// Medians per run, kept for the ratio-to-asio table printed at the end.
// key: "tiny/work_ns:0/submitters:1" -> impl -> one value per repetition.
std::map<std::string, std::map<std::string, std::vector<double>>> g_tiny;

// Signals the end of a batch: the task that completes it wakes the waiter.
// The completing task may still be inside notify_all() when the waiter
// returns, so a Countdown must outlive the tasks (reuse it with Reset).
class Countdown {
 public:
  explicit Countdown(std::uint64_t n) : left_(n) {}
  void Reset(std::uint64_t n) {
    left_.store(n, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_release);
  }
  void Done() {
    if (left_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
  }
  // Takes `n` tasks that will never run off the count (never submitted, or
  // discarded by a run that stopped at its time cap).
  void Cancel(std::uint64_t n) {
    if (n != 0 && left_.fetch_sub(n, std::memory_order_acq_rel) == n) Finish();
  }
  void Wait() {
    while (finished_.load(std::memory_order_acquire) == 0) finished_.wait(0);
  }
  // Waits until the count reaches zero (true) or `deadline` passes (false).
  // It polls, so read the time the count reached zero from finished_at().
  bool WaitUntil(Clock::time_point deadline) {
    while (finished_.load(std::memory_order_acquire) == 0) {
      const auto now = Clock::now();
      if (now >= deadline) return false;
      std::this_thread::sleep_for(std::min<Clock::duration>(
          deadline - now, std::chrono::milliseconds(1)));
    }
    return true;
  }
  // When the count reached zero; valid once Wait or WaitUntil saw it.
  Clock::time_point finished_at() const { return finished_at_; }
  // Tasks neither done nor cancelled yet.
  std::uint64_t left() const { return left_.load(std::memory_order_acquire); }

 private:
  void Finish() {
    finished_at_ = Clock::now();  // published by the release store below
    finished_.store(1, std::memory_order_release);
    finished_.notify_all();
  }

  alignas(kCacheLineSize) std::atomic<std::uint64_t> left_;
  alignas(kCacheLineSize) std::atomic<int> finished_{0};
  Clock::time_point finished_at_{};
};

// Sets the row's `lost_wakeups`: wake-ups that FutexWait's timed park found
// lost during the benchmark (queues/wait_strategy.h); each cost a worker up
// to 100 ms, so a row with any is not a fair figure.
class LostWakeups {
 public:
  explicit LostWakeups(benchmark::State& state)
      : state_(state), before_(FutexWaitRescues()) {}
  ~LostWakeups() {
    state_.counters["lost_wakeups"] =
        static_cast<double>(FutexWaitRescues() - before_);
  }
  LostWakeups(const LostWakeups&) = delete;
  LostWakeups& operator=(const LostWakeups&) = delete;

 private:
  benchmark::State& state_;
  const std::uint64_t before_;
};

// ------------------------------------------------------------------- tiny

template <typename P>
void BM_Tiny(benchmark::State& state, int workers, int submitters, long work_ns,
             std::uint64_t tasks, double cap_s, const std::string& group) {
  const LostWakeups lost(state);
  const std::uint64_t spins =
      static_cast<std::uint64_t>(g_spins_per_us * work_ns / 1000.0);
  std::vector<double> latency(tasks, NAN);
  std::uint64_t done = 0;
  bool capped = false;
  for (auto _ : state) {
    Countdown countdown(tasks);
    std::atomic<std::uint64_t> sink{0};
    std::atomic<std::uint64_t> submitted_total{0};
    P pool(workers);
    std::vector<std::thread> threads;
    const auto start = Clock::now();
    const auto deadline = start + CapDuration(cap_s);
    auto submit_range = [&](int s) {
      std::uint64_t mine = 0;
      for (std::uint64_t i = s; i < tasks; i += submitters) {
        const auto submitted = Clock::now();
        if (submitted > deadline) break;
        Submit(pool, [&, i, submitted] {
          latency[i] = Nanos(Clock::now() - submitted);
          if (spins > 0) sink.fetch_add(Spin(spins), std::memory_order_relaxed);
          countdown.Done();
        });
        ++mine;
      }
      submitted_total.fetch_add(mine, std::memory_order_relaxed);
    };
    for (int s = 1; s < submitters; ++s) threads.emplace_back(submit_range, s);
    submit_range(0);
    for (auto& t : threads) t.join();
    const std::uint64_t n = submitted_total.load();
    countdown.Cancel(tasks - n);
    std::uint64_t finished = n;
    double secs = 0;
    if (countdown.WaitUntil(deadline)) {
      secs = Seconds(countdown.finished_at() - start);
    } else {
      // The cap covers the backlog too: count what ran by now, then drop
      // what is still queued, outside the timed region.
      const auto now = Clock::now();
      finished = n - countdown.left();
      secs = Seconds(now - start);
      countdown.Cancel(pool.shutdown(ShutdownMode::kDiscard));
      countdown.Wait();
      capped = true;
    }
    state.SetIterationTime(secs);
    pool.shutdown(ShutdownMode::kDrain);
    done += finished;
    capped |= n < tasks;
    g_tiny[group][std::string(P::kName)].push_back(
        static_cast<double>(finished) / secs);
  }
  DropUnmeasured(latency);
  state.counters["p50_ns"] = Percentile(latency, 0.50, true);
  state.counters["p99_ns"] = Percentile(latency, 0.99, true);
  state.SetItemsProcessed(static_cast<std::int64_t>(done));
  state.counters["workers"] = workers;
  state.counters["capped"] = capped ? 1 : 0;
  ThreadCounters(state, workers + submitters);
}

// ---------------------------------------------------------------- latency

template <typename P>
void BM_Latency(benchmark::State& state, int workers, int submitters,
                std::uint64_t samples, double cap_s) {
  const LostWakeups lost(state);
  std::vector<double> latency(samples * submitters, NAN);
  bool capped = false;
  // Outlive the pool: a task may still be in notify_one() when its submitter
  // moves on.
  std::vector<std::atomic<int>> flags(submitters);
  for (auto _ : state) {
    P pool(workers);
    std::vector<std::thread> threads;
    const auto start = Clock::now();
    const auto deadline = start + CapDuration(cap_s);
    std::atomic<bool> cut{false};
    auto ping = [&](int s) {
      std::atomic<int>& started = flags[s];
      for (std::uint64_t k = 0; k < samples; ++k) {
        started.store(0, std::memory_order_relaxed);
        double* slot = &latency[s * samples + k];
        const auto submitted = Clock::now();
        if (submitted > deadline) {
          cut.store(true, std::memory_order_relaxed);
          break;
        }
        Submit(pool, [&started, slot, submitted] {
          *slot = Nanos(Clock::now() - submitted);
          started.store(1, std::memory_order_release);
          started.notify_one();
        });
        while (started.load(std::memory_order_acquire) == 0) started.wait(0);
      }
    };
    for (int s = 1; s < submitters; ++s) threads.emplace_back(ping, s);
    ping(0);
    for (auto& t : threads) t.join();
    state.SetIterationTime(Seconds(Clock::now() - start));
    pool.shutdown(ShutdownMode::kDrain);
    capped |= cut.load();
  }
  DropUnmeasured(latency);
  state.counters["p50_ns"] = Percentile(latency, 0.50, true);
  state.counters["p99_ns"] = Percentile(latency, 0.99, true);
  state.counters["p999_ns"] = Percentile(latency, 0.999, true);
  state.counters["capped"] = capped ? 1 : 0;
  state.SetItemsProcessed(static_cast<std::int64_t>(latency.size()));
  ThreadCounters(state, workers + submitters);
}

// ----------------------------------------------------------------- fanout

template <typename P>
void BM_Fanout(benchmark::State& state, int workers, int chunks,
               std::uint64_t rounds, double cap_s) {
  const LostWakeups lost(state);
  const std::uint64_t spins = static_cast<std::uint64_t>(g_spins_per_us * 2);
  std::vector<double> round_ns;
  round_ns.reserve(rounds);
  std::uint64_t checksum_errors = 0;
  bool capped = false;
  for (auto _ : state) {
    std::vector<std::uint64_t> out(chunks);
    Countdown countdown(chunks);
    P pool(workers);
    Clock::duration measured{};
    const auto deadline = Clock::now() + CapDuration(cap_s);
    for (std::uint64_t r = 0; r < rounds; ++r) {
      const auto t0 = Clock::now();
      if (t0 > deadline) {
        capped = true;
        break;
      }
      countdown.Reset(chunks);
      for (int c = 0; c < chunks; ++c) {
        Submit(pool, [&, c] {
          out[c] = Spin(spins) + 1;
          countdown.Done();
        });
      }
      countdown.Wait();
      const auto t1 = Clock::now();
      measured += t1 - t0;
      round_ns.push_back(Nanos(t1 - t0));
      for (int c = 0; c < chunks; ++c) {
        checksum_errors += out[c] == 0;
        out[c] = 0;
      }
    }
    state.SetIterationTime(Seconds(measured));
    pool.shutdown(ShutdownMode::kDrain);
  }
  if (checksum_errors > 0) state.SkipWithError("a chunk did not run");
  std::sort(round_ns.begin(), round_ns.end());
  state.counters["p50_us"] = Percentile(round_ns, 0.50, true) / 1000.0;
  state.counters["p99_us"] = Percentile(round_ns, 0.99, true) / 1000.0;
  state.counters["capped"] = capped ? 1 : 0;
  state.SetItemsProcessed(static_cast<std::int64_t>(round_ns.size()));
  ThreadCounters(state, workers + 1);
}

// ------------------------------------------------------------------ sleep

template <typename P>
void BM_Sleep(benchmark::State& state, int workers, std::uint64_t tasks,
              int sleep_us) {
  const LostWakeups lost(state);
  double wall_s = 0, slept_us = 0;
  for (auto _ : state) {
    std::atomic<std::uint64_t> counter{0};
    std::atomic<std::uint64_t> slept_ns{0};
    Countdown countdown(tasks);
    P pool(workers);
    const auto start = Clock::now();
    for (std::uint64_t i = 0; i < tasks; ++i) {
      Submit(pool, [&] {
        const auto t0 = Clock::now();
        std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        slept_ns.fetch_add(static_cast<std::uint64_t>(Nanos(Clock::now() - t0)),
                           std::memory_order_relaxed);
        counter.fetch_add(1, std::memory_order_relaxed);
        countdown.Done();
      });
    }
    countdown.Wait();
    const double secs = Seconds(Clock::now() - start);
    state.SetIterationTime(secs);
    pool.shutdown(ShutdownMode::kDrain);
    if (counter.load() != tasks) {
      state.SkipWithError("the counter missed tasks");
      return;
    }
    wall_s = secs;
    slept_us = static_cast<double>(slept_ns.load()) / 1000.0;
  }
  // One iteration per repetition: these describe that repetition.
  const double wall_us = wall_s * 1e6;
  const double ideal_us = slept_us / workers;
  const double ideal_cal_us =
      g_mean_sleep_us * static_cast<double>(tasks) / workers;
  state.counters["wall_ms"] = wall_us / 1000.0;
  state.counters["ideal_ms"] = ideal_us / 1000.0;
  state.counters["ideal_cal_ms"] = ideal_cal_us / 1000.0;
  state.counters["overhead_pct"] = (wall_us - ideal_us) / ideal_us * 100.0;
  state.counters["overhead_cal_pct"] =
      (wall_us - ideal_cal_us) / ideal_cal_us * 100.0;
  state.counters["overhead_us_per_task"] =
      (wall_us * workers - slept_us) / static_cast<double>(tasks);
  state.counters["mean_sleep_us"] = slept_us / static_cast<double>(tasks);
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * tasks));
  ThreadCounters(state, workers + 1);
}

// ----------------------------------------------------------- registration

std::vector<int> SubmitterCounts(Profile profile) {
  if (profile == Profile::kFull) return {1, 2, 4, 8};
  return {1, 4};
}

// Short runs in the default profile: paired rounds gain more from many
// rounds than from long runs.
double TimeCap(Profile profile) { return ByProfile(profile, 1.0, 0.12, 2.0); }

template <typename P>
void RegisterTiny(Profile profile, long work_ns) {
  const int workers = Cores();
  const std::uint64_t tasks =
      ByProfile<std::uint64_t>(profile, 5'000, 150'000, 1'000'000);
  const double cap_s = TimeCap(profile);
  DescribeScenario(
      "tiny", {{"tasks", tasks}, {"time_cap_s", cap_s}, {"workers", workers}});
  for (int s : SubmitterCounts(profile)) {
    const std::string group = "tiny/work_ns:" + std::to_string(work_ns) +
                              "/submitters:" + std::to_string(s);
    RegisterTimedOnce(BenchName("threadpool", "tiny", P::kName,
                                {{"work_ns", work_ns}, {"submitters", s}}),
                      [=](benchmark::State& st) {
                        BM_Tiny<P>(st, workers, s, work_ns, tasks, cap_s,
                                   group);
                      });
  }
}

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

  const double cap_s = TimeCap(profile);
  const std::uint64_t samples =
      ByProfile<std::uint64_t>(profile, 500, 20'000, 100'000);
  DescribeScenario("latency", {{"samples_per_submitter", samples},
                               {"time_cap_s", cap_s},
                               {"workers", Cores()}});
  for (int sub : SubmitterCounts(profile)) {
    RegisterTimedOnce(
        BenchName("threadpool", "latency", P::kName, {{"submitters", sub}}),
        [=](benchmark::State& st) {
          BM_Latency<P>(st, Cores(), sub, samples, cap_s);
        });
  }

  const int chunks = 64;
  const std::uint64_t rounds =
      ByProfile<std::uint64_t>(profile, 50, 2'000, 20'000);
  DescribeScenario("fanout", {{"rounds", rounds},
                              {"chunk_us", 2},
                              {"time_cap_s", cap_s},
                              {"workers", Cores()}});
  RegisterTimedOnce(
      BenchName("threadpool", "fanout", P::kName, {{"chunks", chunks}}),
      [=](benchmark::State& st) {
        BM_Fanout<P>(st, Cores(), chunks, rounds, cap_s);
      });

  const int workers = ByProfile(profile, 20, 100, 100);
  const std::uint64_t tasks =
      ByProfile<std::uint64_t>(profile, 400, 10'000, 100'000);
  const int sleep_us = 2000;
  DescribeScenario(
      "sleep",
      {{"workers", workers}, {"tasks", tasks}, {"sleep_us", sleep_us}});
  RegisterTimedOnce(
      BenchName("threadpool", "sleep", P::kName,
                {{"workers", workers},
                 {"tasks", static_cast<long>(tasks)},
                 {"sleep_us", sleep_us}}),
      [=](benchmark::State& st) { BM_Sleep<P>(st, workers, tasks, sleep_us); });
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

void PrintRatiosToAsio() {
  const std::string base(AsioPool::kName);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
  };
  for (const auto& [group, impls] : g_tiny) {
    auto it = impls.find(base);
    if (it == impls.end()) continue;
    const double asio = median(it->second);
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [impl, values] : impls)
      rows.push_back({median(values), impl});
    std::sort(rows.rbegin(), rows.rend());
    std::printf("Ratio to asio: threadpool/%s (tasks/s, median of %zu runs)\n",
                group.c_str(), it->second.size());
    for (const auto& [value, impl] : rows) {
      std::printf("  %-34s %12.4g %8.2fx\n", impl.c_str(), value, value / asio);
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace serverkit::bench

int main(int argc, char** argv) {
  using namespace serverkit::bench;
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
  spec.round_budget_s = 95;
  const int rc = RunSweep(spec, argc, argv);
  PrintRatiosToAsio();
  return rc;
}
