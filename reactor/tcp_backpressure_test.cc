// -----------------------------------------------------------------------------
// reactor/tcp_backpressure_test.cc
// -----------------------------------------------------------------------------
//
// TcpConnection's back-pressure over loopback, typed over every buffer: a
// slow reader crossing the high-water mark, the peer's FIN that comes with
// its last bytes, the peer's half-close with output still queued (with and
// without the marks in play, and with a peer that then never reads), and a
// peer that never reads held at the high-water mark.

#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "buffer/all_buffers.h"
#include "gtest/gtest.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"
#include "reactor/tcp_test_support.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

template <typename B>
class TcpBackpressureTest : public ::testing::Test {};
TYPED_TEST_SUITE(TcpBackpressureTest, AllBuffersTypes, BufferNames);

TYPED_TEST(TcpBackpressureTest, SlowReaderHitsTheHighWaterMark) {
  using B = TypeParam;
  std::promise<std::size_t> fired;
  std::atomic<bool> once{false};
  ServerThread<B> server(1, [&](TcpServer<B>& s) {
    s.set_connection_callback([&](const TcpConnectionPtr<B>& conn) {
      if (!conn->connected()) return;
      conn->set_high_water_mark_callback(
          [&](const TcpConnectionPtr<B>& c, std::size_t queued) {
            if (!once.exchange(true)) fired.set_value(queued);
            // A server's usual answer to a peer that does not read.
            c->force_close();
          },
          1 << 20);
      const std::string chunk(64 * 1024, 'x');
      for (int i = 0; i < 256; ++i) conn->send(chunk);  // 16 MiB, never read
    });
  });
  Client c(server.port());
  ASSERT_TRUE(c.connected());
  auto f = fired.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_GE(f.get(), std::size_t{1} << 20);
}

// A peer's last bytes and its FIN, sent back to back, come to the server as
// one wake-up: the read that takes the bytes leaves the EOF unread. The
// server must still see it and close once the echo is out (over io_uring's
// multishot polls, edge-triggered, it looks again when the stream ends).
TYPED_TEST(TcpBackpressureTest, TheFinThatCameWithTheLastBytesIsSeen) {
  using B = TypeParam;
  ServerThread<B> server(1, [&](TcpServer<B>& s) { EchoSetup(s); });
  for (int i = 0; i < 50; ++i) {
    Client c(server.port());
    ASSERT_TRUE(c.connected());
    const std::string last = "last bytes " + std::to_string(i);
    ASSERT_TRUE(c.send_all(last));
    ASSERT_EQ(::shutdown(c.fd(), SHUT_WR), 0);
    bool eof = false;
    const std::string back = c.recv_to_eof(&eof);
    ASSERT_TRUE(eof) << "connection " << i << ": no EOF after the echo";
    ASSERT_EQ(back, last) << "connection " << i;
  }
}

// A client with a 32 KiB receive buffer and a 256 KiB send buffer, so what
// the kernel absorbs stays well under the tests' megabytes.
constexpr int kSmallRcvBuf = 32 << 10;
constexpr int kSmallSndBuf = 256 << 10;

// What a connection holds, and its loop's polls so far, read in its loop
// thread.
struct Held {
  std::size_t output = 0;
  std::size_t input = 0;
  bool paused = false;
  std::uint64_t pauses = 0;
  std::uint64_t polls = 0;
};

template <typename B>
Held HeldBy(const TcpConnectionPtr<B>& conn) {
  std::promise<Held> p;
  conn->loop()->run_in_loop([&] {
    p.set_value({conn->output_buffer()->readable_bytes(),
                 conn->input_buffer()->readable_bytes(),
                 conn->paused_by_backpressure(), conn->backpressure_pauses(),
                 conn->loop()->poller_stats().polls});
  });
  return p.get_future().get();
}

