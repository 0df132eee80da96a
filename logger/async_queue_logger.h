// -----------------------------------------------------------------------------
// logger/async_queue_logger.h
// -----------------------------------------------------------------------------
//
// `AsyncQueueLogger<Q>`: records travel to a backend thread through any
// multi-producer queue of the queue sweep (`Q` is a queue template from
// queues/all_queues.h, instantiated with `QueuedRecord`), and are formatted
// there. The calling thread only takes a timestamp, copies the arguments
// (`DeferredMessage`: strings are copied, so a long string argument costs an
// allocation) and pushes.
//
// Backend: pops in batches, formats into one 64 KiB buffer, writes it when
// it fills, and flushes the sink whenever the queue runs dry, every
// `flush_interval` under constant load, and after a record at or above
// `flush_on`. When the queue is empty it sleeps `kIdleSleep` (50 us) and
// polls again, as quill's backend does: callers never signal it, so a call
// is a timestamp, a copy and a push, never a system call. The price: a
// record waits up to about 0.1 ms before the backend looks, and an idle
// logger wakes about 10,000 times a second (well under 1% of a core).
//
// Bound and overflow: bounded queues hold `queue_capacity` records (rounded
// as the queue rounds); unbounded ones are bounded by a counter of records in
// flight. When full, kBlock retries (pause, then yield: base/spin_wait.h) and
// kDrop discards the record and counts it, exactly.
//
// Shutdown: the destructor raises the stop flag; the backend drains every
// record pushed before it, writes, flushes and ends.
//
// Order: records of one thread are written in the order it logged them when
// `Q` keeps per-producer order (every queue in the list does).
//
// Thread-safety: thread-safe (see logger/logger.h).
//
// Memory ordering: `flush()` increments `flush_requested_` (acq_rel) after its
// own pushes; the backend reads it (acquire) *before* draining, so every
// record pushed before the request is popped in that drain, and it publishes
// `flush_done_` (release) after the sink flush, then bumps `flush_epoch_`
// (seq_cst) and wakes it. A flusher reads `flush_epoch_` before it tests
// `flush_done_` and sleeps on the value it read, so it sees the store or
// the futex sees the bump (not std::atomic::wait: docs/components.md, "The
// lost wake-up"). `stopping_` works the same way for the final drain.

#ifndef SERVERKIT_LOGGER_ASYNC_QUEUE_LOGGER_H_
#define SERVERKIT_LOGGER_ASYNC_QUEUE_LOGGER_H_

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <thread>
#include <utility>

#include "base/cache_line.h"
#include "base/futex.h"
#include "base/joined_name.h"
#include "base/spin_wait.h"
#include "logger/internal/deferred_message.h"
#include "logger/internal/line_format.h"
#include "logger/logger.h"
#include "logger/sink.h"
#include "queues/queue.h"

namespace serverkit {

// What travels through the queue: the header, taken on the calling thread,
// and the unformatted message.
struct QueuedRecord {
  RecordHeader header;
  logger_internal::DeferredMessage message;
};

namespace logger_internal {
inline constexpr std::string_view kAsyncQueuePrefix = "async-queue-";
}  // namespace logger_internal

template <template <typename> class QueueT>
class AsyncQueueLogger {
 public:
  using QueueType = QueueT<QueuedRecord>;
  static_assert(Queue<QueueType>);
  static_assert(QueueType::kTopology != Topology::kSpsc,
                "many threads log: the queue must allow many producers");

  static constexpr std::string_view kName =
      JoinedName<logger_internal::kAsyncQueuePrefix, QueueType::kName>::value;
  static constexpr bool kAsync = true;

  explicit AsyncQueueLogger(const LoggerOptions& options)
      : threshold_(options.level),
        flush_on_(options.flush_on),
        overflow_(options.overflow),
        capacity_(std::max<std::size_t>(options.queue_capacity, 1)),
        flush_interval_(options.flush_interval),
        sink_(MakeSink(options.sink)),
        queue_(capacity_) {
    backend_ = std::thread([this] { BackendLoop(); });
  }

  ~AsyncQueueLogger() {
    stopping_.store(true, std::memory_order_release);
    backend_.join();
  }

  AsyncQueueLogger(const AsyncQueueLogger&) = delete;
  AsyncQueueLogger& operator=(const AsyncQueueLogger&) = delete;

