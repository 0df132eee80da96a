// TcpServer / TcpConnection / TcpClient over loopback, typed over every
// buffer: echo correctness for many sessions, many connections at once, a
// peer reset mid-message, a slow reader hitting the high-water mark,
// half-close (ours, and the peer's with output still queued), back-pressure
// on a peer that never reads, descriptor exhaustion, and a client that
// retries until a port that refused it serves.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <latch>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "buffer/all_buffers.h"
#include "gtest/gtest.h"
#include "reactor/event_loop.h"
#include "reactor/policy.h"
#include "reactor/tcp_client.h"
#include "reactor/tcp_server.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

void SetBufferSize(int fd, int option, int bytes) {
  ::setsockopt(fd, SOL_SOCKET, option, &bytes, sizeof(bytes));
}

// A blocking loopback client with timeouts, so a broken server fails the
// test instead of hanging it. Non-zero `rcvbuf` / `sndbuf` set the socket's
// buffers before connecting (the window is agreed at the handshake).
class Client {
 public:
  explicit Client(std::uint16_t port, int rcvbuf = 0, int sndbuf = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (rcvbuf > 0) SetBufferSize(fd_, SO_RCVBUF, rcvbuf);
    if (sndbuf > 0) SetBufferSize(fd_, SO_SNDBUF, sndbuf);
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ =
        ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  }
  ~Client() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool connected() const { return connected_; }
  int fd() const { return fd_; }

