// -----------------------------------------------------------------------------
// logger/async_double_buffer_logger.h
// -----------------------------------------------------------------------------
//
// `AsyncDoubleBufferLogger`: muduo's AsyncLogging design. The caller formats
// the line on its own thread, then, under one mutex, copies it into the
// *current* buffer. When the current buffer is full it joins the list of full
// buffers, the *next* (spare) buffer becomes current, and the backend thread is
// woken. The backend wakes when a buffer fills, on `flush()`, for a record at
// or above `flush_on`, or every `flush_interval`; under the lock it takes the
// full buffers *and* the current one (swapping in its own two spares), then
// writes and flushes outside the lock. The front end never waits for I/O.
//
// What muduo lacks and this has:
//   - The final drain: the destructor wakes the backend, which writes every
//     buffer, the partly filled current one included, and flushes before the
//     thread ends. Records logged after shutdown began are counted as dropped.
//   - A bound: at most `max_buffers` full buffers wait for the backend (muduo
//     allocates without limit, then throws all but two away, printing
//     "Dropped log messages"). Past the bound the overflow policy applies:
//     kBlock waits for the backend, kDrop discards the record and counts it.
//   - `flush()` that waits until the bytes reached the kernel.
//   - Lines longer than a buffer get a buffer of their own (muduo drops them).
//
// Thread-safety: thread-safe (see logger/logger.h).

#ifndef SERVERKIT_LOGGER_ASYNC_DOUBLE_BUFFER_LOGGER_H_
#define SERVERKIT_LOGGER_ASYNC_DOUBLE_BUFFER_LOGGER_H_

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "logger/internal/line_format.h"
#include "logger/logger.h"
#include "logger/sink.h"

namespace serverkit {

class AsyncDoubleBufferLogger {
 public:
  static constexpr std::string_view kName = "async-double-buffer";
  static constexpr bool kAsync = true;

  explicit AsyncDoubleBufferLogger(const LoggerOptions& options);
  ~AsyncDoubleBufferLogger();
  AsyncDoubleBufferLogger(const AsyncDoubleBufferLogger&) = delete;
  AsyncDoubleBufferLogger& operator=(const AsyncDoubleBufferLogger&) = delete;

  template <typename... Args>
  void log(Level level, const SourceLocation& where,
           fmt::format_string<Args...> format, Args&&... args) {
    fmt::memory_buffer& line = logger_internal::ThreadScratch();
    line.clear();
    logger_internal::AppendHeader(line,
                                  logger_internal::MakeHeader(level, where));
    fmt::format_to(fmt::appender(line), format, std::forward<Args>(args)...);
    line.push_back('\n');
    Append(level, std::string_view(line.data(), line.size()));
  }

  bool should_log(Level level) const { return threshold_.should_log(level); }
  void set_level(Level level) { threshold_.set_level(level); }
  bool flush();
  LoggerStats stats() const;

 private:
  struct Buffer {
    explicit Buffer(std::size_t bytes)
        : data(new char[bytes]), capacity(bytes) {}
    std::unique_ptr<char[]> data;
    std::size_t capacity;
    std::size_t len = 0;
    std::uint64_t records = 0;
  };
  using BufferPtr = std::unique_ptr<Buffer>;

  void Append(Level level, std::string_view line);
  void BackendLoop();
  BufferPtr NewBuffer(std::size_t at_least = 0) const;

  LevelThreshold threshold_;
  const Level flush_on_;
  const OverflowPolicy overflow_;
  const std::size_t buffer_bytes_;
  const std::size_t max_buffers_;
  const std::chrono::milliseconds flush_interval_;
  std::unique_ptr<Sink> sink_;  // used by the backend thread only (and flush)

  std::mutex mu_;
  std::condition_variable backend_cv_;  // work for the backend
  std::condition_variable space_cv_;    // room for blocked callers
  std::condition_variable flushed_cv_;  // a flush finished
  BufferPtr current_;                   // guarded by mu_
  BufferPtr next_;                      // guarded by mu_
  std::vector<BufferPtr> full_;         // guarded by mu_
  bool stopping_ = false;               // guarded by mu_
  bool urgent_ = false;                 // guarded by mu_
  std::uint64_t flush_requested_ = 0;   // guarded by mu_
  std::uint64_t flush_done_ = 0;        // guarded by mu_
  std::uint64_t errors_at_flush_ = 0;   // guarded by mu_

  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::thread backend_;
};

static_assert(Logger<AsyncDoubleBufferLogger>);

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_ASYNC_DOUBLE_BUFFER_LOGGER_H_
