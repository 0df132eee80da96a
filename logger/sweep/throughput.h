// -----------------------------------------------------------------------------
// logger/sweep/throughput.h
// -----------------------------------------------------------------------------
//
// The logger sweep's `throughput-file` and `throughput-console` scenarios:
// n callers log M messages of b bytes into a file or the console sink,
// timed from the start signal until `flush()` returned. msgs/s and bytes/s
// of message text; a run that lost a record fails.
//
// Thread-safety: Google Benchmark calls these on its main thread.

#ifndef SERVERKIT_LOGGER_SWEEP_THROUGHPUT_H_
#define SERVERKIT_LOGGER_SWEEP_THROUGHPUT_H_

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <latch>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/harness/harness.h"
#include "logger/logger.h"
#include "logger/sweep/common.h"

namespace serverkit::bench::logger_sweep {

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

// Registers one logger's throughput points, `impl` its name.
template <Logger L>
void RegisterThroughput(std::string_view impl, std::uint64_t messages) {
  for (const char* s : {"throughput-file", "throughput-console"}) {
    DescribeScenario(s, {{"messages", messages}});
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
}

}  // namespace serverkit::bench::logger_sweep

#endif  // SERVERKIT_LOGGER_SWEEP_THROUGHPUT_H_
