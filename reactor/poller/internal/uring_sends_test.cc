// -----------------------------------------------------------------------------
// reactor/poller/internal/uring_sends_test.cc
// -----------------------------------------------------------------------------
//
// UringSends: a send goes to the kernel at prep_waiting(), not before, and
// its completion tells the channel the bytes sent; a short send continues
// where it stopped and the channel hears once; a send dropped before the
// kernel took it never reaches the socket; a failed send reports the errno;
// finished sends' storage is kept for the next, within its bounds; the
// kFlushSends-th send since the last submit hands every queued send to the
// kernel at once, so a reply waits behind at most that many callbacks.

#include "reactor/poller/internal/uring_sends.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "reactor/channel.h"
#include "reactor/poller/internal/uring_ring.h"
#include "reactor/poller/internal/uring_test_ring.h"

namespace serverkit::reactor_internal {
namespace {

BufferStorage Bytes(const std::string& s) {
  BufferStorage b;
  b.assign(s.data(), s.size());
  return b;
}

class UringSendsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ring_ = TestRingOrSayWhy(16);
    if (ring_ == nullptr) return;
    sends_ = std::make_unique<UringSends>(ring_.get());
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv_), 0);
  }
  void TearDown() override {
    if (sv_[0] >= 0) ::close(sv_[0]);
    if (sv_[1] >= 0) ::close(sv_[1]);
    ring_.reset();  // the kernel lets go of the bytes first
    sends_.reset();
  }

  // Submits the waiting sends and completes what the kernel finished,
  // until `token`'s channel hears (or about two seconds of no completion).
  UringSends::Done RunUntilDone(std::uint64_t token) {
    for (int round = 0; round < 1000; ++round) {
      sends_->prep_waiting();
      const auto got = Reap(*ring_, 1);
      if (got.empty()) break;
      for (const Completion& c : got) {
        if (c.token != token) continue;
        const UringSends::Done done = sends_->complete(c.token, c.res);
        if (done.channel != nullptr) return done;
      }
    }
    ADD_FAILURE() << "the send never completed";
    return {};
  }

  std::string ReadAvailable() {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(sv_[1], buf, sizeof buf, MSG_DONTWAIT)) > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }

  std::unique_ptr<UringRing> ring_;
  std::unique_ptr<UringSends> sends_;
  int sv_[2] = {-1, -1};
  reactor::Channel channel_{nullptr, -1};  // only named back, never called
};

TEST_F(UringSendsTest, ASendGoesAtPrepWaitingAndReportsItsBytes) {
  if (ring_ == nullptr) GTEST_SKIP() << "io_uring is not available here";
  sends_->start(1, &channel_, sv_[0], Bytes("hello, ring"));
  EXPECT_TRUE(sends_->has(1));
  EXPECT_TRUE(sends_->waiting());
  EXPECT_EQ(ReadAvailable(), "") << "sent before prep_waiting()";
  const UringSends::Done done = RunUntilDone(1);
  EXPECT_EQ(done.channel, &channel_);
  EXPECT_EQ(done.bytes, 11u);
  EXPECT_EQ(done.error, 0);
  EXPECT_FALSE(sends_->has(1));
  EXPECT_FALSE(sends_->waiting());
  EXPECT_EQ(ReadAvailable(), "hello, ring");
}

// The mechanism behind io_uring's tail at set rates (issue 51): every send
// an iteration's callbacks queued waited for the next poll, so the first
// reply of a batch waited behind all the others' callbacks.
TEST_F(UringSendsTest, TheFlushSendsThSendHandsTheQueuedOnesOverAtOnce) {
  if (ring_ == nullptr) GTEST_SKIP() << "io_uring is not available here";
  constexpr std::size_t k = UringSends::kFlushSends;
  static_assert(k > 1 && k <= 16, "the test ring holds 16 entries");
  std::string all;
  for (std::size_t i = 0; i + 1 < k; ++i) {
    const std::string s(1, static_cast<char>('a' + i));
    all += s;
    sends_->start(i + 1, &channel_, sv_[0], Bytes(s));
  }
  EXPECT_EQ(ReadAvailable(), "") << "sent before the poll or the flush";
  EXPECT_EQ(sends_->flushes(), 0u);
  all += "!";
  sends_->start(k, &channel_, sv_[0], Bytes("!"));
  EXPECT_EQ(sends_->flushes(), 1u);
  EXPECT_FALSE(sends_->waiting());
  EXPECT_EQ(ReadAvailable(), all)
      << "the queued sends still wait for the next poll";
  // Each completes as before: the channel hears once per send.
  std::size_t heard = 0;
  for (const Completion& c : Reap(*ring_, k)) {
    if (sends_->complete(c.token, c.res).channel == &channel_) ++heard;
  }
  EXPECT_EQ(heard, k);
  // A poll's submit starts the count again.
  for (std::size_t i = 0; i + 1 < k; ++i) {
    sends_->start(100 + i, &channel_, sv_[0], Bytes("p"));
  }
  sends_->prep_waiting();
  Reap(*ring_, k - 1);
  sends_->start(200, &channel_, sv_[0], Bytes("q"));
  EXPECT_EQ(sends_->flushes(), 1u) << "counted sends a poll had submitted";
  EXPECT_TRUE(sends_->waiting());
}

