// -----------------------------------------------------------------------------
// logger/logger.h
// -----------------------------------------------------------------------------
//
// The one interface every logger in this project meets, as a C++20 concept,
// plus what all of them share: levels, the record, options, counters and the
// `SK_LOG_*` front end.
//
// A `Logger` L has:
//
//   - `static constexpr std::string_view kName` ("sync", "spdlog-async", ...)
//     and `static constexpr bool kAsync` (whether a backend thread writes).
//   - `explicit L(const LoggerOptions&)`: opens its sink. An unusable sink (a
//     path that cannot be opened for writing) throws `std::system_error` whose
//     `what()` names the path and the reason. Nothing else throws.
//   - `template <class... Args> void log(Level, const SourceLocation&,
//     fmt::format_string<Args...>, Args&&...)`: logs one record. The format
//     string is checked at compile time. Never throws; I/O errors are counted.
//   - `bool should_log(Level) const` and `void set_level(Level)`: the runtime
//     threshold (records below it are not formatted at all).
//   - `bool flush()`: returns once every record logged before the call (by any
//     thread, as ordered by happens-before) has been handed to the operating
//     system, i.e. written with write(2); it does not fsync. Returns false if
//     an I/O error happened since the previous `flush()`.
//   - `LoggerStats stats() const`: exact counters (see `LoggerStats`).
//   - The destructor is the orderly shutdown: it writes everything logged
//     before it (async loggers drain their queue) and flushes.
//
// Two floors decide whether a record is made at all: `kLogFloor`, fixed at
// compile time by `-DSERVERKIT_LOG_FLOOR=<0..6>` (0 = trace, the default; the
// `SK_LOG_*` macros compile to nothing below it), and each logger's runtime
// threshold (`LoggerOptions::level`, `set_level`).
//
// Thread-safety: every member of every logger is thread-safe, except
// construction and destruction; no thread may be inside `log` or `flush` when
// the destructor runs.

#ifndef SERVERKIT_LOGGER_LOGGER_H_
#define SERVERKIT_LOGGER_LOGGER_H_

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace serverkit {

// Severity, lowest first. `kOff` as a threshold turns a logger off.
enum class Level : std::uint8_t {
  kTrace = 0,
  kDebug = 1,
  kInfo = 2,
  kWarn = 3,
  kError = 4,
  kCritical = 5,
  kOff = 6,
};

// Fixed-width (5 characters) names, as printed in log lines.
constexpr std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kTrace:
      return "TRACE";
    case Level::kDebug:
      return "DEBUG";
    case Level::kInfo:
      return "INFO ";
    case Level::kWarn:
      return "WARN ";
    case Level::kError:
      return "ERROR";
    case Level::kCritical:
      return "CRIT ";
    case Level::kOff:
      return "OFF  ";
  }
  return "?????";
}

#ifndef SERVERKIT_LOG_FLOOR
#define SERVERKIT_LOG_FLOOR 0
#endif

// The compile-time floor: `SK_LOG_*` statements below it generate no code.
inline constexpr Level kLogFloor = static_cast<Level>(SERVERKIT_LOG_FLOOR);

constexpr bool AtOrAboveFloor(Level level) { return level >= kLogFloor; }

// Where a record was made; `file` and `function` point to string literals.
struct SourceLocation {
  const char* file = "";
  int line = 0;
  const char* function = "";
};

// Everything about a record except its message.
struct RecordHeader {
  std::int64_t time_ns = 0;  // system clock, nanoseconds since the Unix epoch
  SourceLocation where;
  std::uint32_t thread_id = 0;  // the kernel's thread id (gettid)
  Level level = Level::kInfo;
};

// A formatted record.
struct Record {
  RecordHeader header;
  std::string_view message;
};

// Counters every logger reports. Exact: each record that passed the threshold
// is counted once, in `written` or `dropped` (a record still queued in an
// async logger is in neither until its backend writes it).
struct LoggerStats {
  // Records handed to the sink without an error (for stdio-buffered sinks: put
  // into the stdio buffer; a later flush error is counted in `io_errors`).
  std::uint64_t written = 0;
  // Records discarded: by the drop overflow policy, logged after shutdown, or
  // lost in a sink write that failed.
  std::uint64_t dropped = 0;
  // Failed writes, flushes and rotations.
  std::uint64_t io_errors = 0;
  // The latest I/O error in words ("write to '/dev/full': No space left on
  // device"); empty when there was none.
  std::string last_error;
};

// Where records go.
enum class SinkKind { kFile, kConsole };

