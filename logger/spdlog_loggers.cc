#include "logger/spdlog_loggers.h"

#include <fcntl.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>
#include <thread>

namespace serverkit {
namespace logger_internal {

void CountingSink::log(const spdlog::details::log_msg& msg) {
  try {
    inner_->log(msg);
  } catch (...) {
    failed_.fetch_add(1, std::memory_order_relaxed);
    throw;  // to the logger's error handler
  }
  written_.fetch_add(1, std::memory_order_relaxed);
}

void CountingSink::flush() {
  struct Count {
    std::atomic<std::uint64_t>& flushes;
    ~Count() {
      flushes.fetch_add(1, std::memory_order_release);
      flushes.notify_all();
    }
  } count{flushes_};
  inner_->flush();
}

void CountingSink::set_pattern(const std::string& pattern) {
  inner_->set_pattern(pattern);
}

void CountingSink::set_formatter(std::unique_ptr<spdlog::formatter> formatter) {
  inner_->set_formatter(std::move(formatter));
}

}  // namespace logger_internal

namespace {

constexpr const char* kPattern = "%Y-%m-%d %H:%M:%S.%F %l %t %s:%#] %v";

std::FILE* OpenConsole(int fd) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return nullptr;
  std::FILE* f = ::fdopen(copy, "w");
  if (f == nullptr) {
    const int err = errno;
    ::close(copy);
    errno = err;
  }
  return f;
}

}  // namespace

template <bool kAsyncMode>
SpdlogLogger<kAsyncMode>::SpdlogLogger(const LoggerOptions& options)
    : threshold_(options.level),
      errors_(std::make_shared<logger_internal::SpdlogErrors>()) {
  std::shared_ptr<spdlog::sinks::sink> sink;
  const SinkOptions& so = options.sink;
  if (so.kind == SinkKind::kConsole) {
    console_ = OpenConsole(so.fd);
    if (console_ == nullptr) {
      throw std::system_error(
          errno, std::generic_category(),
          fmt::format("cannot use fd {} as the log console", so.fd));
    }
    sink = std::make_shared<
        spdlog::sinks::stdout_sink_base<spdlog::details::console_mutex>>(
        console_);
  } else {
    try {
      if (so.rotate_bytes > 0) {
        sink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
            so.path, so.rotate_bytes, so.max_files);
      } else {
        sink =
            std::make_shared<spdlog::sinks::basic_file_sink_mt>(so.path, false);
      }
    } catch (const spdlog::spdlog_ex& e) {
      const int err = errno != 0 ? errno : EIO;
      throw std::system_error(
          err, std::generic_category(),
          fmt::format("cannot open log file '{}' for appending (spdlog: {})",
                      so.path, e.what()));
    }
  }
  counting_ = std::make_shared<logger_internal::CountingSink>(std::move(sink));
  if constexpr (kAsyncMode) {
    pool_ = std::make_shared<spdlog::details::thread_pool>(
        std::max<std::size_t>(options.queue_capacity, 1), 1);
    logger_ = std::make_shared<spdlog::async_logger>(
        "serverkit", counting_, pool_,
        options.overflow == OverflowPolicy::kDrop
            ? spdlog::async_overflow_policy::overrun_oldest
            : spdlog::async_overflow_policy::block);
  } else {
    logger_ = std::make_shared<spdlog::logger>("serverkit", counting_);
  }
  logger_->set_pattern(kPattern, spdlog::pattern_time_type::utc);
  logger_->set_level(spdlog::level::trace);  // our threshold decides
  logger_->flush_on(logger_internal::ToSpdlog(options.flush_on));
  std::weak_ptr<logger_internal::SpdlogErrors> errors = errors_;
  logger_->set_error_handler([errors](const std::string& message) {
    if (auto e = errors.lock()) {
      e->count.fetch_add(1, std::memory_order_relaxed);
      std::lock_guard<std::mutex> lock(e->mu);
      e->last = message;
    }
  });
}

template <bool kAsyncMode>
SpdlogLogger<kAsyncMode>::~SpdlogLogger() {
  flush();
  // Join the worker (it drains the queue first) before the logger goes: each
  // queued record holds the logger, and a last release inside uninstrumented
  // libspdlog.so would look to TSan like a delete racing ours.
  pool_.reset();
  logger_.reset();
  counting_.reset();
  if (console_ != nullptr) std::fclose(console_);
}

template <bool kAsyncMode>
bool SpdlogLogger<kAsyncMode>::flush() {
  if constexpr (kAsyncMode) {
    // spdlog's async flush only posts a flush message. First wait until the
    // worker has taken every record posted before this call, then post a
    // flush and wait for a flush that ran after that point (re-posting if
    // kDrop overran it).
    const std::uint64_t target = posted_.load(std::memory_order_acquire);
    while (counting_->written() + counting_->failed() +
               pool_->overrun_counter() <
           target) {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    std::atomic<std::uint64_t>& flushes = counting_->flushes();
    for (;;) {
      const std::uint64_t before = flushes.load(std::memory_order_acquire);
      logger_->flush();
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
      while (flushes.load(std::memory_order_acquire) == before &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
      if (flushes.load(std::memory_order_acquire) != before) break;
    }
  } else {
    logger_->flush();
  }
  const std::uint64_t errors = errors_->count.load(std::memory_order_relaxed);
  return errors_at_flush_.exchange(errors, std::memory_order_relaxed) == errors;
}

template <bool kAsyncMode>
LoggerStats SpdlogLogger<kAsyncMode>::stats() const {
  LoggerStats s;
  s.written = counting_->written();
  s.dropped = counting_->failed();
  if constexpr (kAsyncMode) s.dropped += pool_->overrun_counter();
  s.io_errors = errors_->count.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(errors_->mu);
  s.last_error = errors_->last;
  return s;
}

template class SpdlogLogger<false>;
template class SpdlogLogger<true>;

}  // namespace serverkit
