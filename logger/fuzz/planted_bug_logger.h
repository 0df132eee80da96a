// -----------------------------------------------------------------------------
// logger/fuzz/planted_bug_logger.h
// -----------------------------------------------------------------------------
//
// `PlantedBugLogger<Bug>`: a synchronous logger with one of the two bugs a
// newcomer's logger shipped and the typed tests of the time missed, for the
// mutants of logger_fuzz and of the typed suite (logger_planted_test). Never
// part of `AllLoggers`; test-only.
//
//   - `PlantedBug::kLongLineCut`: the line is built in a fixed 1 KiB buffer,
//     so a longer one is cut to 1024 bytes and loses its newline (the next
//     record runs on in the same line: in the HTTP server two requests became
//     one log line).
//   - `PlantedBug::kLevelDropped`: records at `kWarn` are silently discarded
//     (a `switch` on the level that misses one case), yet counted as written.
//
// Everything else is the reference's (SyncLogger's) behaviour: the same line
// layout, sink, rotation and flush policy.
//
// Thread-safety: thread-safe (see logger/logger.h).

#ifndef SERVERKIT_LOGGER_FUZZ_PLANTED_BUG_LOGGER_H_
#define SERVERKIT_LOGGER_FUZZ_PLANTED_BUG_LOGGER_H_

#include <fmt/format.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>

#include "logger/internal/line_format.h"
#include "logger/logger.h"
#include "logger/sink.h"

namespace serverkit {

enum class PlantedBug { kLongLineCut, kLevelDropped };

template <PlantedBug kBug>
class PlantedBugLogger {
 public:
  static constexpr std::string_view kName = kBug == PlantedBug::kLongLineCut
                                                ? "planted-long-line-cut"
                                                : "planted-level-dropped";
  static constexpr bool kAsync = false;
  // The line the newcomer's buffer held, newline included.
  static constexpr std::size_t kLineBuffer = 1024;
  static constexpr Level kDroppedLevel = Level::kWarn;

  explicit PlantedBugLogger(const LoggerOptions& options)
      : threshold_(options.level),
        flush_on_(options.flush_on),
        sink_(MakeSink(options.sink)) {}
  ~PlantedBugLogger() {
    std::lock_guard<std::mutex> lock(mu_);
    sink_->Flush();
  }
  PlantedBugLogger(const PlantedBugLogger&) = delete;
  PlantedBugLogger& operator=(const PlantedBugLogger&) = delete;

  template <typename... Args>
  void log(Level level, const SourceLocation& where,
           fmt::format_string<Args...> format, Args&&... args) {
    if (kBug == PlantedBug::kLevelDropped && level == kDroppedLevel) {
      written_.fetch_add(1, std::memory_order_relaxed);  // the planted bug
      return;
    }
    fmt::memory_buffer& line = logger_internal::ThreadScratch();
    line.clear();
    logger_internal::AppendHeader(line,
                                  logger_internal::MakeHeader(level, where));
    fmt::format_to(fmt::appender(line), format, std::forward<Args>(args)...);
    line.push_back('\n');
    std::size_t size = line.size();
    if (kBug == PlantedBug::kLongLineCut && size > kLineBuffer) {
      size = kLineBuffer;  // the planted bug: cut short, newline lost
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (sink_->Write(std::string_view(line.data(), size))) {
      written_.fetch_add(1, std::memory_order_relaxed);
    } else {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    }
    if (level >= flush_on_) sink_->Flush();
  }

  bool should_log(Level level) const { return threshold_.should_log(level); }
  void set_level(Level level) { threshold_.set_level(level); }
  bool flush() {
    std::lock_guard<std::mutex> lock(mu_);
    sink_->Flush();
    return NoErrorsSince(*sink_, &errors_at_flush_);
  }
  LoggerStats stats() const {
    return StatsOf(*sink_, written_.load(std::memory_order_relaxed),
                   dropped_.load(std::memory_order_relaxed));
  }

 private:
  LevelThreshold threshold_;
  const Level flush_on_;
  std::mutex mu_;
  std::unique_ptr<Sink> sink_;  // guarded by mu_
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::uint64_t errors_at_flush_ = 0;  // guarded by mu_
};

static_assert(Logger<PlantedBugLogger<PlantedBug::kLongLineCut>>);
static_assert(Logger<PlantedBugLogger<PlantedBug::kLevelDropped>>);

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_FUZZ_PLANTED_BUG_LOGGER_H_