// The peer sends 8 MiB without reading, half-closes, then reads: it gets
// every byte back, then EOF. The marks are above 8 MiB and the server's send
// buffer is small, so the server reads everything and sees the EOF with
// most of the echo still queued: the path that used to close at once and
// drop the queue.
TYPED_TEST(TcpBackpressureTest, PeerHalfCloseGetsEveryQueuedByte) {
  using B = TypeParam;
  std::atomic<std::size_t> queued_at_eof{0};
  std::atomic<int> half_closes{0};
  ServerThread<B> server(1, [&](TcpServer<B>& s) {
    EchoSetup(s);
    s.set_water_marks(16 << 20, 4 << 20);
    s.set_connection_callback([](const TcpConnectionPtr<B>& conn) {
      if (conn->connected()) SetBufferSize(conn->fd(), SO_SNDBUF, 64 << 10);
    });
    s.set_half_close_callback([&](const TcpConnectionPtr<B>& conn) {
      EXPECT_TRUE(conn->peer_half_closed());
      // Echoed but not yet written: the output buffer plus, over io_uring,
      // the send the kernel still holds (which the output buffer does not
      // count; the half-close waits for both).
      queued_at_eof.store(conn->bytes_read() - conn->bytes_written());
      half_closes.fetch_add(1);
    });
  });
  Client c(server.port(), kSmallRcvBuf, kSmallSndBuf);
  ASSERT_TRUE(c.connected());
  const int fd = c.fd();
  const std::string payload = Pattern(8 << 20, 11);
  std::size_t off = 0;
  while (off < payload.size()) {
    const ssize_t n =
        ::send(fd, payload.data() + off, payload.size() - off, MSG_NOSIGNAL);
    ASSERT_GT(n, 0) << "send stalled after " << off
                    << " bytes: " << std::strerror(errno);
    off += static_cast<std::size_t>(n);
  }
  ASSERT_EQ(::shutdown(fd, SHUT_WR), 0);
  bool eof = false;
  const std::string back = c.recv_to_eof(&eof);
  EXPECT_TRUE(eof) << "no EOF after the echo";
  EXPECT_EQ(back.size(), payload.size());
  EXPECT_TRUE(back == payload) << "the echo differs from what was sent";
  EXPECT_EQ(half_closes.load(), 1);
  EXPECT_GT(queued_at_eof.load(), 0u)
      << "the EOF came with nothing queued; the test did not reach the "
         "half-close path";
}

// A peer that sends, half-closes and never reads, with the echo still
// queued: the loop waits for room without spinning. (io_uring reports RDHUP
// to every poll, so a one-shot write poll re-armed after the FIN completed
// at once, again and again, a core at 100% for as long as the peer sat.)
TYPED_TEST(TcpBackpressureTest, APeerThatHalfClosesAndNeverReadsCostsNoSpin) {
  using B = TypeParam;
  std::promise<TcpConnectionPtr<B>> half_closed;
  ServerThread<B> server(1, [&](TcpServer<B>& s) {
    EchoSetup(s);
    s.set_water_marks(16 << 20, 4 << 20);
    s.set_connection_callback([](const TcpConnectionPtr<B>& conn) {
      if (conn->connected()) SetBufferSize(conn->fd(), SO_SNDBUF, 64 << 10);
    });
    s.set_half_close_callback(
        [&](const TcpConnectionPtr<B>& conn) { half_closed.set_value(conn); });
  });
  Client c(server.port(), kSmallRcvBuf, kSmallSndBuf);
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send_all(Pattern(2 << 20, 13)));
  ASSERT_EQ(::shutdown(c.fd(), SHUT_WR), 0);
  auto f = half_closed.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  const TcpConnectionPtr<B> conn = f.get();
  std::this_thread::sleep_for(50ms);
  const Held before = HeldBy(conn);
  EXPECT_GT(before.output, 0u) << "nothing queued: not the case";
  std::this_thread::sleep_for(300ms);
  const std::uint64_t during = HeldBy(conn).polls - before.polls;
  // Idle, the loop polls a handful of times (the queries above); spinning,
  // tens of thousands.
  EXPECT_LT(during, 100u) << "the loop polled " << during
                          << " times in 300 ms while the peer sat";
}

// The same with the default marks and a small server send buffer: the
// server stops reading above 1 MiB queued, so the writer stalls until the
// peer reads; the peer starts reading once the writer is done or stuck.
TYPED_TEST(TcpBackpressureTest, PeerHalfCloseUnderBackPressureGetsEveryByte) {
  using B = TypeParam;
  std::atomic<int> high_water{0};
  ServerThread<B> server(1, [&](TcpServer<B>& s) {
    EchoSetup(s);
    s.set_connection_callback([](const TcpConnectionPtr<B>& conn) {
      if (!conn->connected()) return;
      SetBufferSize(conn->fd(), SO_SNDBUF, 64 << 10);
      SetBufferSize(conn->fd(), SO_RCVBUF, 64 << 10);
    });
    s.set_high_water_mark_callback(
        [&](const TcpConnectionPtr<B>&, std::size_t) {
          high_water.fetch_add(1);
        });
  });
  Client c(server.port(), kSmallRcvBuf, kSmallSndBuf);
  ASSERT_TRUE(c.connected());
  const int fd = c.fd();
  const std::string payload = Pattern(8 << 20, 12);
  std::atomic<std::size_t> sent{0};
  std::atomic<bool> done{false};
  std::thread writer([&] {
    std::size_t off = 0;
    while (off < payload.size()) {
      const ssize_t n =
          ::send(fd, payload.data() + off, payload.size() - off, MSG_NOSIGNAL);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
      sent.store(off);
    }
    ::shutdown(fd, SHUT_WR);
    done.store(true);
  });
  // Wait until the writer is done or has made no progress for 200 ms.
  std::size_t last = 0;
  for (int still = 0; !done.load() && still < 4;) {
    std::this_thread::sleep_for(50ms);
    const std::size_t now = sent.load();
    still = now == last ? still + 1 : 0;
    last = now;
  }
  EXPECT_FALSE(done.load()) << "the writer was never held back: " << sent.load()
                            << " bytes went in without the peer reading";
  bool eof = false;
  const std::string back = c.recv_to_eof(&eof);
  writer.join();
  EXPECT_EQ(sent.load(), payload.size());
  EXPECT_TRUE(eof) << "no EOF after the echo";
  EXPECT_EQ(back.size(), payload.size());
  EXPECT_TRUE(back == payload) << "the echo differs from what was sent";
  EXPECT_GE(high_water.load(), 1);
}

