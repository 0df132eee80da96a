// -----------------------------------------------------------------------------
// logger/sink.h
// -----------------------------------------------------------------------------
//
// Where our own loggers' bytes go. A `Sink` takes whole lines (one or many per
// call) and hands them to stdio with the unlocked calls (`fwrite_unlocked`,
// `fflush_unlocked`): the logger in front of it is the one lock.
//
//   - `FileSink`: a file opened for appending, with optional size-based
//     rotation (`path` -> `path.1` -> ... -> `path.N`, oldest deleted). A write
//     that would take the file past `rotate_bytes` is split at a line boundary;
//     a single line longer than the limit gets a file of its own.
//   - `ConsoleSink`: a file descriptor (stdout by default) through a dup of it.
//
// Errors: a sink that cannot be opened throws `std::system_error` from its
// constructor (the message names the path and the reason). After that nothing
// throws: failed writes, flushes and rotations return false and are counted
// in `io_errors()` with the latest one in words in `last_error()`, and the sink
// keeps trying on later calls.
//
// Thread-safety: `Write`, `Flush` and `Rotate` are thread-compatible (callers
// serialise them); `io_errors`, `last_error` and `description` are thread-safe.

#ifndef SERVERKIT_LOGGER_SINK_H_
#define SERVERKIT_LOGGER_SINK_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "logger/logger.h"

namespace serverkit {

class Sink {
 public:
  virtual ~Sink();
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  // Writes `bytes`, which holds whole lines. Returns false on an error.
  virtual bool Write(std::string_view bytes);
  // Hands what stdio buffered to the kernel. Returns false on an error.
  bool Flush();

  std::uint64_t io_errors() const {
    return io_errors_.load(std::memory_order_relaxed);
  }
  std::string last_error() const;
  // "file '/var/log/x.log'" or "console (fd 1)".
  const std::string& description() const { return description_; }

 protected:
  // Takes ownership of `file` (may be null: every write then fails).
  Sink(std::FILE* file, std::string description);

  bool WriteRaw(std::string_view bytes);
  void RecordError(std::string_view what, int err);

  std::FILE* file_;

 private:
  std::string description_;
  std::atomic<std::uint64_t> io_errors_{0};
  mutable std::mutex error_mu_;
  std::string last_error_;  // guarded by error_mu_
};

// True if `sink` counted no I/O error since the previous call with the same
// `mark` (what `flush()` returns); moves `mark` on. Calls on one mark must be
// serialised by the caller.
inline bool NoErrorsSince(const Sink& sink, std::uint64_t* mark) {
  const std::uint64_t errors = sink.io_errors();
  const bool ok = errors == *mark;
  *mark = errors;
  return ok;
}

// What every logger's `stats()` reports: its own written and dropped counts
// (the relaxed loads are the caller's) and the sink's I/O errors.
inline LoggerStats StatsOf(const Sink& sink, std::uint64_t written,
                           std::uint64_t dropped) {
  LoggerStats s;
  s.written = written;
  s.dropped = dropped;
  s.io_errors = sink.io_errors();
  s.last_error = sink.last_error();
  return s;
}

class FileSink final : public Sink {
 public:
  // Throws std::system_error when `path` cannot be opened for appending.
  FileSink(std::string path, std::size_t rotate_bytes, std::size_t max_files);

  bool Write(std::string_view bytes) override;

  // Closes the live file, shifts the rotated ones and starts a new file.
  bool Rotate();

  std::size_t file_bytes() const { return size_; }

 private:
  std::string path_;
  std::size_t rotate_bytes_;
  std::size_t max_files_;
  std::size_t size_ = 0;  // bytes in the live file
};

class ConsoleSink final : public Sink {
 public:
  // Throws std::system_error when `fd` cannot be duplicated.
  explicit ConsoleSink(int fd);
};

// The sink `options` describe. Throws std::system_error as the sinks do.
std::unique_ptr<Sink> MakeSink(const SinkOptions& options);

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_SINK_H_
