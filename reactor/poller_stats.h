// -----------------------------------------------------------------------------
// reactor/poller_stats.h
// -----------------------------------------------------------------------------
//
// `PollerStats`: what a loop's poller counted, for a server's stop line:
// where a message waits between the kernel and its callback and back. Each
// poller counts in its loop's thread, in plain integers (no atomics on the
// hot path); `EventLoop::poller_stats()` copies them out in that thread.
//
// Both pollers count the loop's busy time per iteration (from a poll's
// return to the next poll: the callbacks and tasks that completions and
// replies wait behind) and what each poll returned (completions reaped,
// or ready events), to compare their batches. The io_uring poller also
// counts its io_uring_enter calls and how long a send waits between
// `send()` and its submission (reactor/poller/uring_poller.h); over epoll
// those stay zero.
//
// Thread-safety: a plain value; `add` and `FormatUringStats` any thread.

#ifndef SERVERKIT_REACTOR_POLLER_STATS_H_
#define SERVERKIT_REACTOR_POLLER_STATS_H_

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace serverkit::reactor {

struct PollerStats {
  // Times: power-of-two microsecond buckets, [0, 1), [1, 2), [2, 4), ...;
  // the last holds everything from 2^(kTimeBuckets-2) µs on (16 ms).
  static constexpr std::size_t kTimeBuckets = 16;
  // Counts: 0, 1, 2-3, 4-7, 8-15, 16-31, 32 and more.
  static constexpr std::size_t kCountBuckets = 7;
  using TimeHistogram = std::array<std::uint64_t, kTimeBuckets>;
  using CountHistogram = std::array<std::uint64_t, kCountBuckets>;

  static std::size_t TimeBucket(std::chrono::nanoseconds d);
  static std::size_t CountBucket(std::uint64_t n);

  std::uint64_t loops = 0;  // how many loops' counts were added up here
  std::uint64_t polls = 0;
  TimeHistogram busy_us{};  // a poll's return to the next poll's start

  // io_uring only.
  std::uint64_t enters = 0;  // submit-and-waits, one per poll
  std::uint64_t enter_ns = 0;
  TimeHistogram enter_us{};
  CountHistogram completions{};  // reaped per enter; epoll: ready events
  std::uint64_t sends = 0;       // send() calls
  // Sends handed over per submit: each poll's (0 where none waited) and
  // each early submit's.
  CountHistogram sends_per_submit{};
  // Per submit of sends: the wait of the oldest, from its send() to the
  // submit's start (the longest wait of that batch; two clock reads a
  // batch).
  TimeHistogram send_wait_us{};
  // Polls that left a queued send without a submission entry (one per
  // send and poll): each is a send that waits a whole further iteration.
  std::uint64_t sends_late = 0;
  // Submits the send path made before the poll, every kFlushSends sends
  // (reactor/poller/internal/uring_sends.h).
  std::uint64_t send_flushes = 0;
  std::uint64_t enobufs = 0;      // multishot receives out of buffers
  std::uint64_t recv_rearms = 0;  // receives armed again after one ended
  std::uint64_t sq_full = 0;      // entries asked for on a full queue
  std::uint64_t sq_refused = 0;   // ... that the kernel would not take

  // Adds `other`'s counts (histograms bucket by bucket).
  void add(const PollerStats& other);
};

// One line, "serverkit uring: ...", no newline: the counts above with each
// histogram as its non-empty buckets ("<8us:123" counts [4, 8) µs).
std::string FormatUringStats(const PollerStats& s);

// The same line's busy time and events per poll only, "serverkit epoll:
// ...", for comparison with the io_uring line.
std::string FormatEpollStats(const PollerStats& s);

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_POLLER_STATS_H_
