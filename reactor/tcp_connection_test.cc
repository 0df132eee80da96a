// -----------------------------------------------------------------------------
// reactor/tcp_connection_test.cc
// -----------------------------------------------------------------------------
//
// TcpConnection over loopback, typed over every buffer: echo correctness for
// many sessions, bulk streams (received into storage of their own over
// io_uring) then small messages, a peer reset mid-message, our half-close
// delivering the queued output before EOF, and when a reply leaves.

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "buffer/all_buffers.h"
#include "gtest/gtest.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"
#include "reactor/tcp_test_support.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

template <typename B>
class TcpConnectionTest : public ::testing::Test {};
TYPED_TEST_SUITE(TcpConnectionTest, AllBuffersTypes, BufferNames);

TYPED_TEST(TcpConnectionTest, EchoesManySessionsExactly) {
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
TYPED_TEST(TcpConnectionTest, BulkStreamThenSmallMessagesEchoExactly) {
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
  const std::uint64_t bulk_rooms = RoomReceives(loop);
  if (ReceiveLimit(loop) > 0) {
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
  EXPECT_LE(RoomReceives(loop) - bulk_rooms, 1u);
}

// Without a budget for rooms (reactor/poller/uring_poller.h) a bulk stream
// stays on the provided-buffer ring, and still loses nothing.
TYPED_TEST(TcpConnectionTest, BulkStreamWithoutRoomBudgetStaysOnTheRing) {
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
  EXPECT_EQ(RoomReceives(conn_loop.load()), 0u);
}

TYPED_TEST(TcpConnectionTest, PeerResetMidMessageLeavesTheServerServing) {
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

TYPED_TEST(TcpConnectionTest, HalfCloseDeliversQueuedOutputThenEof) {
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

// Where a reply goes when its callback sends it: over readiness I/O (epoll,
// and io_uring's default) it is on the wire before the callback returns;
// over io_uring's completion I/O it waits for the loop's next submit (its
// poll, or the kFlushSends-th send). That wait is the batching which cost
// completion I/O its tail at set rates (docs/servers.md).
TYPED_TEST(TcpConnectionTest, AReplyLeavesInItsCallbackUnlessIoIsCompletion) {
  using B = TypeParam;
  const std::string msg = Pattern(100, 3);
  std::promise<int> client_fd;
  std::shared_future<int> client_fd_f = client_fd.get_future().share();
  std::promise<std::pair<bool, std::size_t>> seen;  // completion I/O, bytes
  bool answered = false;                            // the loop thread's
  ServerThread<B> server(1, [&](TcpServer<B>& s) {
    s.set_message_callback([&](const TcpConnectionPtr<B>& conn, B* in,
                               Clock::time_point) {
      if (answered || in->readable_bytes() < msg.size()) return;
      answered = true;
      conn->send(in);
      const bool completion = conn->loop()->completion_io() != nullptr;
      // Peek at the client's socket without returning to the loop.
      const int fd = client_fd_f.get();
      const auto deadline = Clock::now() + (completion ? 50ms : 5s);
      char buf[256];
      ssize_t n = 0;
      while (Clock::now() < deadline) {
        n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_PEEK);
        if (n >= static_cast<ssize_t>(msg.size())) break;
        std::this_thread::sleep_for(1ms);
      }
      seen.set_value(
          {completion, n > 0 ? static_cast<std::size_t>(n) : std::size_t{0}});
    });
  });
  Client c(server.port());
  ASSERT_TRUE(c.connected());
  client_fd.set_value(c.fd());
  ASSERT_TRUE(c.send_all(msg));
  auto f = seen.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  const auto [completion, bytes] = f.get();
  if (completion) {
    EXPECT_EQ(bytes, 0u) << "a completion send left before the loop's submit";
  } else {
    EXPECT_EQ(bytes, msg.size()) << "the reply was not sent in its callback";
  }
  EXPECT_EQ(c.recv_n(msg.size()), msg);
}

}  // namespace
}  // namespace serverkit::reactor
