#include "logger/internal/line_format.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace serverkit::logger_internal {

std::uint32_t CurrentThreadId() {
  thread_local const std::uint32_t tid =
      static_cast<std::uint32_t>(::syscall(SYS_gettid));
  return tid;
}

std::int64_t NowNanos() {
  timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

namespace {

// "YYYY-MM-DD HH:MM:SS" for the second `seconds`, cached per thread.
std::string_view DateTime(std::int64_t seconds) {
  thread_local std::int64_t cached_second = -1;
  thread_local char cached[32];
  thread_local std::size_t cached_len = 0;
  if (seconds != cached_second) {
    const time_t t = static_cast<time_t>(seconds);
    struct tm tm;
    ::gmtime_r(&t, &tm);
    cached_len =
        std::strftime(cached, sizeof(cached), "%Y-%m-%d %H:%M:%S", &tm);
    cached_second = seconds;
  }
  return {cached, cached_len};
}

}  // namespace

void AppendHeader(fmt::memory_buffer& out, const RecordHeader& header) {
  const std::int64_t seconds = header.time_ns / 1'000'000'000;
  const std::int64_t nanos = header.time_ns % 1'000'000'000;
  const std::string_view date = DateTime(seconds);
  out.append(date.data(), date.data() + date.size());
  fmt::format_to(fmt::appender(out), ".{:09} {} {} {}:{}] ", nanos,
                 LevelName(header.level), header.thread_id, header.where.file,
                 header.where.line);
}

fmt::memory_buffer& ThreadScratch() {
  thread_local fmt::memory_buffer buffer;
  return buffer;
}

}  // namespace serverkit::logger_internal
