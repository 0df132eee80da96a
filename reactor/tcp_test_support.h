// -----------------------------------------------------------------------------
// reactor/tcp_test_support.h
// -----------------------------------------------------------------------------
//
// What the TCP tests share: a blocking loopback client with timeouts, a
// TcpServer in a thread of its own, an echo set-up, byte patterns, the loop's
// completion-based receive figures, and the buffer types the typed tests run
// over.

#ifndef SERVERKIT_REACTOR_TCP_TEST_SUPPORT_H_
#define SERVERKIT_REACTOR_TCP_TEST_SUPPORT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include "base/type_list.h"
#include "buffer/all_buffers.h"
#include "gtest/gtest.h"
#include "reactor/completion_io.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"

namespace serverkit::reactor {

inline void SetBufferSize(int fd, int option, int bytes) {
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
                          [] { return EventLoopOptions{}; });
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

// The loop's completion-based receives (reactor/completion_io.h), 0 where
// it has none.
inline std::size_t ReceiveLimit(const EventLoop* loop) {
  const CompletionIo* io = loop->completion_io();
  return io != nullptr ? io->receive_limit() : 0;
}
inline std::uint64_t RoomReceives(const EventLoop* loop) {
  const CompletionIo* io = loop->completion_io();
  return io != nullptr ? io->room_receives() : 0;
}

inline std::string Pattern(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// The typed tests' parameters: every buffer, named by its kName.
class BufferNames {
 public:
  template <typename B>
  static std::string GetName(int) {
    return std::string(B::kName);
  }
};
using AllBuffersTypes = ApplyTypes<::testing::Types, AllBuffers>;

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_TCP_TEST_SUPPORT_H_
