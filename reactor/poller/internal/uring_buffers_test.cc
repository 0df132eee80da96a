// -----------------------------------------------------------------------------
// reactor/poller/internal/uring_buffers_test.cc
// -----------------------------------------------------------------------------
//
// ProvidedBuffers: a receive that selects a buffer from the ring gets the
// bytes into the buffer its completion names; once every buffer is handed
// out the kernel has none (ENOBUFS) until one is given back and recycled.

#include "reactor/poller/internal/uring_buffers.h"

#include <liburing.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string_view>

#include "gtest/gtest.h"
#include "reactor/poller/internal/uring_ring.h"
#include "reactor/poller/internal/uring_test_ring.h"

namespace serverkit::reactor_internal {
namespace {

// A page each, as the poller's own buffers are (the count must be a power
// of two: the kernel refuses other ring sizes).
constexpr unsigned kBytes = 4096;

// One receive on `fd` into a buffer of the group, under `token`.
void ArmRecv(UringRing& ring, int fd, std::uint64_t token) {
  io_uring_sqe* s = ring.sqe();
  ASSERT_NE(s, nullptr);
  io_uring_prep_recv(s, fd, nullptr, 0, 0);
  s->flags |= IOSQE_BUFFER_SELECT;
  s->buf_group = ProvidedBuffers::kGroup;
  io_uring_sqe_set_data64(s, token);
}

std::uint16_t BufferId(const Completion& c) {
  return static_cast<std::uint16_t>(c.flags >> IORING_CQE_BUFFER_SHIFT);
}

class ProvidedBuffersTest : public ::testing::Test {
 protected:
  // Null buffers_: the test skips (no io_uring, or no provided buffers).
  void SetUp() override {
    ring_ = TestRingOrSayWhy(8);
    if (ring_ == nullptr) return;
    buffers_ = ProvidedBuffers::Register(ring_->get(), 2, kBytes);
    if (buffers_ == nullptr) {
      std::printf(
          "serverkit-test: SKIPPED io_uring provided buffers are not "
          "available here\n");
    }
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv_), 0);
  }
  void TearDown() override {
    if (sv_[0] >= 0) ::close(sv_[0]);
    if (sv_[1] >= 0) ::close(sv_[1]);
    ring_.reset();  // the kernel lets go of the buffers first
    buffers_.reset();
  }

  // Sends `text` to sv_[0] and receives it through the ring.
  Completion Receive(std::string_view text, std::uint64_t token) {
    EXPECT_EQ(::write(sv_[1], text.data(), text.size()),
              static_cast<ssize_t>(text.size()));
    ArmRecv(*ring_, sv_[0], token);
    const auto got = Reap(*ring_, 1);
    EXPECT_EQ(got.size(), 1u);
    return got.empty() ? Completion{0, -ETIME, 0} : got[0];
  }

  std::unique_ptr<UringRing> ring_;
  std::unique_ptr<ProvidedBuffers> buffers_;
  int sv_[2] = {-1, -1};
};

TEST_F(ProvidedBuffersTest, AReceiveLandsInTheBufferItsCompletionNames) {
  if (buffers_ == nullptr) GTEST_SKIP() << "no provided buffers here";
  const Completion c = Receive("hello", 1);
  ASSERT_EQ(c.res, 5);
  ASSERT_TRUE(c.flags & IORING_CQE_F_BUFFER);
  const std::uint16_t id = BufferId(c);
  ASSERT_LT(id, 2u);
  EXPECT_EQ(std::string_view(buffers_->at(id), 5), "hello");
}

TEST_F(ProvidedBuffersTest, HandedOutBuffersComeBackOnlyWhenRecycled) {
  if (buffers_ == nullptr) GTEST_SKIP() << "no provided buffers here";
  const Completion a = Receive("first", 1);
  const Completion b = Receive("second", 2);
  ASSERT_EQ(a.res, 5);
  ASSERT_EQ(b.res, 6);
  EXPECT_NE(BufferId(a), BufferId(b));
  // Both buffers are out: the kernel has nowhere to put the next bytes.
  EXPECT_EQ(Receive("third", 3).res, -ENOBUFS);
  // Given back but not yet recycled: still none.
  buffers_->give_back(BufferId(a));
  EXPECT_EQ(Receive("", 4).res, -ENOBUFS);
  buffers_->recycle();
  const Completion c = Receive("", 5);  // "third" is still in the socket
  ASSERT_EQ(c.res, 5);
  EXPECT_EQ(BufferId(c), BufferId(a));
  EXPECT_EQ(std::string_view(buffers_->at(BufferId(c)), 5), "third");
}

}  // namespace
}  // namespace serverkit::reactor_internal
