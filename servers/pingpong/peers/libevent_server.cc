// -----------------------------------------------------------------------------
// servers/pingpong/peers/libevent_server.cc
// -----------------------------------------------------------------------------
//
// The libevent 2.1 ping-pong server, written the idiomatic way:
//
//   libevent_server <addr> <port> <threads> [--protocol=echo|header]
//                   [--max_body=N]
//
//   - one event_base per thread. With 1 thread the main base accepts and
//     serves; with N > 1 an evconnlistener on the main base hands each
//     accepted fd round-robin to N worker bases (muduo's model, which all
//     servers of the sweep follow). The hand-off is `event_base_once` on the
//     worker base (thread-safe after evthread_use_pthreads(); the worker is
//     woken through its notify fd), and the worker creates the bufferevent in
//     its own thread, so bufferevents need no locks;
//   - per connection: TCP_NODELAY, a bufferevent (BEV_OPT_CLOSE_ON_FREE) with
//     read and event callbacks; on the peer's EOF with output still queued
//     it stops reading, writes the rest, then frees the bufferevent (a
//     half-closing peer gets every byte);
//   - echo: evbuffer_add_buffer(output, input), a zero-copy chain move
//     (chenshuo/recipes pingpong/libevent/server.c);
//   - header: evbuffer_copyout the 8-byte header, wait for the whole body,
//     then evbuffer_remove_buffer the message into the output; body_size >
//     --max_body frees the connection with one line on stderr.
//
// libevent 2.1 reads at most 4096 bytes per read call (EVBUFFER_MAX_READ in
// buffer.c, plus a FIONREAD ioctl per read); evbuffer_set_max_read() to raise
// it exists only from 2.2. At 16 KiB blocks this cap, not the reactor, sets
// much of libevent's figure.

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <event2/util.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "servers/common/process.h"
#include "servers/pingpong/common.h"

namespace serverkit::pingpong {
namespace {

struct Server;

// Carries an accepted fd to the base that will own it.
struct Handoff {
  Server* server;
  event_base* base;
  evutil_socket_t fd;
};

struct Server {
  ServerOptions opt;
  event_base* main_base = nullptr;
  std::vector<event_base*> workers;
  std::size_t next = 0;
  bool logged_accept_error = false;
};

void LogClose(bufferevent* bev, const Header& h, std::uint32_t max_body) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  char host[64] = "?";
  unsigned port = 0;
  if (getpeername(bufferevent_getfd(bev), reinterpret_cast<sockaddr*>(&ss),
                  &len) == 0 &&
      ss.ss_family == AF_INET) {
    const auto* sin = reinterpret_cast<const sockaddr_in*>(&ss);
    evutil_inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
    port = ntohs(sin->sin_port);
  }
  std::fprintf(stderr,
               "libevent_server: closing connection from %s:%u: body_size %u > "
               "max_body %u\n",
               host, port, h.body_size, max_body);
}

void EchoRead(bufferevent* bev, void*) {
  evbuffer_add_buffer(bufferevent_get_output(bev), bufferevent_get_input(bev));
}

void HeaderRead(bufferevent* bev, void* arg) {
  const auto* server = static_cast<const Server*>(arg);
  evbuffer* input = bufferevent_get_input(bev);
  evbuffer* output = bufferevent_get_output(bev);
  for (;;) {
    const std::size_t have = evbuffer_get_length(input);
    if (have < kHeaderSize) return;
    char raw[kHeaderSize];
    evbuffer_copyout(input, raw, kHeaderSize);
    const Header h = DecodeHeader(raw);
    if (h.body_size > server->opt.max_body) {
      LogClose(bev, h, server->opt.max_body);
      bufferevent_free(bev);
      return;
    }
    const std::size_t size = kHeaderSize + h.body_size;
    if (have < size) return;  // wait for the rest of the body
    evbuffer_remove_buffer(input, output, size);
  }
}

// After the peer's half-close: a bufferevent's write callback runs when its
// output has drained to the write low watermark (0), and then it is freed.
void FreeWhenDrained(bufferevent* bev, void*) {
  if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
    bufferevent_free(bev);
}

void OnEvent(bufferevent* bev, short events, void* arg) {
  if ((events & BEV_EVENT_EOF) && !(events & BEV_EVENT_ERROR) &&
      evbuffer_get_length(bufferevent_get_output(bev)) > 0) {
    bufferevent_disable(bev, EV_READ);
    bufferevent_setcb(bev, nullptr, FreeWhenDrained, OnEvent, arg);
    return;
  }
  if (events & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) bufferevent_free(bev);
}

// Runs in the thread of `base`.
void SetUpConnection(Server* server, event_base* base, evutil_socket_t fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  bufferevent* bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
  if (bev == nullptr) {
    evutil_closesocket(fd);
    return;
  }
  bufferevent_setcb(
      bev, server->opt.protocol == Protocol::kEcho ? EchoRead : HeaderRead,
      nullptr, OnEvent, server);
  bufferevent_enable(bev, EV_READ | EV_WRITE);
}

void OnHandoff(evutil_socket_t, short, void* arg) {
  std::unique_ptr<Handoff> h(static_cast<Handoff*>(arg));
  SetUpConnection(h->server, h->base, h->fd);
}

void OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg) {
  auto* server = static_cast<Server*>(arg);
  if (server->workers.empty()) {
    SetUpConnection(server, server->main_base, fd);
    return;
  }
  event_base* base = server->workers[server->next];
  server->next = (server->next + 1) % server->workers.size();
  auto* h = new Handoff{server, base, fd};
  if (event_base_once(base, -1, EV_TIMEOUT, OnHandoff, h, nullptr) != 0) {
    delete h;
    evutil_closesocket(fd);
  }
}

