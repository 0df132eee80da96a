// The logger sweep: `bazel run -c opt //bench:logger` (this binary).
//
// Every logger in `AllLoggers` (the full profile adds `AsyncQueueLogger` over
// every other multi-producer queue of the queue sweep) runs the same
// scenarios, named logger/<scenario>/<impl>/callers:<n>/bytes:<b>
// ("callers", not "threads": the harness strips "threads:" segments, which
// Google Benchmark itself appends):
//
//   throughput-file     n threads log M messages of b bytes (the message
//   throughput-console  text; the line adds the header) into a file, or into
//                       the console sink over a descriptor this binary opens
//                       on /dev/null (never the user's terminal). The time
//                       runs from the start signal until `flush()` returned,
//                       i.e. until every line was handed to the kernel with
//                       write(2) (not fsync'd). msgs/s and bytes/s of message
//                       text; a run that lost a record fails.
//   latency-file        quill's method: each caller times every call on its
//                       own thread (rdtsc, calibrated against steady_clock)
//                       in batches of 20, and sleeps 50-150 us between
//                       batches so the backend keeps up (sleep rather than
//                       quill's busy-wait: on 2 cores a spinning caller would
//                       starve the backend). p50 / p99 / p99.9 in ns.
//   latency-console     the same into the console sink (full profile).
//
// Async loggers run with the block policy (nothing lost), queue_capacity 8192
// records (spdlog async: 8192 slots), 1 MiB double buffers. Callers are pinned
// round-robin to the allowed cores; backend threads are not pinned. The
// `threads` counter counts callers plus the backend thread of async loggers;
// the ranking marks runs with more threads than cores.

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <latch>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/percentile.h"
#include "base/type_list.h"
#include "bench/harness/harness.h"
#include "logger/all_loggers.h"
#include "logger/logger.h"
#include "queues/all_queues.h"

namespace serverkit::bench {
namespace {

using Clock = std::chrono::steady_clock;

enum class Target { kFile, kConsole };

std::string g_dir;      // scratch directory for log files
int g_console_fd = -1;  // /dev/null: where console sinks write

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// ------------------------------------------------------------ cycle counter

inline std::uint64_t Ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
#endif
}

double NanosPerTick() {
  static const double value = [] {
#if defined(__x86_64__) || defined(__i386__)
    const auto c0 = Clock::now();
    const std::uint64_t t0 = Ticks();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto c1 = Clock::now();
    const std::uint64_t t1 = Ticks();
    return std::chrono::duration<double, std::nano>(c1 - c0).count() /
           static_cast<double>(t1 - t0);
#else
    return std::chrono::duration<double, std::nano>(Clock::duration(1)).count();
#endif
  }();
  return value;
}

// ------------------------------------------------------------------ helpers

LoggerOptions Options(Target target, const std::string& path) {
  LoggerOptions o;
  if (target == Target::kFile) {
    o.sink.kind = SinkKind::kFile;
    o.sink.path = path;
  } else {
    o.sink.kind = SinkKind::kConsole;
    o.sink.fd = g_console_fd;
  }
  o.level = Level::kInfo;
  o.flush_on = Level::kError;
  o.overflow = OverflowPolicy::kBlock;
  o.queue_capacity = 8192;
  o.buffer_bytes = std::size_t{1} << 20;
  o.max_buffers = 16;
  return o;
}

std::size_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size)
                                        : 0;
}

// The message is "<8-digit seq> <filler>", exactly `bytes` long.
std::string Filler(std::size_t bytes) {
  return std::string(bytes > 9 ? bytes - 9 : 0, 'p');
}

