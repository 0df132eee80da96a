// -----------------------------------------------------------------------------
// servers/http/peers/evhttp_server.cc
// -----------------------------------------------------------------------------
//
// The libevent 2.1 evhttp peer of the HTTP benchmark:
//
//   evhttp_server <addr> <port> <threads>
//
//   - one listening socket with TCP_NODELAY (its connections inherit it),
//     and per thread one event_base with its own evhttp
//     that accepts on that same socket (evhttp_accept_socket): each thread
//     accepts and serves its own connections, so nothing is shared between
//     threads but the listening socket (the kernel hands each connection to
//     whichever base's accept wins);
//   - GET /collect (any query: evhttp matches the path) answers 200
//     {"ok":true} with Content-Type application/json (evhttp adds
//     Content-Length and keep-alive as the request asks); another method on
//     it 405, any other path 404; headers over 8 KiB are refused by evhttp
//     (evhttp_set_max_headers_size);
//   - the main thread waits for SIGINT / SIGTERM, then ends every loop with
//     event_base_loopexit: a queued event that the loop runs even if its
//     thread has not entered event_base_dispatch yet (event_base_loopbreak
//     only sets a flag, which a loop clears when it starts, so a signal that
//     came right after start-up was lost and the server never stopped).

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/thread.h>
#include <event2/util.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "servers/common/process.h"
#include "servers/http/http_handler.h"
#include "servers/pingpong/common.h"

namespace serverkit::http {
namespace {

struct Worker {
  event_base* base = nullptr;
  evhttp* http = nullptr;
  evbuffer* body = nullptr;  // reused for every reply of this thread
};

void Collect(evhttp_request* req, void* arg) {
  auto* w = static_cast<Worker*>(arg);
  evkeyvalq* headers = evhttp_request_get_output_headers(req);
  evhttp_add_header(headers, "Content-Type", "application/json");
  if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
    evhttp_add_header(headers, "Allow", "GET");
    evbuffer_add(w->body, R"({"error":"error"})", 17);
    evhttp_send_reply(req, 405, "Method Not Allowed", w->body);
    return;
  }
  evbuffer_add(w->body, kCollectBody.data(), kCollectBody.size());
  evhttp_send_reply(req, HTTP_OK, "OK", w->body);
}

void NotFound(evhttp_request* req, void* arg) {
  auto* w = static_cast<Worker*>(arg);
  evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                    "application/json");
  evbuffer_add(w->body, R"({"error":"error"})", 17);
  evhttp_send_reply(req, HTTP_NOTFOUND, "Not Found", w->body);
}

int Listen(const char* addr, int port) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) return -1;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  // Accepted sockets inherit it (Linux): without it, a reply written while
  // the previous one is unacknowledged waits for the client's next segment.
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof(sin)) != 0 ||
      listen(fd, SOMAXCONN) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int Main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: evhttp_server <addr> <port> <threads>\n");
    return 2;
  }
  const auto port = pingpong::ParseLong(argv[2]);
  const auto threads = pingpong::ParseLong(argv[3]);
  if (!port || *port > 65535 || !threads || *threads < 1 || *threads > 256) {
    std::fprintf(stderr, "evhttp_server: bad port or thread count\n");
    return 2;
  }
  servers::RaiseFdLimit();
  // Every thread inherits the blocked signals; the main thread waits for them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  signal(SIGPIPE, SIG_IGN);
  evthread_use_pthreads();

  const int fd = Listen(argv[1], static_cast<int>(*port));
  if (fd < 0) {
    std::fprintf(stderr, "evhttp_server: cannot listen on %s:%ld: %s\n",
                 argv[1], *port, std::strerror(errno));
    return 2;
  }
  std::vector<Worker> workers(static_cast<std::size_t>(*threads));
  for (Worker& w : workers) {
    w.base = event_base_new();
    w.http = evhttp_new(w.base);
    w.body = evbuffer_new();
    if (w.base == nullptr || w.http == nullptr || w.body == nullptr ||
        // A descriptor of its own for the shared socket: each evhttp
        // closes the one it was given when freed.
        evhttp_accept_socket(w.http, fcntl(fd, F_DUPFD_CLOEXEC, 0)) != 0) {
      std::fprintf(stderr, "evhttp_server: cannot set up a base\n");
      return 2;
    }
    evhttp_set_max_headers_size(w.http, static_cast<ev_ssize_t>(kMaxHeadBytes));
    evhttp_set_allowed_methods(w.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
                                           EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |
                                           EVHTTP_REQ_DELETE);
    evhttp_set_cb(w.http, std::string(kCollectPath).c_str(), Collect, &w);
    evhttp_set_gencb(w.http, NotFound, &w);
  }
  std::vector<std::thread> running;
  for (Worker& w : workers) {
    running.emplace_back([b = w.base] { event_base_dispatch(b); });
  }
  std::fprintf(stderr, "evhttp_server: listening on %s:%ld, %ld thread(s)\n",
               argv[1], *port, *threads);
  int sig = 0;
  sigwait(&stop, &sig);
  for (Worker& w : workers) {
    if (event_base_loopexit(w.base, nullptr) != 0) {
      std::fprintf(stderr, "evhttp_server: cannot stop a loop\n");
      std::_Exit(1);  // its thread still runs: no orderly return
    }
  }
  for (auto& t : running) t.join();
  for (Worker& w : workers) {
    evhttp_free(w.http);  // its connections and its listener
    evbuffer_free(w.body);
    event_base_free(w.base);
  }
  close(fd);
  std::fprintf(stderr, "evhttp_server: stopped\n");
  return 0;
}

}  // namespace
}  // namespace serverkit::http

int main(int argc, char** argv) { return serverkit::http::Main(argc, argv); }
