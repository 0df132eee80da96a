// -----------------------------------------------------------------------------
// logger/sweep/common.h
// -----------------------------------------------------------------------------
//
// What the logger sweep's scenarios share (logger/logger_benchmark.cc lists
// them): the scratch folder for log files and the /dev/null descriptor the
// console sinks write to (both set by main), the options every logger runs
// with (block policy, 8192 records, 1 MiB buffers), the message filler,
// and making a logger with a constructor error turned into a failed run.
//
// Thread-safety: `g_dir` and `g_console_fd` are set before the sweep and
// only read during it.

#ifndef SERVERKIT_LOGGER_SWEEP_COMMON_H_
#define SERVERKIT_LOGGER_SWEEP_COMMON_H_

#include <sys/stat.h>

#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <string>

#include "bench/harness/harness.h"
#include "logger/logger.h"

namespace serverkit::bench::logger_sweep {

using Clock = std::chrono::steady_clock;

enum class Target { kFile, kConsole };

inline std::string g_dir;      // scratch directory for log files
inline int g_console_fd = -1;  // /dev/null: where console sinks write

inline double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

inline LoggerOptions Options(Target target, const std::string& path) {
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

inline std::size_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size)
                                        : 0;
}

// The message is "<8-digit seq> <filler>", exactly `bytes` long.
inline std::string Filler(std::size_t bytes) {
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

}  // namespace serverkit::bench::logger_sweep

#endif  // SERVERKIT_LOGGER_SWEEP_COMMON_H_