// Makes the logger, turning a constructor error into a failed run.
template <Logger L>
std::unique_ptr<L> Make(benchmark::State& state, const LoggerOptions& o) {
  try {
    return std::make_unique<L>(o);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

// --------------------------------------------------------------- throughput

template <Logger L>
void BM_Throughput(benchmark::State& state, Target target, int threads,
                   std::size_t bytes, std::uint64_t messages) {
  const std::string path = g_dir + "/throughput.log";
  const std::string filler = Filler(bytes);
  const std::string_view fill(filler);
  std::size_t file_bytes = 0;
  std::uint64_t dropped = 0;
  double cpu_ns = 0;
  for (auto _ : state) {
    ::unlink(path.c_str());
    std::unique_ptr<L> logger = Make<L>(state, Options(target, path));
    if (!logger) break;
    const double cpu0 = ProcessCpuNanos();
    std::latch start(threads + 1);
    std::vector<std::thread> workers;
    workers.reserve(threads);
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        PinToCore(t);
        L& log = *logger;
        start.arrive_and_wait();
        for (std::uint64_t i = t; i < messages; i += threads) {
          SK_LOG_INFO(log, "{:08} {}", i, fill);
        }
      });
    }
    // The clock starts before the callers are released, so it cannot start
    // late if this thread is descheduled (it includes their wake-up, tens of
    // microseconds against runs of tens of milliseconds).
    const auto t0 = Clock::now();
    start.count_down();
    for (auto& w : workers) w.join();
    const bool flushed = logger->flush();
    const auto t1 = Clock::now();
    cpu_ns += ProcessCpuNanos() - cpu0;
    state.SetIterationTime(Seconds(t1 - t0));
    const LoggerStats s = logger->stats();
    logger.reset();
    dropped += s.dropped;
    if (target == Target::kFile) file_bytes = FileSize(path);
    ::unlink(path.c_str());
    if (!flushed || s.written != messages) {
      state.SkipWithError(
          ("records lost or I/O error: " + s.last_error).c_str());
      break;
    }
  }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * messages));
  state.SetBytesProcessed(
      static_cast<std::int64_t>(state.iterations() * messages * bytes));
  if (target == Target::kFile) {
    state.counters["line_bytes"] =
        static_cast<double>(file_bytes) / static_cast<double>(messages);
  }
  state.counters["dropped"] = static_cast<double>(dropped);
  state.counters["cpu_ns_per_item"] =
      cpu_ns / static_cast<double>(state.iterations() * messages);
  ThreadCounters(state, threads + (L::kAsync ? 1 : 0));
}

// ------------------------------------------------------------------ latency

// Calls per batch in the latency scenario (a pause follows each batch).
constexpr int kBatch = 20;

template <Logger L>
void BM_Latency(benchmark::State& state, Target target, int threads,
                std::size_t bytes, int batches) {
  const std::string path = g_dir + "/latency.log";
  const std::string filler = Filler(bytes);
  const std::string_view fill(filler);
  const double ns_per_tick = NanosPerTick();
  std::vector<double> samples;
  double cpu_ns = 0;
  for (auto _ : state) {
    ::unlink(path.c_str());
    std::unique_ptr<L> logger = Make<L>(state, Options(target, path));
    if (!logger) break;
    const double cpu0 = ProcessCpuNanos();
    std::vector<std::vector<double>> per_thread(threads);
    std::latch start(threads);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        PinToCore(t);
        L& log = *logger;
        std::vector<double>& mine = per_thread[t];
        mine.reserve(static_cast<std::size_t>(batches) * kBatch);
        std::minstd_rand rng(static_cast<unsigned>(t + 1));
        std::uniform_int_distribution<int> pause_us(50, 150);
        std::uint64_t seq = static_cast<std::uint64_t>(t) << 32;
        start.arrive_and_wait();
        for (int b = 0; b < batches; ++b) {
          for (int k = 0; k < kBatch; ++k) {
            const std::uint64_t c0 = Ticks();
            SK_LOG_INFO(log, "{:08} {}", seq++ & 0xffffffff, fill);
            const std::uint64_t c1 = Ticks();
            mine.push_back(static_cast<double>(c1 - c0) * ns_per_tick);
          }
          std::this_thread::sleep_for(std::chrono::microseconds(pause_us(rng)));
        }
      });
    }
    for (auto& w : workers) w.join();
    const bool flushed = logger->flush();
    cpu_ns += ProcessCpuNanos() - cpu0;
    const LoggerStats s = logger->stats();
    logger.reset();
    ::unlink(path.c_str());
    double measured = 0;
    for (auto& v : per_thread) {
      for (double x : v) measured += x;
      samples.insert(samples.end(), v.begin(), v.end());
    }
    state.SetIterationTime(measured * 1e-9);
    const std::uint64_t expected =
        static_cast<std::uint64_t>(threads) * batches * kBatch;
    if (!flushed || s.written != expected) {
      state.SkipWithError(
          ("records lost or I/O error: " + s.last_error).c_str());
      break;
    }
  }
  std::sort(samples.begin(), samples.end());
  state.counters["p50_ns"] = Percentile(samples, 0.50, true);
  state.counters["p99_ns"] = Percentile(samples, 0.99, true);
  state.counters["p999_ns"] = Percentile(samples, 0.999, true);
  state.counters["samples"] = static_cast<double>(samples.size());
  if (!samples.empty()) {
    state.counters["cpu_ns_per_item"] =
        cpu_ns / static_cast<double>(samples.size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(samples.size()));
  ThreadCounters(state, threads + (L::kAsync ? 1 : 0));
}

// ------------------------------------------------------------- registration

