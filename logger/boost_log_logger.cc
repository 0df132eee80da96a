#include "logger/boost_log_logger.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <boost/date_time/posix_time/posix_time_types.hpp>
#include <boost/log/attributes/clock.hpp>
#include <boost/log/attributes/constant.hpp>
#include <boost/log/attributes/current_thread_id.hpp>
#include <boost/log/core.hpp>
#include <boost/log/expressions.hpp>
#include <boost/log/sinks/sync_frontend.hpp>
#include <boost/log/sinks/text_ostream_backend.hpp>
#include <boost/log/sources/record_ostream.hpp>
#include <boost/log/sources/severity_logger.hpp>
#include <boost/log/support/date_time.hpp>
#include <boost/make_shared.hpp>
#include <boost/shared_ptr.hpp>
#include <cerrno>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <fstream>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace serverkit {

// For Boost.Log's formatter (found by argument-dependent lookup).
std::ostream& operator<<(std::ostream& os, Level level) {
  return os << LevelName(level);
}

namespace {

namespace logging = boost::log;
namespace attrs = boost::log::attributes;
namespace expr = boost::log::expressions;
namespace sinks = boost::log::sinks;

constexpr std::size_t kConsoleBuffer = 64 * 1024;

// An ostream over a file descriptor it owns.
class FdStream : public std::ostream {
 public:
  explicit FdStream(int fd)
      : std::ostream(nullptr), buf_(fd, std::ios::out, kConsoleBuffer) {
    rdbuf(&buf_);
  }

 private:
  __gnu_cxx::stdio_filebuf<char> buf_;
};

std::atomic<unsigned> g_next_instance{1};

}  // namespace

struct BoostLogLogger::Impl {
  using Backend = sinks::text_ostream_backend;
  using Frontend = sinks::synchronous_sink<Backend>;

  logging::sources::severity_logger_mt<Level> source;
  boost::shared_ptr<std::ostream> stream;
  boost::shared_ptr<Frontend> sink;
  std::string description;
  Level flush_on = Level::kError;

  std::atomic<std::uint64_t> written{0};
  std::atomic<std::uint64_t> dropped{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> errors_at_flush{0};
  mutable std::mutex error_mu;
  std::string last_error;  // guarded by error_mu

  void RecordError(std::string text) {
    errors.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(error_mu);
    last_error = std::move(text);
  }

  void Flush() {
    errno = 0;
    sink->flush();
    auto backend = sink->locked_backend();  // holds the sink's lock
    if (!stream->good()) {
      const int err = errno;
      stream->clear();
      RecordError(fmt::format("write to {} failed: {}", description,
                              err != 0 ? std::strerror(err) : "stream error"));
    }
  }
};

BoostLogLogger::BoostLogLogger(const LoggerOptions& options)
    : threshold_(options.level), impl_(std::make_unique<Impl>()) {
  const SinkOptions& so = options.sink;
  if (so.kind == SinkKind::kConsole) {
    const int fd = ::fcntl(so.fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
      throw std::system_error(
          errno, std::generic_category(),
          fmt::format("cannot use fd {} as the log console", so.fd));
    }
    impl_->stream = boost::make_shared<FdStream>(fd);
    impl_->description = fmt::format("console (fd {})", so.fd);
  } else {
    if (so.rotate_bytes != 0) {
      throw std::invalid_argument(
          "boost-log adapter: size rotation is not supported");
    }
    auto file = boost::make_shared<std::ofstream>(
        so.path, std::ios::out | std::ios::app);
    if (!file->is_open()) {
      throw std::system_error(
          errno != 0 ? errno : EIO, std::generic_category(),
          fmt::format("cannot open log file '{}' for appending", so.path));
    }
    impl_->stream = file;
    impl_->description = fmt::format("file '{}'", so.path);
  }
  impl_->flush_on = options.flush_on;

  const unsigned instance = g_next_instance.fetch_add(1);
  auto backend = boost::make_shared<Impl::Backend>();
  backend->add_stream(impl_->stream);
  backend->auto_flush(false);
  // One '\n' after every record, as the other loggers write it: Boost's
  // default adds none to a message that already ends in one.
  backend->set_auto_newline_mode(sinks::auto_newline_mode::always_insert);
  impl_->sink = boost::make_shared<Impl::Frontend>(backend);
  impl_->sink->set_filter(expr::attr<unsigned>("SkInstance") == instance);
  impl_->sink->set_formatter(
      expr::stream << expr::format_date_time<boost::posix_time::ptime>(
                          "TimeStamp", "%Y-%m-%d %H:%M:%S.%f")
                   << " " << expr::attr<Level>("Severity") << " "
                   << expr::attr<attrs::current_thread_id::value_type>(
                          "ThreadID")
                   << " " << expr::smessage);
  Impl* impl = impl_.get();
  impl_->sink->set_exception_handler([impl] {
    try {
      throw;
    } catch (const std::exception& e) {
      impl->RecordError(fmt::format("Boost.Log sink: {}", e.what()));
    } catch (...) {
      impl->RecordError("Boost.Log sink: unknown exception");
    }
  });
  impl_->source.add_attribute("SkInstance",
                              attrs::constant<unsigned>(instance));
  impl_->source.add_attribute("TimeStamp", attrs::utc_clock());
  impl_->source.add_attribute("ThreadID", attrs::current_thread_id());
  logging::core::get()->add_sink(impl_->sink);
}

BoostLogLogger::~BoostLogLogger() {
  impl_->Flush();
  logging::core::get()->remove_sink(impl_->sink);
}

void BoostLogLogger::Push(Level level, std::string_view message) {
  logging::record rec =
      impl_->source.open_record(logging::keywords::severity = level);
  if (!rec) {
    impl_->dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  {
    logging::record_ostream strm(rec);
    strm.write(message.data(), static_cast<std::streamsize>(message.size()));
    strm.flush();
  }
  impl_->source.push_record(boost::move(rec));
  impl_->written.fetch_add(1, std::memory_order_relaxed);
  if (level >= impl_->flush_on) impl_->Flush();
}

bool BoostLogLogger::flush() {
  impl_->Flush();
  const std::uint64_t errors = impl_->errors.load(std::memory_order_relaxed);
  return impl_->errors_at_flush.exchange(errors, std::memory_order_relaxed) ==
         errors;
}

LoggerStats BoostLogLogger::stats() const {
  LoggerStats s;
  s.written = impl_->written.load(std::memory_order_relaxed);
  s.dropped = impl_->dropped.load(std::memory_order_relaxed);
  s.io_errors = impl_->errors.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(impl_->error_mu);
  s.last_error = impl_->last_error;
  return s;
}

}  // namespace serverkit
