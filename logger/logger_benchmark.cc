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
//   shared-core-file    the HTTP server's access log on 2 cores: the caller
//                       and the backend pinned to one core, a request's I/O
//                       work between lines, access-log lines at full rate;
//                       every thread's CPU per line (the validation's logger
//                       cpu metric; logger/sweep/shared_core.h).
//
// Async loggers run with the block policy (nothing lost), queue_capacity 8192
// records (spdlog async: 8192 slots), 1 MiB double buffers. Callers are pinned
// round-robin to the allowed cores; backend threads are not pinned, except in
// shared-core-file. The `threads` counter counts callers plus the backend
// thread of async loggers; the ranking marks runs with more threads than
// cores.
//
// The scenarios live in logger/sweep/throughput.h, latency.h and
// shared_core.h, what they share in logger/sweep/common.h; this file
// registers them for every logger, throughput, latency, then shared core,
// and runs the sweep.

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "base/type_list.h"
#include "bench/harness/harness.h"
#include "logger/all_loggers.h"
#include "logger/logger.h"
#include "logger/sweep/common.h"
#include "logger/sweep/latency.h"
#include "logger/sweep/shared_core.h"
#include "logger/sweep/throughput.h"
#include "queues/all_queues.h"

namespace serverkit::bench::logger_sweep {
namespace {

// `server`: the ping-pong server accepts this logger (AllLoggers); the
// queue loggers only the full profile adds are ranked but not offered there.
template <Logger L>
void RegisterLogger(Profile profile, bool server) {
  const std::string_view impl = L::kName;
  DescribeImpl(impl, {{"async", L::kAsync}, {"server", server}});
  const std::uint64_t messages =
      ByProfile<std::uint64_t>(profile, 2'000, 40'000, 1'000'000);
  const int batches = ByProfile(profile, 10, 200, 2'500);
  RegisterThroughput<L>(impl, messages);
  RegisterLatency<L>(profile, impl, batches);
  RegisterSharedCore<L>(impl, ByProfile(profile, 500, 10'000, 50'000));
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
}  // namespace serverkit::bench::logger_sweep

int main(int argc, char** argv) {
  using namespace serverkit::bench;
  using namespace serverkit::bench::logger_sweep;
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
  spec.round_budget_s = 75;
  const int rc = RunSweep(spec, argc, argv);
  ::close(g_console_fd);
  ::rmdir(g_dir.c_str());
  return rc;
}
