// -----------------------------------------------------------------------------
// logger/boost_log_logger.h
// -----------------------------------------------------------------------------
//
// `BoostLogLogger`: an adapter for Boost.Log 1.74 (Debian's libboost-log-dev,
// linked dynamically), so it runs through the same tests and sweeps as our
// loggers. Synchronous: a `severity_logger_mt` source, Boost.Log's global
// core, and a `synchronous_sink<text_ostream_backend>` over a `std::ofstream`
// (file) or a stream over a dup of the console fd. Each record carries the
// attributes TimeStamp (UTC), ThreadID and Severity, formatted by Boost.Log's
// formatter; the message itself ("file:line] text") is formatted with {fmt}
// on the calling thread, as for every other logger.
//
// Each instance filters on its own constant attribute, so several instances
// (and any other Boost.Log user in the process) share the global core without
// seeing each other's records.
//
// Not supported: size rotation (`SinkOptions::rotate_bytes` != 0 throws
// std::invalid_argument; Boost.Log's own text_file_backend rotates with its
// own naming scheme, which this adapter does not wire). `kRotates` says so.
//
// Flush policy: the ofstream's buffer, plus `flush_on`, `flush()` and
// destruction. I/O errors are found when the stream is flushed (a failed
// ofstream stops writing until its state is cleared; the adapter clears it).
//
// Thread-safety: thread-safe (see logger/logger.h).

#ifndef SERVERKIT_LOGGER_BOOST_LOG_LOGGER_H_
#define SERVERKIT_LOGGER_BOOST_LOG_LOGGER_H_

#include <fmt/format.h>

#include <memory>
#include <string_view>
#include <utility>

#include "logger/internal/line_format.h"
#include "logger/logger.h"

namespace serverkit {

class BoostLogLogger {
 public:
  static constexpr std::string_view kName = "boost-log";
  static constexpr bool kAsync = false;
  static constexpr bool kRotates = false;

  explicit BoostLogLogger(const LoggerOptions& options);
  ~BoostLogLogger();
  BoostLogLogger(const BoostLogLogger&) = delete;
  BoostLogLogger& operator=(const BoostLogLogger&) = delete;

  template <typename... Args>
  void log(Level level, const SourceLocation& where,
           fmt::format_string<Args...> format, Args&&... args) {
    fmt::memory_buffer& message = logger_internal::ThreadScratch();
    message.clear();
    fmt::format_to(fmt::appender(message), "{}:{}] ", where.file, where.line);
    fmt::format_to(fmt::appender(message), format, std::forward<Args>(args)...);
    Push(level, std::string_view(message.data(), message.size()));
  }

  bool should_log(Level level) const { return threshold_.should_log(level); }
  void set_level(Level level) { threshold_.set_level(level); }
  bool flush();
  LoggerStats stats() const;

 private:
  struct Impl;  // keeps Boost.Log's headers out of this one

  void Push(Level level, std::string_view message);

  LevelThreshold threshold_;
  std::unique_ptr<Impl> impl_;
};

static_assert(Logger<BoostLogLogger>);

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_BOOST_LOG_LOGGER_H_
