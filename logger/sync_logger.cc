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
  return NoErrorsSince(*sink_, &errors_at_flush_);
}

LoggerStats SyncLogger::stats() const {
  return StatsOf(*sink_, written_.load(std::memory_order_relaxed),
                 dropped_.load(std::memory_order_relaxed));
}

}  // namespace serverkit
