// -----------------------------------------------------------------------------
// reactor/poller/internal/uring_test_ring.h
// -----------------------------------------------------------------------------
//
// Test support for the io_uring parts' unit tests: a ring, or null where the
// kernel refuses io_uring (an old kernel, seccomp, kernel.io_uring_disabled),
// having printed the line .ci/run counts as a skip (once per binary), so the
// test can GTEST_SKIP; and a reaper that waits for a number of completions.

#ifndef SERVERKIT_REACTOR_POLLER_INTERNAL_URING_TEST_RING_H_
#define SERVERKIT_REACTOR_POLLER_INTERNAL_URING_TEST_RING_H_

#include <liburing.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "reactor/poller/internal/uring_ring.h"

namespace serverkit::reactor_internal {

inline std::unique_ptr<UringRing> TestRingOrSayWhy(unsigned entries) {
  std::string why;
  auto ring = UringRing::Create(entries, &why);
  static bool said = false;  // once per test binary, as .ci/run reads it
  if (ring == nullptr && !said) {
    said = true;
    std::printf("serverkit-test: SKIPPED io_uring is not available here (%s)\n",
                why.c_str());
  }
  if (ring == nullptr) return nullptr;
  ring->enable_once();  // the test's thread is the ring's one submitter
  return ring;
}

struct Completion {
  std::uint64_t token;
  int res;
  unsigned flags;
};

// Submits what is queued and collects completions until `want` arrived (not
// counting kIgnoreToken's, the cancels') or `wait` passed.
inline std::vector<Completion> Reap(
    UringRing& ring, std::size_t want,
    std::chrono::milliseconds wait = std::chrono::seconds(2)) {
  std::vector<Completion> got;
  const auto until = std::chrono::steady_clock::now() + wait;
  while (got.size() < want && std::chrono::steady_clock::now() < until) {
    ring.submit_and_wait(100);
    struct io_uring_cqe* cqe = nullptr;
    unsigned head;
    unsigned seen = 0;
    io_uring_for_each_cqe(ring.get(), head, cqe) {
      ++seen;
      const std::uint64_t token = io_uring_cqe_get_data64(cqe);
      if (token != kIgnoreToken) got.push_back({token, cqe->res, cqe->flags});
    }
    io_uring_cq_advance(ring.get(), seen);
  }
  return got;
}

}  // namespace serverkit::reactor_internal

#endif  // SERVERKIT_REACTOR_POLLER_INTERNAL_URING_TEST_RING_H_