  template <typename... Args>
  void log(Level level, const SourceLocation& where,
           fmt::format_string<Args...> format, Args&&... args) {
    if constexpr (!QueueType::kBounded) {
      if (!Reserve()) {
        dropped_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    QueuedRecord record{
        logger_internal::MakeHeader(level, where),
        logger_internal::DeferredMessage(fmt::string_view(format),
                                         std::forward<Args>(args)...)};
    for (SpinThenYield backoff; !queue_.try_push(std::move(record));
         backoff.Pause()) {
      if (overflow_ == OverflowPolicy::kDrop) {
        dropped_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
  }

  bool should_log(Level level) const { return threshold_.should_log(level); }
  void set_level(Level level) { threshold_.set_level(level); }

  bool flush() {
    const std::uint64_t target =
        flush_requested_.fetch_add(1, std::memory_order_acq_rel) + 1;
    for (;;) {
      const std::uint32_t epoch = flush_epoch_.load(std::memory_order_seq_cst);
      if (flush_done_.load(std::memory_order_acquire) >= target) break;
      FutexWaitWord(&flush_epoch_, epoch);
    }
    const std::uint64_t errors = sink_->io_errors();
    return errors_at_flush_.exchange(errors, std::memory_order_relaxed) ==
           errors;
  }

  LoggerStats stats() const {
    return StatsOf(*sink_, written_.load(std::memory_order_relaxed),
                   dropped_.load(std::memory_order_relaxed));
  }

 private:
  static constexpr std::size_t kWriteBytes = 64 * 1024;
  static constexpr std::size_t kBatch = 256;
  static constexpr std::chrono::microseconds kIdleSleep{50};

  // Unbounded queues: claims one of `capacity_` slots in flight.
  bool Reserve() {
    for (SpinThenYield backoff;; backoff.Pause()) {
      if (in_flight_.fetch_add(1, std::memory_order_relaxed) < capacity_) {
        return true;
      }
      in_flight_.fetch_sub(1, std::memory_order_relaxed);
      if (overflow_ == OverflowPolicy::kDrop) return false;
    }
  }

  void BackendLoop() {
    Consumer<QueueType> consumer(queue_);
    fmt::memory_buffer out;
    out.reserve(kWriteBytes + 1024);
    std::uint64_t pending = 0;  // records in `out`
    bool dirty = false;         // written since the last sink flush
    auto last_flush = std::chrono::steady_clock::now();
    QueuedRecord record;

    auto write_out = [&] {
      if (out.size() == 0) return;
      if (sink_->Write(std::string_view(out.data(), out.size()))) {
        written_.fetch_add(pending, std::memory_order_relaxed);
      } else {
        dropped_.fetch_add(pending, std::memory_order_relaxed);
      }
      out.clear();
      pending = 0;
      dirty = true;
    };
    auto flush_sink = [&] {
      write_out();
      if (dirty) sink_->Flush();
      dirty = false;
      last_flush = std::chrono::steady_clock::now();
    };

    for (;;) {
      const std::uint64_t target =
          flush_requested_.load(std::memory_order_acquire);
      const bool stop = stopping_.load(std::memory_order_acquire);
      std::size_t popped = 0;
      std::uint64_t popped_round = 0;
      bool urgent = false;
      while (consumer.try_pop(record)) {
        ++popped_round;
        logger_internal::AppendHeader(out, record.header);
        record.message.FormatTo(out);
        out.push_back('\n');
        record.message = {};  // frees copied arguments now
        ++pending;
        urgent |= record.header.level >= flush_on_;
        if (out.size() >= kWriteBytes) write_out();
        if (++popped == kBatch) {
          Release(popped);
          popped = 0;
          if (urgent || std::chrono::steady_clock::now() - last_flush >=
                            flush_interval_) {
            flush_sink();
            urgent = false;
          }
        }
      }
      Release(popped);
      flush_sink();  // the queue ran dry
      if (target > flush_done_.load(std::memory_order_relaxed)) {
        flush_done_.store(target, std::memory_order_release);
        flush_epoch_.fetch_add(1, std::memory_order_seq_cst);
        FutexWakeWord(&flush_epoch_, INT32_MAX);
      }
      if (stop) return;
      if (popped_round == 0 &&
          flush_requested_.load(std::memory_order_relaxed) == target) {
        std::this_thread::sleep_for(kIdleSleep);
      }
    }
  }

  void Release(std::size_t popped) {
    if constexpr (!QueueType::kBounded) {
      if (popped > 0) in_flight_.fetch_sub(popped, std::memory_order_relaxed);
    }
  }

  LevelThreshold threshold_;
  const Level flush_on_;
  const OverflowPolicy overflow_;
  const std::size_t capacity_;
  const std::chrono::milliseconds flush_interval_;
  std::unique_ptr<Sink> sink_;  // used by the backend thread only
  QueueType queue_;

  alignas(kCacheLineSize) std::atomic<std::size_t> in_flight_{0};
  alignas(kCacheLineSize) std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> flush_requested_{0};
  std::atomic<std::uint64_t> flush_done_{0};
  // What flush() sleeps on: bumped after each store to flush_done_.
  std::atomic<std::uint32_t> flush_epoch_{0};
  std::atomic<std::uint64_t> errors_at_flush_{0};
  std::atomic<bool> stopping_{false};
  std::thread backend_;
};

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_ASYNC_QUEUE_LOGGER_H_
