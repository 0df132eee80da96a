// -----------------------------------------------------------------------------
// servers/loadgen/stall_echo_server.cc
// -----------------------------------------------------------------------------
//
// stall_echo_server [--port=0] [--size=64] [--stall_every=0] [--stall_ms=50]
//                   [--stall_offset=0] [--close_at=0]
//
// A test helper: a single-threaded epoll echo server on 127.0.0.1 that can
// stall. Messages are `size` bytes; the server numbers them (1, 2, ...) in
// the order it reads them, over all connections. When a message's number
// is stall_offset mod stall_every, the server sleeps --stall_ms on its one
// thread before echoing it, so nothing is read or answered meanwhile:
// the stall coordinated omission hides. Each stall prints
// `stall K message N` on stdout. --close_at=N closes the connection that
// carries message N instead of echoing it (once; the others go on). Without
// stalls it is a plain fast echo server (the generator's ceiling is measured
// against it).
//
// Prints `port N` on stdout once listening; SIGTERM/SIGINT print
// `messages N stalls K most_per_read M` and exit 0, M the most messages one
// read completed (1 when the client never has two in flight on one
// connection).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "base/parse_number.h"

namespace {

volatile std::sig_atomic_t g_stop = 0;

struct Flags {
  long port = 0;
  long size = 64;
  long stall_every = 0;
  long stall_ms = 50;
  long stall_offset = 0;
  long close_at = 0;
};

bool ParseFlag(std::string_view a, std::string_view name, long* out) {
  if (a.substr(0, name.size()) != name) return false;
  const auto v = serverkit::ParseNumber<long>(a.substr(name.size()));
  if (v) *out = *v;
  if (!v || *v < 0) {
    std::fprintf(stderr, "stall_echo_server: bad %s\n", a.data());
    std::exit(2);
  }
  return true;
}

struct Conn {
  std::string out;   // echo bytes the socket did not take yet
  long partial = 0;  // bytes of the message under way
};

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (!ParseFlag(a, "--port=", &f.port) &&
        !ParseFlag(a, "--size=", &f.size) &&
        !ParseFlag(a, "--stall_every=", &f.stall_every) &&
        !ParseFlag(a, "--stall_ms=", &f.stall_ms) &&
        !ParseFlag(a, "--stall_offset=", &f.stall_offset) &&
        !ParseFlag(a, "--close_at=", &f.close_at)) {
      std::fprintf(stderr, "stall_echo_server: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (f.size < 1 || f.port > 65535) {
    std::fprintf(stderr, "stall_echo_server: bad --size or --port\n");
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_stop = 1; };
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);

  const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const int one = 1;
  ::setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(f.port));
  socklen_t len = sizeof addr;
  if (::bind(lfd, reinterpret_cast<sockaddr*>(&addr), len) < 0 ||
      ::listen(lfd, 1024) < 0 ||
      ::getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len) < 0) {
    std::fprintf(stderr, "stall_echo_server: listen: %s\n",
                 std::strerror(errno));
    return 1;
  }
  std::printf("port %d\n", ntohs(addr.sin_port));
  std::fflush(stdout);

  const int ep = ::epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = lfd;
  ::epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  std::unordered_map<int, Conn> conns;
  long messages = 0;
  long stalls = 0;
  long most_per_read = 0;
  static char buf[64 * 1024];
  epoll_event events[256];

  auto close_conn = [&](int fd) {
    ::epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    conns.erase(fd);
  };
  // Writes what is buffered; returns false when the connection is gone.
  auto flush = [&](int fd, Conn& c) {
    while (!c.out.empty()) {
      const ssize_t w = ::send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (w > 0) {
        c.out.erase(0, static_cast<std::size_t>(w));
      } else if (w < 0 && errno == EINTR) {
        continue;
      } else if (w < 0 && errno == EAGAIN) {
        break;
      } else {
        close_conn(fd);
        return false;
      }
    }
    epoll_event e{};
    e.events = EPOLLIN | (c.out.empty() ? 0u : EPOLLOUT);
    e.data.fd = fd;
    ::epoll_ctl(ep, EPOLL_CTL_MOD, fd, &e);
    return true;
  };

  while (!g_stop) {
    const int n = ::epoll_wait(ep, events, 256, 100);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == lfd) {
        int c;
        while ((c = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK)) >= 0) {
          ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          epoll_event e{};
          e.events = EPOLLIN;
          e.data.fd = c;
          ::epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
          conns[c] = Conn{};
        }
        continue;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      Conn& c = it->second;
      if ((events[i].events & EPOLLOUT) && !flush(fd, c)) continue;
      if (!(events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))) continue;
      const ssize_t r = ::read(fd, buf, sizeof buf);
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        close_conn(fd);
        continue;
      }
      if (r < 0) continue;
      // Number the messages this read completes; stall or close on cue.
      long done = (c.partial + r) / f.size;
      c.partial = (c.partial + r) % f.size;
      most_per_read = std::max(most_per_read, done);
      bool closed = false;
      for (; done > 0; --done) {
        ++messages;
        if (messages == f.close_at) {
          close_conn(fd);
          closed = true;
          break;
        }
        if (f.stall_every > 0 && messages % f.stall_every == f.stall_offset) {
          ++stalls;
          std::printf("stall %ld message %ld\n", stalls, messages);
          std::fflush(stdout);
          std::this_thread::sleep_for(std::chrono::milliseconds(f.stall_ms));
        }
      }
      if (closed) continue;
      c.out.append(buf, static_cast<std::size_t>(r));
      flush(fd, c);
    }
  }
  std::printf("messages %ld stalls %ld most_per_read %ld\n", messages, stalls,
              most_per_read);
  return 0;
}