  bool send_all(const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
      const ssize_t n =
          ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }
  // Reads exactly n bytes; returns fewer on EOF, error or timeout.
  std::string recv_n(std::size_t n) {
    std::string out(n, '\0');
    std::size_t off = 0;
    while (off < n) {
      const ssize_t r = ::recv(fd_, out.data() + off, n - off, 0);
      if (r <= 0) break;
      off += static_cast<std::size_t>(r);
    }
    out.resize(off);
    return out;
  }
  // Reads until EOF (or timeout); returns what came.
  std::string recv_to_eof(bool* saw_eof) {
    std::string out;
    char buf[65536];
    for (;;) {
      const ssize_t r = ::recv(fd_, buf, sizeof(buf), 0);
      if (r == 0) {
        *saw_eof = true;
        return out;
      }
      if (r < 0) {
        *saw_eof = false;
        return out;
      }
      out.append(buf, static_cast<std::size_t>(r));
    }
  }
  void reset() {  // close with RST
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// A TcpServer<B> in its own base-loop thread, on an ephemeral loopback port.
template <typename B>
class ServerThread {
 public:
  using Setup = std::function<void(TcpServer<B>&)>;

  ServerThread(int io_threads, Setup setup) {
    std::promise<std::pair<EventLoop*, std::uint16_t>> ready;
    thread_ = std::thread([&] {
      EventLoop loop;
      const InetAddress any_port("127.0.0.1", 0);
      TcpServer<B> server(&loop, any_port, "test", io_threads,
                          [] { return LoopOptionsFor<BaselinePolicy>(); });
      server_ = &server;
      setup(server);
      server.start();
      ready.set_value({&loop, server.listen_address().port()});
      loop.loop();
      server_ = nullptr;
    });
    auto [loop, port] = ready.get_future().get();
    loop_ = loop;
    port_ = port;
  }
  ~ServerThread() {
    loop_->quit();
    thread_.join();
  }
  std::uint16_t port() const { return port_; }
  EventLoop* loop() const { return loop_; }
  TcpServer<B>* server() const { return server_; }

 private:
  std::thread thread_;
  EventLoop* loop_ = nullptr;
  TcpServer<B>* server_ = nullptr;
  std::uint16_t port_ = 0;
};

template <typename B>
void EchoSetup(TcpServer<B>& server) {
  server.set_message_callback([](const TcpConnectionPtr<B>& conn, B* in,
                                 Clock::time_point) { conn->send(in); });
}

std::string Pattern(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

template <typename B>
class TcpTest : public ::testing::Test {};

class BufferNames {
 public:
  template <typename B>
  static std::string GetName(int) {
    return std::string(B::kName);
  }
};

using AllBuffersTypes = ApplyTypes<::testing::Types, AllBuffers>;
TYPED_TEST_SUITE(TcpTest, AllBuffersTypes, BufferNames);

TYPED_TEST(TcpTest, EchoesManySessionsExactly) {
  ServerThread<TypeParam> server(2, EchoSetup<TypeParam>);
  constexpr int kSessions = 16;
  std::vector<std::thread> clients;
  std::atomic<int> mismatches{0};
  for (int s = 0; s < kSessions; ++s) {
    clients.emplace_back([&, s] {
      Client c(server.port());
      if (!c.connected()) {
        mismatches.fetch_add(1);
        return;
      }
      // Sizes around the 64 KiB extra buffer and across many reads.
      for (std::size_t size : {1u, 100u, 4096u, 65536u, 200'000u}) {
        const std::string msg =
            Pattern(size, static_cast<unsigned>(s * 7 + size));
        std::thread writer([&] { c.send_all(msg); });
        const std::string back = c.recv_n(msg.size());
        writer.join();
        if (back != msg) mismatches.fetch_add(1);
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// Over io_uring a stream of whole provided buffers turns bulk: receives go
// into storage of their own, which LinearBuffer adopts uncopied; small
// messages after it go back to the ring. Every byte must come back in
// order through each switch, for every buffer.
TYPED_TEST(TcpTest, BulkStreamThenSmallMessagesEchoExactly) {
  std::atomic<EventLoop*> conn_loop{nullptr};
  ServerThread<TypeParam> server(1, [&](TcpServer<TypeParam>& s) {
    s.set_message_callback([&](const TcpConnectionPtr<TypeParam>& conn,
                               TypeParam* in, Clock::time_point) {
      conn_loop.store(conn->loop());
      conn->send(in);
    });
  });
  Client c(server.port());
  ASSERT_TRUE(c.connected());
  const std::string bulk = Pattern(4 << 20, 11);
  std::thread writer([&] {
    for (std::size_t at = 0; at < bulk.size(); at += 16384) {
      if (!c.send_all(bulk.substr(at, 16384))) return;
    }
  });
  const std::string back = c.recv_n(bulk.size());
  writer.join();
  ASSERT_EQ(back.size(), bulk.size());
  EXPECT_TRUE(back == bulk) << "the bulk stream came back altered";
  EventLoop* loop = conn_loop.load();
  ASSERT_NE(loop, nullptr);
  const std::uint64_t bulk_rooms = loop->room_receives();
  if (loop->receive_limit() > 0) {
    EXPECT_GT(bulk_rooms, 0u) << "no receive went into storage of its own";
  } else {
    EXPECT_EQ(bulk_rooms, 0u) << "only io_uring's receives make rooms";
  }
  for (int i = 0; i < 50; ++i) {
    const std::string msg = Pattern(100, 100 + i);
    ASSERT_TRUE(c.send_all(msg));
    ASSERT_EQ(c.recv_n(msg.size()), msg) << "round trip " << i;
  }
  // The first small message ends the bulk stream: at most one more room.
  EXPECT_LE(loop->room_receives() - bulk_rooms, 1u);
}

// Without a budget for rooms (reactor/uring_poller.h) a bulk stream stays
// on the provided-buffer ring, and still loses nothing.
TYPED_TEST(TcpTest, BulkStreamWithoutRoomBudgetStaysOnTheRing) {
  struct EnvGuard {
    EnvGuard() { ::setenv("SERVERKIT_URING_ROOM_BUDGET", "0", 1); }
    ~EnvGuard() { ::unsetenv("SERVERKIT_URING_ROOM_BUDGET"); }
  };
  std::atomic<EventLoop*> conn_loop{nullptr};
  std::optional<EnvGuard> env(std::in_place);
  ServerThread<TypeParam> server(1, [&](TcpServer<TypeParam>& s) {
    s.set_message_callback([&](const TcpConnectionPtr<TypeParam>& conn,
                               TypeParam* in, Clock::time_point) {
      conn_loop.store(conn->loop());
      conn->send(in);
    });
  });
  env.reset();  // the loops read it when they were made
  Client c(server.port());
  ASSERT_TRUE(c.connected());
  const std::string bulk = Pattern(2 << 20, 12);
  std::thread writer([&] { c.send_all(bulk); });
  const std::string back = c.recv_n(bulk.size());
  writer.join();
  EXPECT_TRUE(back == bulk) << "the stream came back altered";
  ASSERT_NE(conn_loop.load(), nullptr);
  EXPECT_EQ(conn_loop.load()->room_receives(), 0u);
}

TYPED_TEST(TcpTest, ManyConnectionsAtOnce) {
  ServerThread<TypeParam> server(2, EchoSetup<TypeParam>);
  constexpr int kConnections = 200;
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kConnections; ++i) {
    clients.push_back(std::make_unique<Client>(server.port()));
    ASSERT_TRUE(clients.back()->connected()) << i;
  }
  for (int i = 0; i < kConnections; ++i) {
    ASSERT_TRUE(clients[i]->send_all("hello " + std::to_string(i)));
  }
  for (int i = 0; i < kConnections; ++i) {
    const std::string want = "hello " + std::to_string(i);
    EXPECT_EQ(clients[i]->recv_n(want.size()), want);
  }
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (server.server()->connection_count() != kConnections &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(server.server()->connection_count(),
            static_cast<std::size_t>(kConnections));
  clients.clear();
  while (server.server()->connection_count() != 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(server.server()->connection_count(), 0u)
      << "closed connections leaked";
}

TYPED_TEST(TcpTest, PeerResetMidMessageLeavesTheServerServing) {
  ServerThread<TypeParam> server(1, EchoSetup<TypeParam>);
  {
    Client c(server.port());
    ASSERT_TRUE(c.connected());
    // More than gets echoed at once.
    ASSERT_TRUE(c.send_all(Pattern(300'000, 1)));
    c.reset();
  }
  Client next(server.port());
  ASSERT_TRUE(next.connected());
  ASSERT_TRUE(next.send_all("still alive"));
  EXPECT_EQ(next.recv_n(11), "still alive");
}

TYPED_TEST(TcpTest, SlowReaderHitsTheHighWaterMark) {
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

TYPED_TEST(TcpTest, HalfCloseDeliversQueuedOutputThenEof) {
  using B = TypeParam;
  const std::string payload = Pattern(3 << 20, 9);  // beyond socket buffers
  std::promise<std::string> got_after_shutdown;
  ServerThread<B> server(1, [&](TcpServer<B>& s) {
    s.set_connection_callback([&](const TcpConnectionPtr<B>& conn) {
      if (!conn->connected()) return;
      conn->send(payload);
      conn->shutdown();  // must wait for the 3 MiB to drain
    });
    s.set_message_callback(
        [&](const TcpConnectionPtr<B>&, B* in, Clock::time_point) {
          // Reads still work after our half-close.
          if (in->readable_bytes() >= 5) {
            got_after_shutdown.set_value(in->retrieve_as_string(5));
          }
        });
  });
  Client c(server.port());
  ASSERT_TRUE(c.connected());
  std::this_thread::sleep_for(20ms);
  bool eof = false;
  const std::string received = c.recv_to_eof(&eof);
  EXPECT_TRUE(eof) << "no FIN after the output drained";
  EXPECT_EQ(received.size(), payload.size());
  EXPECT_TRUE(received == payload);
  ASSERT_TRUE(c.send_all("after"));
  auto f = got_after_shutdown.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(f.get(), "after");
}

// A client with a 32 KiB receive buffer and a 256 KiB send buffer, so what
// the kernel absorbs stays well under the tests' megabytes.
constexpr int kSmallRcvBuf = 32 << 10;
constexpr int kSmallSndBuf = 256 << 10;

// What a connection holds, read in its loop thread.
struct Held {
  std::size_t output = 0;
  std::size_t input = 0;
  bool paused = false;
  std::uint64_t pauses = 0;
};

template <typename B>
Held HeldBy(const TcpConnectionPtr<B>& conn) {
  std::promise<Held> p;
  conn->loop()->run_in_loop([&] {
    p.set_value({conn->output_buffer()->readable_bytes(),
                 conn->input_buffer()->readable_bytes(),
                 conn->paused_by_backpressure(), conn->backpressure_pauses()});
  });
  return p.get_future().get();
}

// The peer sends 8 MiB without reading, half-closes, then reads: it gets
// every byte back, then EOF. The marks are above 8 MiB and the server's send
// buffer is small, so the server reads everything and sees the EOF with
// most of the echo still queued: the path that used to close at once and
// drop the queue.
TYPED_TEST(TcpTest, PeerHalfCloseGetsEveryQueuedByte) {
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

// The same with the default marks and a small server send buffer: the
// server stops reading above 1 MiB queued, so the writer stalls until the
// peer reads; the peer starts reading once the writer is done or stuck.
TYPED_TEST(TcpTest, PeerHalfCloseUnderBackPressureGetsEveryByte) {
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
TYPED_TEST(TcpTest, NeverReadingPeerIsHeldAtTheHighWaterMark) {
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
      512u << 10, conn->loop()->receive_limit() + (64u << 10));
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

// Lowers RLIMIT_NOFILE for the duration of a test.
class NoFileLimit {
 public:
  explicit NoFileLimit(rlim_t soft) {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit r = saved_;
    r.rlim_cur = soft;
    ok_ = ::setrlimit(RLIMIT_NOFILE, &r) == 0;
  }
  ~NoFileLimit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

int OpenDescriptors() {
  int n = 0;
  for (int fd = 0; fd < 4096; ++fd) n += ::fcntl(fd, F_GETFD) != -1;
  return n;
}

TYPED_TEST(TcpTest, DescriptorExhaustionRefusesCleanlyThenServesAgain) {
  ServerThread<TypeParam> server(0, EchoSetup<TypeParam>);
  {
    // Leave room for a few connections; the client ends use descriptors too
    // (same process), so the server runs out while clients keep connecting.
    NoFileLimit limit(static_cast<rlim_t>(OpenDescriptors() + 12));
    ASSERT_TRUE(limit.ok());
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < 10; ++i) {
      clients.push_back(std::make_unique<Client>(server.port()));
    }
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    auto refused = [&] {
      return server.server()->rejected_for_descriptors() +
             server.server()->failed_connections();
    };
    while (refused() == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
    EXPECT_GT(refused(), 0u)
        << "the server never ran out of descriptors; the test set-up is wrong";
  }
  // Limit restored, clients gone: the server must serve again (not spin,
  // not die).
  std::this_thread::sleep_for(50ms);
  Client c(server.port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send_all("ok"));
  EXPECT_EQ(c.recv_n(2), "ok");
}

TEST(TcpClientTest, RetriesUntilTheServerAppears) {
  // Find a free port, then start the server there only once the client has
  // had an attempt refused.
  std::uint16_t port;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t len = sizeof(a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    ::close(fd);
  }
  std::promise<std::string> echoed;
  std::atomic<bool> done{false};
  std::promise<TcpClient<LinearBuffer>*> client_ready;
  std::latch main_done_with_client(1);  // it reads the client's counters
  std::atomic<bool> server_listening{false};
  std::atomic<bool> connected_early{false};  // connected with no listener
  // The client's counters when it got in (loop thread; read after join).
  std::uint64_t refused_at_connect = 0;
  std::uint64_t attempts_at_connect = 0;
  std::thread client_thread([&] {
    EventLoop loop;
    TcpClient<LinearBuffer> client(&loop, InetAddress("127.0.0.1", port),
                                   "retry", 100);
    client.set_connection_callback(
        [&](const TcpConnectionPtr<LinearBuffer>& c) {
          if (c->connected()) {
            if (!server_listening.load()) connected_early.store(true);
            refused_at_connect = client.refused_attempts();
            attempts_at_connect = client.connect_attempts();
            c->send("ping");
          }
        });
    client.set_message_callback([&](const TcpConnectionPtr<LinearBuffer>&,
                                    LinearBuffer* in, Clock::time_point) {
      if (in->readable_bytes() >= 4 && !done.exchange(true)) {
        echoed.set_value(in->retrieve_as_string(4));
        loop.quit();
      }
    });
    client.set_failure_callback([&](const std::string& reason) {
      if (!done.exchange(true)) echoed.set_value("failed: " + reason);
      loop.quit();
    });
    client.connect();  // in the loop thread: the first attempt runs now
    client_ready.set_value(&client);
    loop.loop();
    main_done_with_client.wait();
  });
  // Nothing listens on the port yet: wait until the client has seen a
  // refusal (the deadline only bounds a hang).
  {
    const TcpClient<LinearBuffer>* client = client_ready.get_future().get();
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (client->refused_attempts() == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    EXPECT_GT(client->refused_attempts(), 0u)
        << "no attempt was refused while nothing listened";
    main_done_with_client.count_down();
  }
  EXPECT_FALSE(connected_early.load())
      << "the client connected before the server existed";
  std::promise<EventLoop*> ready;
  std::thread server_thread([&] {
    server_listening.store(true);  // from here on the client may get in
    EventLoop loop;
    TcpServer<LinearBuffer> server(&loop, InetAddress("127.0.0.1", port),
                                   "late");
    EchoSetup(server);
    server.start();
    ready.set_value(&loop);
    loop.loop();
  });
  EventLoop* server_loop = ready.get_future().get();
  auto f = echoed.get_future();
  const bool got = f.wait_for(20s) == std::future_status::ready;
  EXPECT_TRUE(got);
  if (got) {
    EXPECT_EQ(f.get(), "ping");
  }
  client_thread.join();
  server_loop->quit();
  server_thread.join();
  // Refused first, then a later attempt got in.
  EXPECT_GE(refused_at_connect, 1u)
      << "the client connected without an attempt refused first";
  EXPECT_GT(attempts_at_connect, refused_at_connect)
      << "the attempt that connected is not counted";
}

TEST(InetAddressTest, RejectsAMalformedAddress) {
  EXPECT_THROW(InetAddress("300.1.2.3", 80), std::invalid_argument);
  EXPECT_THROW(InetAddress("localhost", 80), std::invalid_argument);
  EXPECT_EQ(InetAddress("127.0.0.1", 8080).to_string(), "127.0.0.1:8080");
}

TEST(TcpServerTest, BindingATakenPortThrowsAClearError) {
  EventLoop loop;
  TcpServer<LinearBuffer> first(&loop, InetAddress("127.0.0.1", 0), "first");
  first.start();
  const std::uint16_t port = first.listen_address().port();
  try {
    TcpServer<LinearBuffer> second(&loop, InetAddress("127.0.0.1", port),
                                   "second");
    second.start();
    FAIL() << "a second server bound the same port";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(port)),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace serverkit::reactor