// `server`: the ping-pong server accepts this logger (AllLoggers); the
// queue loggers only the full profile adds are ranked but not offered there.
template <Logger L>
void RegisterLogger(Profile profile, bool server) {
  const std::string_view impl = L::kName;
  DescribeImpl(impl, {{"async", L::kAsync}, {"server", server}});
  const std::uint64_t messages =
      ByProfile<std::uint64_t>(profile, 2'000, 40'000, 1'000'000);
  const int batches = ByProfile(profile, 10, 200, 2'500);
  for (const char* s : {"throughput-file", "throughput-console"}) {
    DescribeScenario(s, {{"messages", messages}});
  }
  for (const char* s : {"latency-file", "latency-console"}) {
    DescribeScenario(
        s, {{"batches_per_caller", batches}, {"calls_per_batch", kBatch}});
  }
  for (Target target : {Target::kFile, Target::kConsole}) {
    const char* scenario =
        target == Target::kFile ? "throughput-file" : "throughput-console";
    for (int threads : {1, 4}) {
      for (long bytes : {32L, 512L}) {
        RegisterTimedOnce(BenchName("logger", scenario, impl,
                                    {{"callers", threads}, {"bytes", bytes}})
                              .c_str(),
                          [=](benchmark::State& s) {
                            BM_Throughput<L>(s, target, threads,
                                             static_cast<std::size_t>(bytes),
                                             messages);
                          });
      }
    }
  }
  std::vector<Target> latency_targets = {Target::kFile};
  if (profile == Profile::kFull) latency_targets.push_back(Target::kConsole);
  for (Target target : latency_targets) {
    const char* scenario =
        target == Target::kFile ? "latency-file" : "latency-console";
    for (int threads : {1, 4}) {
      for (long bytes : {32L, 512L}) {
        RegisterTimedOnce(
            BenchName("logger", scenario, impl,
                      {{"callers", threads}, {"bytes", bytes}})
                .c_str(),
            [=](benchmark::State& s) {
              BM_Latency<L>(s, target, threads, static_cast<std::size_t>(bytes),
                            batches);
            },
            benchmark::kMicrosecond);
      }
    }
  }
}

template <typename... Ls>
void RegisterAll(TypeList<Ls...>, Profile profile) {
  (RegisterLogger<Ls>(profile, /*server=*/true), ...);
}

// Full profile: AsyncQueueLogger over every multi-producer queue that
// AllLoggers does not already run it over.
template <typename F>
void RegisterQueueLogger(Profile profile) {
  using Q = typename F::template Of<QueuedRecord>;
  if constexpr (Q::kTopology != Topology::kSpsc &&
                !Contains<AsyncQueueLoggerQueues, F>::value) {
    RegisterLogger<AsyncQueueLogger<F::template Of>>(profile,
                                                     /*server=*/false);
  }
}

template <typename... Fs>
void RegisterQueueLoggers(TypeList<Fs...>, Profile profile) {
  (RegisterQueueLogger<Fs>(profile), ...);
}

}  // namespace
}  // namespace serverkit::bench

int main(int argc, char** argv) {
  using namespace serverkit::bench;
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") +
                      "/serverkit-logger-bench-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  g_dir = templ;
  g_console_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (g_console_fd < 0) {
    std::perror("/dev/null");
    return 1;
  }
  benchmark::AddCustomContext("logger_files", g_dir + " (removed at exit)");
  benchmark::AddCustomContext("logger_console",
                              "/dev/null (a descriptor this binary opens)");

  SweepSpec spec;
  spec.family = "logger";
  spec.baseline = std::string(serverkit::SyncLogger::kName);
  // pick's classes join the file and console scenarios: one round
  // unit each for throughput and latency, so their rounds pair up.
  spec.rankings = {
      {.scenario = "throughput-file",
       .counter = "items_per_second",
       .higher_is_better = true,
       .unit = "msgs/s",
       .also_show = {"bytes_per_second"},
       .round_unit = "throughput"},
      {.scenario = "throughput-console",
       .counter = "items_per_second",
       .higher_is_better = true,
       .unit = "msgs/s",
       .also_show = {"bytes_per_second"},
       .round_unit = "throughput"},
      {.scenario = "latency-file",
       .counter = "p50_ns",
       .higher_is_better = false,
       .unit = "ns",
       .also_show = {"p99_ns", "p999_ns"},
       .round_unit = "latency"},
      {.scenario = "latency-console",
       .counter = "p50_ns",
       .higher_is_better = false,
       .unit = "ns",
       .also_show = {"p99_ns", "p999_ns"},
       .round_unit = "latency"},
  };
  spec.register_benchmarks = [](Profile p) {
    RegisterAll(serverkit::AllLoggers{}, p);
    if (p == Profile::kFull) RegisterQueueLoggers(serverkit::AllQueues{}, p);
  };
  spec.round_budget_s = 95;
  const int rc = RunSweep(spec, argc, argv);
  ::close(g_console_fd);
  ::rmdir(g_dir.c_str());
  return rc;
}