// Out of descriptors (or another accept error): the pending connection stays
// in the backlog, so a level-triggered listener would spin. Log once, pause
// the listener 100 ms.
void OnAcceptError(evconnlistener* listener, void* arg) {
  auto* server = static_cast<Server*>(arg);
  const int err = EVUTIL_SOCKET_ERROR();
  if (!server->logged_accept_error) {
    server->logged_accept_error = true;
    std::fprintf(stderr,
                 "libevent_server: accept: %s (pausing accepts 100 ms at a "
                 "time; not logged again)\n",
                 evutil_socket_error_to_string(err));
  }
  evconnlistener_disable(listener);
  const timeval pause = {0, 100 * 1000};
  event_base_once(
      server->main_base, -1, EV_TIMEOUT,
      [](evutil_socket_t, short, void* l) {
        evconnlistener_enable(static_cast<evconnlistener*>(l));
      },
      listener, &pause);
}

int Main(int argc, char** argv) {
  Server server;
  server.opt = ParseServerArgs(
      argc, argv, "libevent_server",
      "libevent " EVENT__VERSION
      ": one event_base per thread, bufferevents. libevent 2.1 reads at most "
      "4096 bytes per read call\n"
      "(EVBUFFER_MAX_READ; evbuffer_set_max_read exists only from 2.2), which "
      "caps it at 16 KiB blocks.\n");
  std::signal(SIGPIPE, SIG_IGN);
  servers::RaiseFdLimit();
  if (evthread_use_pthreads() != 0) {
    std::fprintf(stderr, "libevent_server: evthread_use_pthreads failed\n");
    return 1;
  }
  server.main_base = event_base_new();
  if (server.main_base == nullptr) return 1;
  if (server.opt.threads > 1) {
    for (int i = 0; i < server.opt.threads; ++i) {
      event_base* b = event_base_new();
      if (b == nullptr) return 1;
      server.workers.push_back(b);
    }
  }

  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<std::uint16_t>(server.opt.port));
  if (evutil_inet_pton(AF_INET, server.opt.addr.c_str(), &sin.sin_addr) != 1) {
    std::fprintf(stderr, "libevent_server: bad IPv4 address %s\n",
                 server.opt.addr.c_str());
    return 2;
  }
  evconnlistener* listener = evconnlistener_new_bind(
      server.main_base, OnAccept, &server,
      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
      SOMAXCONN, reinterpret_cast<sockaddr*>(&sin), sizeof(sin));
  if (listener == nullptr) {
    std::fprintf(stderr, "libevent_server: cannot listen on %s:%d: %s\n",
                 server.opt.addr.c_str(), server.opt.port,
                 evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
    return 1;
  }
  evconnlistener_set_error_cb(listener, OnAcceptError);

  std::vector<std::thread> threads;
  for (event_base* b : server.workers) {
    threads.emplace_back([b] { event_base_loop(b, EVLOOP_NO_EXIT_ON_EMPTY); });
  }
  event_base_dispatch(server.main_base);  // until killed
  for (event_base* b : server.workers) event_base_loopbreak(b);
  for (auto& t : threads) t.join();
  return 0;
}

}  // namespace
}  // namespace serverkit::pingpong

int main(int argc, char** argv) {
  return serverkit::pingpong::Main(argc, argv);
}
