// -----------------------------------------------------------------------------
// reactor/poller/internal/uring_ring_test.cc
// -----------------------------------------------------------------------------
//
// UringRing: a submission entry's operation completes with its token; a
// full submission queue is handed over so entries keep coming; a cancel
// ends a pending poll; the tests' fault injection makes every Nth entry
// missing; ErasePrefixWhile keeps the first operation that waits and all
// after it; a submit_and_wait() that finds a completion already queued
// still collects the receive work the kernel deferred.

#include "reactor/poller/internal/uring_ring.h"

#include <liburing.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "gtest/gtest.h"
#include "reactor/poller/internal/uring_test_ring.h"

namespace serverkit::reactor_internal {
namespace {

TEST(ErasePrefixWhileTest, StopsAtTheFirstThatIsNotDone) {
  std::vector<int> v = {1, 2, 3, 4, 1};
  ErasePrefixWhile(v, [](int x) { return x < 3; });
  EXPECT_EQ(v, (std::vector<int>{3, 4, 1}));
  ErasePrefixWhile(v, [](int) { return true; });
  EXPECT_TRUE(v.empty());
}

TEST(UringRingTest, APollCompletesWithItsTokenAndTheReadyMask) {
  auto ring = TestRingOrSayWhy(8);
  if (ring == nullptr) GTEST_SKIP() << "io_uring is not available here";
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  io_uring_sqe* s = ring->sqe();
  ASSERT_NE(s, nullptr);
  io_uring_prep_poll_add(s, sv[0], POLLIN);
  io_uring_sqe_set_data64(s, 42);
  ASSERT_EQ(::write(sv[1], "x", 1), 1);
  const auto got = Reap(*ring, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].token, 42u);
  EXPECT_TRUE(got[0].res & POLLIN) << got[0].res;
  ::close(sv[0]);
  ::close(sv[1]);
}

// Under DEFER_TASKRUN a receive's completion is made only when the loop
// asks for events. An early submit (the send path's, uring_sends.h) leaves
// completions in the queue; liburing then enters without asking for
// events (or not at all), and the receive waited for a later poll().
TEST(UringRingTest, AQueuedCompletionDoesNotHoldBackDeferredReceives) {
  auto ring = TestRingOrSayWhy(8);
  if (ring == nullptr) GTEST_SKIP() << "io_uring is not available here";
  if ((ring->get()->flags & IORING_SETUP_DEFER_TASKRUN) == 0) {
    GTEST_SKIP() << "the kernel runs completion work at once here";
  }
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  char buf[16];
  io_uring_sqe* s = ring->sqe();
  ASSERT_NE(s, nullptr);
  io_uring_prep_recv(s, sv[0], buf, sizeof buf, 0);
  io_uring_sqe_set_data64(s, 7);
  ring->submit_now();                    // armed: nothing to read yet
  ASSERT_EQ(::write(sv[1], "x", 1), 1);  // its completion work is deferred
  s = ring->sqe();
  ASSERT_NE(s, nullptr);
  io_uring_prep_nop(s);
  io_uring_sqe_set_data64(s, 8);
  ring->submit_now();  // completes at once: a completion waits in the queue
  ASSERT_GT(io_uring_cq_ready(ring->get()), 0u);
  ring->submit_and_wait(0);
  std::vector<std::uint64_t> tokens;
  io_uring_cqe* cqe = nullptr;
  unsigned head;
  unsigned seen = 0;
  io_uring_for_each_cqe(ring->get(), head, cqe) {
    ++seen;
    tokens.push_back(io_uring_cqe_get_data64(cqe));
  }
  io_uring_cq_advance(ring->get(), seen);
  EXPECT_EQ(tokens, (std::vector<std::uint64_t>{8, 7}))
      << "the receive's completion was left for a later poll";
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(UringRingTest, AFullSubmissionQueueIsHandedOverForMoreEntries) {
  auto ring = TestRingOrSayWhy(4);
  if (ring == nullptr) GTEST_SKIP() << "io_uring is not available here";
  constexpr int kOps = 20;  // several times the queue's entries
  for (int i = 0; i < kOps; ++i) {
    io_uring_sqe* s = ring->sqe();
    ASSERT_NE(s, nullptr) << "entry " << i;
    io_uring_prep_nop(s);
    io_uring_sqe_set_data64(s, static_cast<std::uint64_t>(i + 1));
  }
  const auto got = Reap(*ring, kOps);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(kOps));
  std::vector<bool> seen(kOps + 1, false);
  for (const Completion& c : got) {
    EXPECT_EQ(c.res, 0);
    ASSERT_GE(c.token, 1u);
    ASSERT_LE(c.token, static_cast<std::uint64_t>(kOps));
    EXPECT_FALSE(seen[c.token]) << "token " << c.token << " twice";
    seen[c.token] = true;
  }
}

TEST(UringRingTest, ACancelEndsAPendingPoll) {
  auto ring = TestRingOrSayWhy(8);
  if (ring == nullptr) GTEST_SKIP() << "io_uring is not available here";
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  io_uring_sqe* s = ring->sqe();
  ASSERT_NE(s, nullptr);
  io_uring_prep_poll_add(s, sv[0], POLLIN);  // never ready: nothing written
  io_uring_sqe_set_data64(s, 7);
  ring->submit_and_wait(0);
  ring->cancel(7, /*poll=*/true);
  EXPECT_FALSE(ring->cancels_waiting());
  const auto got = Reap(*ring, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].token, 7u);
  EXPECT_EQ(got[0].res, -ECANCELED);
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(UringRingTest, InjectedMissingEntriesComeEveryNth) {
  ::setenv("SERVERKIT_URING_TEST_SQE_FAIL_EVERY", "3", 1);
  auto ring = TestRingOrSayWhy(16);
  ::unsetenv("SERVERKIT_URING_TEST_SQE_FAIL_EVERY");
  if (ring == nullptr) GTEST_SKIP() << "io_uring is not available here";
  std::vector<bool> missing;
  for (int i = 0; i < 9; ++i) {
    io_uring_sqe* s = ring->sqe();
    missing.push_back(s == nullptr);
    if (s != nullptr) {
      io_uring_prep_nop(s);
      io_uring_sqe_set_data64(s, static_cast<std::uint64_t>(i + 1));
    }
  }
  EXPECT_EQ(missing, (std::vector<bool>{false, false, true, false, false, true,
                                        false, false, true}));
  // A cancel that finds no entry waits, and goes out with the next entry.
  ring->cancel(99, /*poll=*/false);
  ring->cancel(98, /*poll=*/false);
  ring->cancel(97, /*poll=*/false);  // the 12th entry asked for: missing
  EXPECT_TRUE(ring->cancels_waiting());
  ring->prep_waiting_cancels();
  EXPECT_FALSE(ring->cancels_waiting());
  EXPECT_EQ(Reap(*ring, 6).size(), 6u);
}

}  // namespace
}  // namespace serverkit::reactor_internal
