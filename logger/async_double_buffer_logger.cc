#include "logger/async_double_buffer_logger.h"

#include <algorithm>
#include <cstring>

namespace serverkit {

AsyncDoubleBufferLogger::AsyncDoubleBufferLogger(const LoggerOptions& options)
    : threshold_(options.level),
      flush_on_(options.flush_on),
      overflow_(options.overflow),
      buffer_bytes_(std::max<std::size_t>(options.buffer_bytes, 256)),
      max_buffers_(std::max<std::size_t>(options.max_buffers, 1)),
      flush_interval_(options.flush_interval),
      sink_(MakeSink(options.sink)),
      current_(NewBuffer()),
      next_(NewBuffer()) {
  full_.reserve(max_buffers_);
  backend_ = std::thread([this] { BackendLoop(); });
}

AsyncDoubleBufferLogger::~AsyncDoubleBufferLogger() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  backend_cv_.notify_one();
  space_cv_.notify_all();
  backend_.join();
}

AsyncDoubleBufferLogger::BufferPtr AsyncDoubleBufferLogger::NewBuffer(
    std::size_t at_least) const {
  return std::make_unique<Buffer>(std::max(buffer_bytes_, at_least));
}

void AsyncDoubleBufferLogger::Append(Level level, std::string_view line) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (stopping_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if (current_->len + line.size() <= current_->capacity) break;
    if (current_->len == 0) {
      // A line longer than a buffer: a buffer of its own.
      current_ = NewBuffer(line.size());
      break;
    }
    if (full_.size() >= max_buffers_) {
      if (overflow_ == OverflowPolicy::kDrop) {
        dropped_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      space_cv_.wait(lock);
      continue;
    }
    full_.push_back(std::move(current_));
    current_ = next_ != nullptr ? std::move(next_) : NewBuffer();
    backend_cv_.notify_one();
  }
  Buffer& b = *current_;
  std::memcpy(b.data.get() + b.len, line.data(), line.size());
  b.len += line.size();
  ++b.records;
  if (level >= flush_on_) {
    urgent_ = true;
    backend_cv_.notify_one();
  }
}

void AsyncDoubleBufferLogger::BackendLoop() {
  BufferPtr spare1 = NewBuffer();
  BufferPtr spare2 = NewBuffer();
  std::vector<BufferPtr> to_write;
  to_write.reserve(max_buffers_ + 1);
  for (;;) {
    std::uint64_t flush_target;
    bool stop;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (full_.empty() && !stopping_ && !urgent_ &&
          flush_requested_ == flush_done_) {
        backend_cv_.wait_for(lock, flush_interval_);
      }
      if (current_->len > 0) {
        full_.push_back(std::move(current_));
        current_ = std::move(spare1);
      }
      to_write.swap(full_);
      if (next_ == nullptr) next_ = std::move(spare2);
      flush_target = flush_requested_;
      stop = stopping_;
      urgent_ = false;
    }
    if (!to_write.empty()) space_cv_.notify_all();

    for (BufferPtr& b : to_write) {
      if (sink_->Write(std::string_view(b->data.get(), b->len))) {
        written_.fetch_add(b->records, std::memory_order_relaxed);
      } else {
        dropped_.fetch_add(b->records, std::memory_order_relaxed);
      }
      b->len = 0;
      b->records = 0;
    }
    sink_->Flush();

    // Keep two cleaned buffers as the next spares; free the rest.
    for (BufferPtr& b : to_write) {
      if (spare1 == nullptr) {
        spare1 = std::move(b);
      } else if (spare2 == nullptr) {
        spare2 = std::move(b);
      }
    }
    to_write.clear();
    if (spare1 == nullptr) spare1 = NewBuffer();
    if (spare2 == nullptr) spare2 = NewBuffer();

    {
      std::lock_guard<std::mutex> lock(mu_);
      flush_done_ = flush_target;
    }
    flushed_cv_.notify_all();
    if (stop) return;
  }
}

bool AsyncDoubleBufferLogger::flush() {
  std::unique_lock<std::mutex> lock(mu_);
  const std::uint64_t target = ++flush_requested_;
  backend_cv_.notify_one();
  flushed_cv_.wait(lock, [&] { return flush_done_ >= target; });
  return NoErrorsSince(*sink_, &errors_at_flush_);
}

LoggerStats AsyncDoubleBufferLogger::stats() const {
  return StatsOf(*sink_, written_.load(std::memory_order_relaxed),
                 dropped_.load(std::memory_order_relaxed));
}

}  // namespace serverkit
