// -----------------------------------------------------------------------------
// servers/loadgen/stall_echo_server.cc
// -----------------------------------------------------------------------------
//
// stall_echo_server [--port=0] [--size=64] [--stall_every=0] [--stall_ms=50]
//                   [--stall_offset=0] [--close_at=0] [--threads=1]
//
// A test helper: an epoll echo server on 127.0.0.1 that can stall. With
// --threads=N it runs N such loops, each on its own SO_REUSEPORT listener
// (the floor of a sweep whose servers run N threads); stalls and
// --close_at number messages over all connections, so they need one. Messages
// are `size` bytes; the server numbers them (1, 2, ...) in the order it reads
// them, over all connections. When a message's number is stall_offset mod
// stall_every, the server sleeps --stall_ms on its one thread before echoing
// it, so nothing is read or answered meanwhile: the stall coordinated omission
// hides. Each stall prints `stall K message N` on stdout. --close_at=N closes
// the connection that carries message N instead of echoing it (once; the others
// go on). Without stalls it is a plain fast echo server (the generator's
// ceiling is measured against it).
//
// Prints `port N` on stdout once listening; SIGTERM/SIGINT print
// `messages N stalls K most_per_read M loops_used L` (over all threads) and
// exit 0, M the most messages one read completed (1 when the client never
// has two in flight on one connection), L the loops that echoed any.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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
#include <vector>

#include "base/parse_number.h"

namespace {

// Set by the signal handler, read by every loop: lock-free, so both are
// allowed.
std::atomic<int> g_stop{0};
static_assert(std::atomic<int>::is_always_lock_free);

struct Flags {
  long port = 0;
  long size = 64;
  long stall_every = 0;
  long stall_ms = 50;
  long stall_offset = 0;
  long close_at = 0;
  long threads = 1;
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

struct Counts {
  long messages = 0;
  long stalls = 0;
  long most_per_read = 0;
};

// One loop: its own epoll set over listener `lfd` and the connections it
// accepts, until SIGTERM/SIGINT; its counts into *counts.
void Serve(int lfd, const Flags& f, Counts* counts) {
  const int ep = ::epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = lfd;
  ::epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  std::unordered_map<int, Conn> conns;
  long& messages = counts->messages;
  long& stalls = counts->stalls;
  long& most_per_read = counts->most_per_read;
  std::vector<char> storage(64 * 1024);
  char* const buf = storage.data();
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

  while (g_stop.load(std::memory_order_relaxed) == 0) {
    const int ready = ::epoll_wait(ep, events, 256, 100);
    for (int i = 0; i < ready; ++i) {
      const int fd = events[i].data.fd;
      if (fd == lfd) {
        int c;
        while ((c = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK)) >= 0) {
          const int one = 1;
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
      const ssize_t r = ::read(fd, buf, storage.size());
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
}

// A non-blocking listener on 127.0.0.1:port (0: any), with SO_REUSEPORT
// where `shared`; its port into *bound. -1, saying why, on failure.
int Listen(long port, bool shared, std::uint16_t* bound) {
  const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const int one = 1;
  ::setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (shared) ::setsockopt(lfd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  socklen_t len = sizeof addr;
  if (lfd < 0 || ::bind(lfd, reinterpret_cast<sockaddr*>(&addr), len) < 0 ||
      ::listen(lfd, 1024) < 0 ||
      ::getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len) < 0) {
    std::fprintf(stderr, "stall_echo_server: listen: %s\n",
                 std::strerror(errno));
    return -1;
  }
  *bound = ntohs(addr.sin_port);
  return lfd;
}

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
        !ParseFlag(a, "--close_at=", &f.close_at) &&
        !ParseFlag(a, "--threads=", &f.threads)) {
      std::fprintf(stderr, "stall_echo_server: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (f.size < 1 || f.port > 65535 || f.threads < 1 || f.threads > 256) {
    std::fprintf(stderr,
                 "stall_echo_server: bad --size, --port or --threads (1 to "
                 "256)\n");
    return 2;
  }
  if (f.threads > 1 && (f.stall_every > 0 || f.close_at > 0)) {
    std::fprintf(stderr,
                 "stall_echo_server: --stall_every and --close_at number "
                 "messages over all connections: they need --threads=1\n");
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_stop.store(1, std::memory_order_relaxed); };
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);

  const bool shared = f.threads > 1;
  std::uint16_t port = 0;
  std::vector<int> listeners;
  for (long i = 0; i < f.threads; ++i) {
    const int lfd = Listen(i == 0 ? f.port : port, shared, &port);
    if (lfd < 0) return 1;
    listeners.push_back(lfd);
  }
  std::printf("port %d\n", port);
  std::fflush(stdout);

  std::vector<Counts> counts(static_cast<std::size_t>(f.threads));
  std::vector<std::thread> loops;
  for (std::size_t i = 1; i < listeners.size(); ++i) {
    loops.emplace_back(Serve, listeners[i], std::cref(f), &counts[i]);
  }
  Serve(listeners[0], f, &counts[0]);
  for (std::thread& t : loops) t.join();
  long messages = 0;
  long stalls = 0;
  long most_per_read = 0;
  long loops_used = 0;
  for (const Counts& c : counts) {
    loops_used += c.messages > 0 ? 1 : 0;
    messages += c.messages;
    stalls += c.stalls;
    most_per_read = std::max(most_per_read, c.most_per_read);
  }
  std::printf("messages %ld stalls %ld most_per_read %ld loops_used %ld\n",
              messages, stalls, most_per_read, loops_used);
  return 0;
}
