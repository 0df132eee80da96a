// -----------------------------------------------------------------------------
// logger/spdlog_loggers.h
// -----------------------------------------------------------------------------
//
// Adapters for spdlog 1.10 (Debian's compiled libspdlog over the external
// {fmt}), so it runs through the same tests and sweeps as our loggers:
//
//   - `SpdlogSyncLogger`: `spdlog::logger` over `basic_file_sink_mt` (or
//     `rotating_file_sink_mt` when `rotate_bytes` is set) or a stdout-style
//     console sink over our fd. The caller formats and writes under the sink's
//     mutex. spdlog's console sink flushes after every line; its file sinks
//     rely on the stdio buffer plus `flush_on`.
//   - `SpdlogAsyncLogger`: `spdlog::async_logger` with its own thread pool (one
//     worker, `queue_capacity` slots). The caller formats the message payload;
//     the worker applies the pattern and writes. kBlock maps to
//     `async_overflow_policy::block`, kDrop to `overrun_oldest` (spdlog drops
//     the *oldest* queued record, not the new one; `dropped` counts them
//     exactly through spdlog's `overrun_counter`).
//
// Both log spdlog's way: pattern "%Y-%m-%d %H:%M:%S.%F %l %t %s:%#] %v" in
// UTC, which is our line layout in spdlog's words. The loggers are not put in
// spdlog's global registry.
//
// What the adapter adds: exact `written` counts and a `flush()` that waits
// (spdlog's async flush only posts a message): both come from a decorator
// sink, `CountingSink`, between the logger and the real sink, plus, for the
// async logger, one relaxed atomic increment per record (records posted), so
// `flush()` can wait until the worker has taken every earlier record, then
// post a flush and wait for it. (Under kDrop spdlog may overrun a queued
// flush message too; `dropped` then counts it as well.) spdlog's error handler
// is replaced by one that counts and keeps the message.
//
// Thread-safety: thread-safe (see logger/logger.h).

#ifndef SERVERKIT_LOGGER_SPDLOG_LOGGERS_H_
#define SERVERKIT_LOGGER_SPDLOG_LOGGERS_H_

#include <spdlog/async_logger.h>
#include <spdlog/details/thread_pool.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/sink.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "logger/logger.h"

namespace serverkit {
namespace logger_internal {

// Forwards to `inner` and counts records that reached it and finished flushes.
// Thread-safety: thread-safe (as `inner`).
class CountingSink final : public spdlog::sinks::sink {
 public:
  explicit CountingSink(std::shared_ptr<spdlog::sinks::sink> inner)
      : inner_(std::move(inner)) {}

  void log(const spdlog::details::log_msg& msg) override;
  void flush() override;
  void set_pattern(const std::string& pattern) override;
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override;

  std::uint64_t written() const {
    return written_.load(std::memory_order_relaxed);
  }
  std::uint64_t failed() const {
    return failed_.load(std::memory_order_relaxed);
  }
  std::atomic<std::uint64_t>& flushes() { return flushes_; }

 private:
  std::shared_ptr<spdlog::sinks::sink> inner_;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> failed_{0};
  std::atomic<std::uint64_t> flushes_{0};
};

// Errors reported through spdlog's error handler.
struct SpdlogErrors {
  std::atomic<std::uint64_t> count{0};
  std::mutex mu;
  std::string last;  // guarded by mu
};

constexpr spdlog::level::level_enum ToSpdlog(Level level) {
  return static_cast<spdlog::level::level_enum>(static_cast<int>(level));
}

}  // namespace logger_internal

template <bool kAsyncMode>
class SpdlogLogger {
 public:
  static constexpr std::string_view kName =
      kAsyncMode ? std::string_view("spdlog-async")
                 : std::string_view("spdlog-sync");
  static constexpr bool kAsync = kAsyncMode;

  explicit SpdlogLogger(const LoggerOptions& options);
  ~SpdlogLogger();
  SpdlogLogger(const SpdlogLogger&) = delete;
  SpdlogLogger& operator=(const SpdlogLogger&) = delete;

  template <typename... Args>
  void log(Level level, const SourceLocation& where,
           fmt::format_string<Args...> format, Args&&... args) {
    logger_->log(spdlog::source_loc{where.file, where.line, where.function},
                 logger_internal::ToSpdlog(level), format,
                 std::forward<Args>(args)...);
    if constexpr (kAsyncMode) posted_.fetch_add(1, std::memory_order_release);
  }

  bool should_log(Level level) const { return threshold_.should_log(level); }
  void set_level(Level level) { threshold_.set_level(level); }
  bool flush();
  LoggerStats stats() const;

 private:
  LevelThreshold threshold_;
  std::FILE* console_ = nullptr;  // owned; the console sink writes to it
  std::shared_ptr<logger_internal::SpdlogErrors> errors_;
  std::shared_ptr<logger_internal::CountingSink> counting_;
  std::shared_ptr<spdlog::details::thread_pool> pool_;  // async only
  std::shared_ptr<spdlog::logger> logger_;
  std::atomic<std::uint64_t> errors_at_flush_{0};
  std::atomic<std::uint64_t> posted_{0};  // async: records handed to spdlog
};

using SpdlogSyncLogger = SpdlogLogger<false>;
using SpdlogAsyncLogger = SpdlogLogger<true>;

extern template class SpdlogLogger<false>;
extern template class SpdlogLogger<true>;

static_assert(Logger<SpdlogSyncLogger>);
static_assert(Logger<SpdlogAsyncLogger>);

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_SPDLOG_LOGGERS_H_
