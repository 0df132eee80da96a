// -----------------------------------------------------------------------------
// logger/sweep/shared_core.h
// -----------------------------------------------------------------------------
//
// The logger sweep's `shared-core-file` scenario: the HTTP server's access
// log on 2 cores as the validation runs it. One caller and an async
// logger's backend share one core (the server's); between lines the caller
// does an I/O thread's work for one request: a 100-byte write and read on
// a socketpair and a pass over `ws_kib` KiB of its own memory; the line is
// the access log's (servers/http kAccessLogFormat: ten arguments, six of
// them strings); lines come at the caller's full rate, so the backend gets
// the core only by preempting the caller. `cpu_ns_per_item` is every
// thread's CPU per line, the work between lines included: that work is the
// same for every logger, so the difference between two loggers is what the
// server pays per line for the choice. `switches_per_item`: the process's
// context switches per line; `caller_switches_per_item`: the caller's
// alone (mostly preemptions by the backend). The rest are the backend's
// wake-ups, to set beside the server's (servers/http/insitu.py).
//
// Thread-safety: Google Benchmark calls this on its main thread.

#ifndef SERVERKIT_LOGGER_SWEEP_SHARED_CORE_H_
#define SERVERKIT_LOGGER_SWEEP_SHARED_CORE_H_

#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/harness/harness.h"
#include "logger/logger.h"
#include "logger/sweep/common.h"

namespace serverkit::bench::logger_sweep {

// servers/http/http_handler.h's kAccessLogFormat (the logger may not
// depend on the servers).
inline constexpr char kAccessLine[] =
    "{} - - [{}] \"{} {} HTTP/{}.{}\" {} {} \"{}\" \"{}\"";

// Pins the calling thread to one CPU; false where the system refuses.
inline bool PinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return ::sched_setaffinity(0, sizeof(set), &set) == 0;
}

// Context switches of every thread of this process so far, voluntary and
// not: an async backend's wake-ups, which the server pays per line too.
inline double Switches(int who = RUSAGE_SELF) {
  struct rusage ru;
  if (::getrusage(who, &ru) != 0) return 0;
  return static_cast<double>(ru.ru_nvcsw + ru.ru_nivcsw);
}

template <Logger L>
void BM_SharedCore(benchmark::State& state, std::size_t ws_kib, int lines) {
  const std::string path = g_dir + "/shared_core.log";
  // The server's core: the upper half's first, as servers/http/run.py pins.
  const std::vector<int> cpus = AllowedCpus();
  const int cpu = cpus.empty() ? 0 : cpus[cpus.size() / 2];
  std::vector<std::uint64_t> ws(ws_kib * 1024 / sizeof(std::uint64_t), 1);
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
    state.SkipWithError("socketpair");
    return;
  }
  char request[100] = {};
  double cpu_ns = 0;
  double switches = 0;
  double caller_switches = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    ::unlink(path.c_str());
    // The backend inherits the affinity of the thread that makes it.
    const bool pinned = PinToCpu(cpu);
    std::unique_ptr<L> logger = Make<L>(state, Options(Target::kFile, path));
    UnpinThread();
    if (!logger) break;
    const double cpu0 = ProcessCpuNanos();
    const double switches0 = Switches();
    const auto t0 = Clock::now();
    std::thread caller([&] {
      PinToCpu(cpu);
      for (int i = 0; i < lines; ++i) {
        // One request's I/O work: the socket calls and the memory it
        // touches, which evict the backend's lines between its turns.
        if (::write(sv[0], request, sizeof(request)) < 0 ||
            ::read(sv[1], request, sizeof(request)) < 0) {
          break;
        }
        for (std::size_t k = 0; k < ws.size(); k += 8) sum += ++ws[k];
        SK_LOG_INFO(*logger, kAccessLine, std::string_view("127.0.0.1"),
                    std::string_view("28/Nov/2026:02:15:35 +0000"),
                    std::string_view("GET"), std::string_view("/collect?v=1"),
                    1, 1, 200, std::size_t{11}, std::string_view("-"),
                    std::string_view("-"));
      }
      caller_switches += Switches(RUSAGE_THREAD);  // since it started
    });
    caller.join();
    const bool flushed = logger->flush();
    state.SetIterationTime(Seconds(Clock::now() - t0));
    cpu_ns += ProcessCpuNanos() - cpu0;
    switches += Switches() - switches0;
    const LoggerStats s = logger->stats();
    logger.reset();
    ::unlink(path.c_str());
    if (!pinned) state.counters["unpinned"] = 1;
    if (!flushed || s.written != static_cast<std::uint64_t>(lines)) {
      state.SkipWithError(
          ("records lost or I/O error: " + s.last_error).c_str());
      break;
    }
  }
  ::close(sv[0]);
  ::close(sv[1]);
  benchmark::DoNotOptimize(sum);
  const double items =
      static_cast<double>(lines) * static_cast<double>(state.iterations());
  if (items > 0) {
    state.counters["cpu_ns_per_item"] = cpu_ns / items;
    state.counters["switches_per_item"] = switches / items;
    state.counters["caller_switches_per_item"] = caller_switches / items;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(items));
  ThreadCounters(state, 1 + (L::kAsync ? 1 : 0));
}

// Registers one logger's shared-core point (callers:1, the working set in
// KiB as `ws_kib`).
template <Logger L>
void RegisterSharedCore(std::string_view impl, int lines) {
  DescribeScenario("shared-core-file", {{"lines", lines}});
  for (long ws_kib : {64L}) {
    RegisterTimedOnce(
        BenchName("logger", "shared-core-file", impl,
                  {{"callers", 1}, {"ws_kib", ws_kib}})
            .c_str(),
        [=](benchmark::State& s) {
          BM_SharedCore<L>(s, static_cast<std::size_t>(ws_kib), lines);
        },
        benchmark::kMicrosecond);
  }
}

}  // namespace serverkit::bench::logger_sweep

#endif  // SERVERKIT_LOGGER_SWEEP_SHARED_CORE_H_