// Early submits' completions wait for the next poll's reap: none while
// half the completion queue is still unreaped, so it cannot overflow.
TEST_F(UringSendsTest, NoEarlySubmitWhileHalfTheCompletionQueueWaits) {
  if (ring_ == nullptr) GTEST_SKIP() << "io_uring is not available here";
  const unsigned half = ring_->get()->cq.ring_entries / 2;
  for (unsigned i = 0; i <= half; ++i) {
    io_uring_sqe* s = ring_->sqe();
    ASSERT_NE(s, nullptr);
    io_uring_prep_nop(s);
    io_uring_sqe_set_data64(s, kIgnoreToken);
  }
  ring_->submit_now();
  ASSERT_GT(io_uring_cq_ready(ring_->get()), half);
  for (std::size_t i = 0; i < UringSends::kFlushSends; ++i) {
    sends_->start(i + 1, &channel_, sv_[0], Bytes("x"));
  }
  EXPECT_EQ(sends_->flushes(), 0u);
  EXPECT_EQ(ReadAvailable(), "") << "submitted early on a crowded queue";
  EXPECT_TRUE(sends_->waiting());
}

TEST_F(UringSendsTest, AShortSendContinuesAndTheChannelHearsOnce) {
  if (ring_ == nullptr) GTEST_SKIP() << "io_uring is not available here";
  const int small = 4096;
  ASSERT_EQ(::setsockopt(sv_[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small),
            0);
  std::string payload(4 << 20, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) {
    payload[i] = static_cast<char>('a' + i % 23);
  }
  std::string received;
  std::thread reader([&] {
    char buf[65536];
    while (received.size() < payload.size()) {
      const ssize_t n = ::recv(sv_[1], buf, sizeof buf, 0);
      if (n <= 0) break;
      received.append(buf, static_cast<std::size_t>(n));
    }
  });
  sends_->start(1, &channel_, sv_[0], Bytes(payload));
  const UringSends::Done done = RunUntilDone(1);
  reader.join();
  EXPECT_EQ(done.channel, &channel_);
  EXPECT_EQ(done.bytes, payload.size());
  EXPECT_EQ(done.error, 0);
  EXPECT_TRUE(received == payload) << "the bytes arrived altered";
}

TEST_F(UringSendsTest, ASendDroppedBeforeTheKernelTookItNeverArrives) {
  if (ring_ == nullptr) GTEST_SKIP() << "io_uring is not available here";
  sends_->start(1, &channel_, sv_[0], Bytes("for a channel that is gone"));
  sends_->drop(1);
  EXPECT_FALSE(sends_->has(1));
  sends_->prep_waiting();
  EXPECT_FALSE(sends_->waiting());
  EXPECT_TRUE(Reap(*ring_, 1, std::chrono::milliseconds(200)).empty());
  EXPECT_EQ(ReadAvailable(), "");
}

TEST_F(UringSendsTest, AFailedSendReportsTheErrno) {
  if (ring_ == nullptr) GTEST_SKIP() << "io_uring is not available here";
  ::close(sv_[1]);
  sv_[1] = -1;
  sends_->start(1, &channel_, sv_[0], Bytes("nobody reads this"));
  const UringSends::Done done = RunUntilDone(1);
  EXPECT_EQ(done.channel, &channel_);
  EXPECT_EQ(done.bytes, 0u);
  EXPECT_EQ(done.error, EPIPE);
}

TEST_F(UringSendsTest, FinishedStorageIsKeptForTheNextSendWithinBounds) {
  if (ring_ == nullptr) GTEST_SKIP() << "io_uring is not available here";
  EXPECT_EQ(sends_->spare_buffer().bytes, nullptr) << "nothing kept yet";
  sends_->start(1, &channel_, sv_[0], Bytes(std::string(1000, 'x')));
  RunUntilDone(1);
  BufferStorage spare = sends_->spare_buffer();
  ASSERT_NE(spare.bytes, nullptr) << "the finished send's storage was freed";
  EXPECT_GE(spare.capacity, 1000u);
  EXPECT_EQ(spare.size(), 0u) << "kept storage must come back empty";
  EXPECT_EQ(sends_->spare_buffer().bytes, nullptr);
  BufferStorage huge;
  huge.reserve(1 << 20);  // over what one kept storage may hold
  sends_->keep(std::move(huge));
  EXPECT_EQ(sends_->spare_buffer().bytes, nullptr);
}

}  // namespace
}  // namespace serverkit::reactor_internal
