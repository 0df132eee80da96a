// -----------------------------------------------------------------------------
// logger/internal/line_format.h
// -----------------------------------------------------------------------------
//
// The line layout of our own loggers, and the helpers that fill a record
// header:
//
//   2024-05-01 12:34:56.123456789 INFO  12345 logger/x.cc:42] message\n
//
// Time is UTC. As in muduo, the "YYYY-MM-DD HH:MM:SS" part is cached per thread
// and reformatted only when the second changes; the thread id is cached per
// thread.
//
// Thread-safety: thread-safe (all caches are thread_local).

#ifndef SERVERKIT_LOGGER_INTERNAL_LINE_FORMAT_H_
#define SERVERKIT_LOGGER_INTERNAL_LINE_FORMAT_H_

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

#include "logger/logger.h"

namespace serverkit::logger_internal {

// The kernel thread id of the caller (gettid), cached.
std::uint32_t CurrentThreadId();

// Nanoseconds since the Unix epoch (CLOCK_REALTIME).
std::int64_t NowNanos();

// A header for a record made here and now.
inline RecordHeader MakeHeader(Level level, const SourceLocation& where) {
  return RecordHeader{NowNanos(), where, CurrentThreadId(), level};
}

// Appends "<time> <LEVEL> <tid> <file>:<line>] " to `out`.
void AppendHeader(fmt::memory_buffer& out, const RecordHeader& header);

// The per-thread scratch buffer front ends format into (cleared by the
// caller). Never shrinks.
fmt::memory_buffer& ThreadScratch();

}  // namespace serverkit::logger_internal

#endif  // SERVERKIT_LOGGER_INTERNAL_LINE_FORMAT_H_
