// -----------------------------------------------------------------------------
// reactor/poller/internal/uring_ring.h
// -----------------------------------------------------------------------------
//
// `UringRing`: the io_uring instance under `UringPoller` (reactor/
// uring_poller.h) and what every path of it shares: submission entries
// (with the tests' fault injection, SERVERKIT_URING_TEST_SQE_FAIL_EVERY),
// cancels that wait for an entry, and the submit-and-wait of each poll().
//
// Loop thread only.

#ifndef SERVERKIT_REACTOR_POLLER_INTERNAL_URING_RING_H_
#define SERVERKIT_REACTOR_POLLER_INTERNAL_URING_RING_H_

#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace serverkit::reactor_internal {

// The user_data of completions nobody waits for (cancels).
inline constexpr std::uint64_t kIgnoreToken = 0;

// Calls `done` on the elements of `v` in order until it refuses one, and
// erases those it accepted: the queues of operations waiting for a
// submission entry keep the rest, in order, for the next poll().
template <typename T, typename Done>
void ErasePrefixWhile(std::vector<T>& v, Done done) {
  std::size_t n = 0;
  while (n < v.size() && done(v[n])) ++n;
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

class UringRing {
 public:
  // Null, with the reason in *why, when io_uring cannot be set up here.
  static std::unique_ptr<UringRing> Create(unsigned entries, std::string* why);
  ~UringRing();  // unregisters the provided buffers too

  UringRing(const UringRing&) = delete;
  UringRing& operator=(const UringRing&) = delete;

  struct io_uring* get() {
    return &ring_;
  }

  // A submission entry, or null when the kernel would not take the full
  // queue (or the tests' fault injection says so); the caller keeps its
  // operation for the next poll(). Said once per process.
  struct io_uring_sqe* sqe();

  // Cancels the operation with `token`: a POLL_ADD (`poll`) or any other.
  // One that finds no entry waits, in order, for prep_waiting_cancels().
  void cancel(std::uint64_t token, bool poll);
  void prep_waiting_cancels();
  bool cancels_waiting() const { return !unsubmitted_cancels_.empty(); }

  // Enables a ring created disabled; the loop's first poll() calls it.
  void enable_once();

  // Submits everything and waits up to `timeout_ms` (-1: no limit) for a
  // completion. Returns io_uring_submit_and_wait_timeout's result. Where
  // completions already wait in the queue (of a submit_now()), it does not
  // sleep, but still has the kernel run the deferred receive work.
  int submit_and_wait(int timeout_ms);

  // Submits what is queued now, without waiting (a send path's early
  // submit); entries the kernel refuses go with the next submit.
  void submit_now();
  // Whether an early submit may go now: not while half the completion
  // queue waits to be reaped, since its completions pile up until the
  // next poll and an overflowing queue makes the kernel refuse entries.
  bool may_submit_early() const;

  // Hands over entries the kernel did not take in submit_and_wait(), and
  // reports those it still refuses.
  void submit_leftovers();

  // Entries asked for on a full submission queue (each one an extra
  // io_uring_submit), and those the kernel would not take.
  std::uint64_t sq_full() const { return sq_full_; }
  std::uint64_t sq_refused() const { return sq_refused_; }

 private:
  struct Cancel {
    std::uint64_t token;  // of the operation to cancel
    bool poll;            // a POLL_ADD (poll_remove), else an async cancel
  };

  UringRing() = default;
  bool prep_cancel(Cancel cancel);

  struct io_uring ring_ {};
  bool disabled_ = false;  // enabled by the first poll(), in the loop thread
  unsigned sqe_fail_every_ = 0;  // tests: SERVERKIT_URING_TEST_SQE_FAIL_EVERY
  std::uint64_t sqe_requests_ = 0;
  std::uint64_t sq_full_ = 0;
  std::uint64_t sq_refused_ = 0;
  std::vector<Cancel> unsubmitted_cancels_;
};

}  // namespace serverkit::reactor_internal

#endif  // SERVERKIT_REACTOR_POLLER_INTERNAL_URING_RING_H_
