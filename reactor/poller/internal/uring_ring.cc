#include "reactor/poller/internal/uring_ring.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "reactor/internal/report_errno.h"

namespace serverkit::reactor_internal {
namespace {

// SERVERKIT_URING_TEST_SQE_FAIL_EVERY=N (tests only): every Nth request for
// a submission entry finds none, as when the kernel would not take the
// queue (io_uring_submit failing with EBUSY or EAGAIN). 0: never; 1 is
// refused (nothing could ever be submitted).
unsigned SqeFailEveryFromEnvironment() {
  const char* v = std::getenv("SERVERKIT_URING_TEST_SQE_FAIL_EVERY");
  if (v == nullptr || *v == '\0') return 0;
  char* end = nullptr;
  const unsigned long n = std::strtoul(v, &end, 10);
  if (*end != '\0' || n == 1 || n > 1000000) {
    std::fprintf(stderr,
                 "reactor: SERVERKIT_URING_TEST_SQE_FAIL_EVERY=%s is not 0 "
                 "or a count from 2 to 1000000; ignored\n",
                 v);
    return 0;
  }
  return static_cast<unsigned>(n);
}

}  // namespace

std::unique_ptr<UringRing> UringRing::Create(unsigned entries,
                                             std::string* why) {
  auto ring = std::unique_ptr<UringRing>(new UringRing());
  // Completions are produced only when the loop's thread waits for them
  // (DEFER_TASKRUN, kernel 6.1), so a receive never runs its work in
  // another thread's wake-up nor contends with the loop for the ring's
  // locks (without it, kernel spinlocks took most of the loop's time with
  // many sessions). That needs one submitting thread (SINGLE_ISSUER), the
  // loop's: the ring starts disabled and is enabled by the loop's first
  // poll(). Older kernels get the plain ring.
  const unsigned kDeferred = IORING_SETUP_SINGLE_ISSUER |
                             IORING_SETUP_DEFER_TASKRUN |
                             IORING_SETUP_R_DISABLED;
  int rc = io_uring_queue_init(entries, &ring->ring_, kDeferred);
  if (rc == -EINVAL) rc = io_uring_queue_init(entries, &ring->ring_, 0);
  if (rc < 0) {
    if (why != nullptr) *why = std::strerror(-rc);
    // Never set up: nothing for the destructor to exit.
    ring->ring_.ring_fd = -1;
    return nullptr;
  }
  ring->disabled_ = (ring->ring_.flags & IORING_SETUP_R_DISABLED) != 0;
  ring->sqe_fail_every_ = SqeFailEveryFromEnvironment();
  return ring;
}

UringRing::~UringRing() {
  if (ring_.ring_fd >= 0) io_uring_queue_exit(&ring_);
}

struct io_uring_sqe* UringRing::sqe() {
  struct io_uring_sqe* s = nullptr;
  if (sqe_fail_every_ == 0 || ++sqe_requests_ % sqe_fail_every_ != 0) {
    s = io_uring_get_sqe(&ring_);
    if (s == nullptr) {  // the submission queue is full: hand it over first
      ++sq_full_;
      io_uring_submit(&ring_);
      s = io_uring_get_sqe(&ring_);
    }
  }
  if (s == nullptr) {
    ++sq_refused_;
    // The kernel did not take the queue (io_uring_submit failed: EBUSY,
    // EAGAIN). The caller keeps the operation for the next poll().
    static std::once_flag said;
    std::call_once(said, [] {
      std::fprintf(stderr,
                   "reactor: io_uring submission queue full; operations "
                   "wait for the next loop iteration\n");
    });
  }
  return s;
}

// A cancel that finds no submission entry is kept for the next poll(): a
// receive left running would read for a channel that stopped reading, and
// a removed channel's would keep its socket open in the kernel.
void UringRing::cancel(std::uint64_t token, bool poll) {
  const Cancel c{token, poll};
  if (!prep_cancel(c)) unsubmitted_cancels_.push_back(c);
}

bool UringRing::prep_cancel(Cancel cancel) {
  struct io_uring_sqe* s = sqe();
  if (s == nullptr) return false;
  if (cancel.poll) {
    io_uring_prep_poll_remove(s, cancel.token);
  } else {
    io_uring_prep_cancel64(s, cancel.token, 0);
  }
  io_uring_sqe_set_data64(s, kIgnoreToken);
  return true;
}

void UringRing::prep_waiting_cancels() {
  ErasePrefixWhile(unsubmitted_cancels_,
                   [this](Cancel cancel) { return prep_cancel(cancel); });
}

void UringRing::enable_once() {
  if (!disabled_) return;
  disabled_ = false;
  // Debian's liburing 2.3 declares io_uring_enable_rings but does not
  // export it: the register call itself.
  if (::syscall(__NR_io_uring_register, ring_.ring_fd,
                IORING_REGISTER_ENABLE_RINGS, nullptr, 0) < 0) {
    ReportErrno("reactor: io_uring: enabling the ring failed");
  }
}

int UringRing::submit_and_wait(int timeout_ms) {
  // liburing enters without IORING_ENTER_GETEVENTS when a completion is
  // already there, and under DEFER_TASKRUN the receives' work then waits
  // for a later poll(): ask for the events explicitly.
  if (io_uring_cq_ready(&ring_) > 0) {
    return io_uring_submit_and_get_events(&ring_);
  }
  struct io_uring_cqe* cqe = nullptr;
  struct __kernel_timespec ts {};
  ts.tv_sec = timeout_ms / 1000;
  ts.tv_nsec = static_cast<long long>(timeout_ms % 1000) * 1000000;
  return io_uring_submit_and_wait_timeout(
      &ring_, &cqe, 1, timeout_ms >= 0 ? &ts : nullptr, nullptr);
}

void UringRing::submit_now() {
  if (io_uring_sq_ready(&ring_) > 0) io_uring_submit(&ring_);
}

bool UringRing::may_submit_early() const {
  return io_uring_cq_ready(&ring_) <= ring_.cq.ring_entries / 2;
}

// Entries the kernel did not take (it stops early on EBUSY, EAGAIN or
// ENOMEM) may name sockets by number, and the callbacks that run next may
// close them: they are handed over as soon as the completions are reaped.
void UringRing::submit_leftovers() {
  if (io_uring_sq_ready(&ring_) == 0) return;
  const int again = io_uring_submit(&ring_);
  if (const unsigned left = io_uring_sq_ready(&ring_); left > 0) {
    ReportErrno(again < 0 ? -again : EBUSY,
                "reactor: io_uring: the kernel did not take %u submissions",
                left);
  }
}

}  // namespace serverkit::reactor_internal
