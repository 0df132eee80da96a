#include "logger/sync_logger.h"

namespace serverkit {

SyncLogger::SyncLogger(const LoggerOptions& options)
    : threshold_(options.level),
      flush_on_(options.flush_on),
      sink_(MakeSink(options.sink)) {}

SyncLogger::~SyncLogger() { flush(); }

void SyncLogger::Write(Level level, std::string_view line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (sink_->Write(line)) {
    written_.store(written_.load(std::memory_order_relaxed) + 1,
                   std::memory_order_relaxed);
  } else {
    dropped_.fetch_add(1, std::memory_order_relaxed);
  }
  if (level >= flush_on_) sink_->Flush();
}

bool SyncLogger::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  sink_->Flush();
  const std::uint64_t errors = sink_->io_errors();
  const bool ok = errors == errors_at_flush_;
  errors_at_flush_ = errors;
  return ok;
}

LoggerStats SyncLogger::stats() const {
  LoggerStats s;
  s.written = written_.load(std::memory_order_relaxed);
  s.dropped = dropped_.load(std::memory_order_relaxed);
  s.io_errors = sink_->io_errors();
  s.last_error = sink_->last_error();
  return s;
}

}  // namespace serverkit