// A peer that sends and never reads: the server stops reading at the high
// mark, so what it holds for that peer stays under the mark plus one read
// and its echo, and the sender stalls. When the peer reads, the connection
// reads again and every byte comes back.
TYPED_TEST(TcpBackpressureTest, NeverReadingPeerIsHeldAtTheHighWaterMark) {
  using B = TypeParam;
  constexpr std::size_t kHigh = 1 << 20, kLow = 256 << 10;
  // A weak reference: the socket closes when the server drops the
  // connection, and a strong one here would hold it open.
  std::promise<std::weak_ptr<TcpConnection<B>>> accepted;
  ServerThread<B> server(1, [&](TcpServer<B>& s) {
    EchoSetup(s);
    s.set_water_marks(kHigh, kLow);
    s.set_connection_callback([&](const TcpConnectionPtr<B>& conn) {
      if (!conn->connected()) return;
      SetBufferSize(conn->fd(), SO_SNDBUF, 64 << 10);
      SetBufferSize(conn->fd(), SO_RCVBUF, 64 << 10);
      accepted.set_value(conn);
    });
  });
  Client c(server.port(), kSmallRcvBuf, kSmallSndBuf);
  ASSERT_TRUE(c.connected());
  const int fd = c.fd();
  const std::weak_ptr<TcpConnection<B>> weak = accepted.get_future().get();
  ASSERT_EQ(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
  // Send a repeating 64 KiB pattern, up to 96 MiB, until nothing has gone
  // in for 300 ms.
  const std::string chunk = Pattern(64 << 10, 13);
  std::size_t sent = 0;
  auto idle_since = std::chrono::steady_clock::now();
  while (sent < (96u << 20) &&
         std::chrono::steady_clock::now() - idle_since < 300ms) {
    const std::size_t at = sent % chunk.size();
    const ssize_t n =
        ::send(fd, chunk.data() + at, chunk.size() - at, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      idle_since = std::chrono::steady_clock::now();
    } else {
      std::this_thread::sleep_for(1ms);
    }
  }
  // One more read's worth may sit in either buffer: a read is at most the
  // input buffer's free space plus its 64 KiB extra, or, where the poller
  // receives for the connection (io_uring), what it received between two
  // polls: at most the loop's receive_limit().
  TcpConnectionPtr<B> conn = weak.lock();
  ASSERT_TRUE(conn) << "the server dropped a connection that did nothing wrong";
  const std::size_t slack = std::max<std::size_t>(
      512u << 10, ReceiveLimit(conn->loop()) + (64u << 10));
  const Held held = HeldBy(conn);
  EXPECT_TRUE(held.paused)
      << "the server is still reading from a peer that does not read";
  EXPECT_GE(held.pauses, 1u);
  EXPECT_LE(held.output + held.input, kHigh + slack)
      << "output " << held.output << ", input " << held.input;
  EXPECT_LT(sent, 24u << 20) << "the sender was never stalled";

  // The peer half-closes and reads now: reading resumes below the low
  // mark, and the echo of every byte comes back before EOF.
  conn.reset();
  ASSERT_EQ(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK), 0);
  ASSERT_EQ(::shutdown(fd, SHUT_WR), 0);
  bool eof = false;
  const std::string back = c.recv_to_eof(&eof);
  EXPECT_TRUE(eof);
  ASSERT_EQ(back.size(), sent);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < back.size(); i += chunk.size()) {
    bad += back.compare(i, chunk.size(), chunk, 0,
                        std::min(chunk.size(), back.size() - i)) != 0;
  }
  EXPECT_EQ(bad, 0u) << "chunks differ from what was sent";
}

}  // namespace
}  // namespace serverkit::reactor