struct SinkOptions {
  SinkKind kind = SinkKind::kFile;
  // kFile: the file, opened for appending (created if missing).
  std::string path;
  // kConsole: the file descriptor written to (through a dup of it, so the
  // caller may point it anywhere, e.g. a file or /dev/null in benchmarks).
  int fd = STDOUT_FILENO;
  // kFile: rotate before a write that would take the file past this many
  // bytes (0: never). A line is never split between two files.
  std::size_t rotate_bytes = 0;
  // kFile with rotation: rotated files kept besides the live one
  // (`path.1` is the newest ... `path.N` the oldest; spdlog: `base.1.ext`).
  std::size_t max_files = 3;
};

// What an async logger does when its queue or buffers are full.
enum class OverflowPolicy {
  kBlock,  // the caller waits for room (nothing is lost)
  kDrop,   // the record is discarded and counted in `LoggerStats::dropped`
};

struct LoggerOptions {
  SinkOptions sink;
  Level level = Level::kInfo;      // runtime threshold
  Level flush_on = Level::kError;  // records at or above it are flushed at once
  OverflowPolicy overflow = OverflowPolicy::kBlock;  // async loggers only
  // Async loggers: records in flight (queue loggers, spdlog async).
  std::size_t queue_capacity = 8192;
  // AsyncDoubleBufferLogger: bytes per buffer, and how many full buffers may
  // wait for the backend before the overflow policy applies.
  std::size_t buffer_bytes = std::size_t{1} << 20;
  std::size_t max_buffers = 16;
  // Async loggers: the backend flushes at least this often while records
  // arrive (the queue loggers also flush whenever they run out of records).
  std::chrono::milliseconds flush_interval{1000};
};

// (clang-format 14 flattens requires-expressions.)
// clang-format off
template <typename L>
concept Logger =
    std::constructible_from<L, const LoggerOptions&> &&
    requires {
      { L::kName } -> std::convertible_to<std::string_view>;
      { L::kAsync } -> std::convertible_to<bool>;
    } &&
    requires(L& l, const L& cl, Level level, const SourceLocation& where) {
      l.log(level, where, "{} {}", 1, std::string_view("x"));
      l.log(level, where, "plain");
      { cl.should_log(level) } -> std::same_as<bool>;
      l.set_level(level);
      { l.flush() } -> std::same_as<bool>;
      { cl.stats() } -> std::same_as<LoggerStats>;
    };
// clang-format on

// The runtime threshold every logger embeds.
// Thread-safety: thread-safe. Memory ordering: relaxed; a new level takes
// effect in other threads soon, not at once.
class LevelThreshold {
 public:
  explicit LevelThreshold(Level level) : level_(level) {}
  bool should_log(Level level) const {
    return level >= level_.load(std::memory_order_relaxed) &&
           level != Level::kOff;
  }
  void set_level(Level level) {
    level_.store(level, std::memory_order_relaxed);
  }
  Level level() const { return level_.load(std::memory_order_relaxed); }

 private:
  std::atomic<Level> level_;
};

}  // namespace serverkit

// The front end: `SK_LOG_INFO(logger, "accepted {} from {}", fd, peer);`
//
// Compiles to nothing below `kLogFloor`; below the logger's runtime threshold
// it costs one relaxed load and the arguments are not evaluated. (Not named
// LOG_INFO: <syslog.h> defines LOG_INFO, LOG_DEBUG and LOG_WARNING.)
#define SK_LOG_HERE                                \
  (::serverkit::SourceLocation{__FILE__, __LINE__, \
                               static_cast<const char*>(__func__)})

#define SK_LOG(logger, level, ...)                             \
  do {                                                         \
    if constexpr (::serverkit::AtOrAboveFloor(level)) {        \
      auto& sk_log_logger_ = (logger);                         \
      if (sk_log_logger_.should_log(level)) {                  \
        sk_log_logger_.log((level), SK_LOG_HERE, __VA_ARGS__); \
      }                                                        \
    }                                                          \
  } while (false)

#define SK_LOG_TRACE(logger, ...) \
  SK_LOG(logger, ::serverkit::Level::kTrace, __VA_ARGS__)
#define SK_LOG_DEBUG(logger, ...) \
  SK_LOG(logger, ::serverkit::Level::kDebug, __VA_ARGS__)
#define SK_LOG_INFO(logger, ...) \
  SK_LOG(logger, ::serverkit::Level::kInfo, __VA_ARGS__)
#define SK_LOG_WARN(logger, ...) \
  SK_LOG(logger, ::serverkit::Level::kWarn, __VA_ARGS__)
#define SK_LOG_ERROR(logger, ...) \
  SK_LOG(logger, ::serverkit::Level::kError, __VA_ARGS__)
#define SK_LOG_CRITICAL(logger, ...) \
  SK_LOG(logger, ::serverkit::Level::kCritical, __VA_ARGS__)

#endif  // SERVERKIT_LOGGER_LOGGER_H_
