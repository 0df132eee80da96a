// -----------------------------------------------------------------------------
// logger/sync_logger.h
// -----------------------------------------------------------------------------
//
// `SyncLogger`: the calling thread formats the line and writes it to the sink
// (a file or the console) under one mutex, through stdio's unlocked calls.
// The reference: nothing is ever queued, so nothing can be lost on exit.
//
// Flush policy (explicit): the stdio buffer (64 KiB) is handed to the kernel
// when it fills, when a record at or above `LoggerOptions::flush_on` is logged
// (that record included), on `flush()` and on destruction. Nothing else
// flushes: a crash loses at most the stdio buffer.
//
// Overflow policy: none; a slow disk slows the callers.
//
// Thread-safety: thread-safe (see logger/logger.h).

#ifndef SERVERKIT_LOGGER_SYNC_LOGGER_H_
#define SERVERKIT_LOGGER_SYNC_LOGGER_H_

#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>

#include "logger/internal/line_format.h"
#include "logger/logger.h"
#include "logger/sink.h"

namespace serverkit {

class SyncLogger {
 public:
  static constexpr std::string_view kName = "sync";
  static constexpr bool kAsync = false;

  explicit SyncLogger(const LoggerOptions& options);
  ~SyncLogger();
  SyncLogger(const SyncLogger&) = delete;
  SyncLogger& operator=(const SyncLogger&) = delete;

  template <typename... Args>
  void log(Level level, const SourceLocation& where,
           fmt::format_string<Args...> format, Args&&... args) {
    fmt::memory_buffer& line = logger_internal::ThreadScratch();
    line.clear();
    logger_internal::AppendHeader(line,
                                  logger_internal::MakeHeader(level, where));
    fmt::format_to(fmt::appender(line), format, std::forward<Args>(args)...);
    line.push_back('\n');
    Write(level, std::string_view(line.data(), line.size()));
  }

  bool should_log(Level level) const { return threshold_.should_log(level); }
  void set_level(Level level) { threshold_.set_level(level); }
  bool flush();
  LoggerStats stats() const;

 private:
  void Write(Level level, std::string_view line);

  LevelThreshold threshold_;
  const Level flush_on_;
  std::mutex mu_;
  std::unique_ptr<Sink>
      sink_;  // guarded by mu_ (its error state is thread-safe)
  std::atomic<std::uint64_t> written_{0};  // stored under mu_, read anywhere
  std::atomic<std::uint64_t> dropped_{0};
  std::uint64_t errors_at_flush_ = 0;  // guarded by mu_
};

static_assert(Logger<SyncLogger>);

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_SYNC_LOGGER_H_
