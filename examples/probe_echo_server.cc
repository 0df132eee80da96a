// probe_echo_server --port=P [--workers=N] [--log_file=PATH]: a line-echo
// server of a user's own that does not use serverkit's components, with two
// SERVERKIT_PROBE sites (@serverkit//probe, its only serverkit dependency):
//
//   "queue_pop"  where a worker takes a request off the server's own queue
//                (a mutex and a condition variable between the readers and
//                the workers);
//   "log"        at the server's own log call, once per request.
//
// Each connection has a reader thread that splits its input into lines and
// queues each as a request; N workers (default 2) pop a request, log it and
// write the line back. Off, a probe costs one relaxed load; with
// SERVERKIT_PROBE=queue_pop:1000 a pass spins 1000 ns of CPU and is counted,
// and the counts are printed at exit (probe/probe.h), so `whatif --probe`
// can measure what a nanosecond at that site costs this server.
//
// SIGTERM or SIGINT stops it; it then prints to stderr
//   probe_echo_server: stopped; connections N, requests N
// and, with a probe on, the probe's own lines at exit.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "probe/probe.h"

namespace {

constexpr std::size_t kMaxLine = 4096;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "probe_echo_server: %s\n", message.c_str());
  std::exit(2);
}

// A connection's socket, closed when the last request that needs it is done.
struct Conn {
  explicit Conn(int f) : fd(f) {}
  ~Conn() { close(fd); }
  const int fd;
  std::mutex write_mu;  // one reply at a time on this socket
};

struct Request {
  std::shared_ptr<Conn> conn;
  std::string line;
};

// The server's own queue: many readers push, many workers pop.
class RequestQueue {
 public:
  void push(Request r) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      q_.push_back(std::move(r));
    }
    cv_.notify_one();
  }
  // The next request, or nullopt once closed and empty.
  std::optional<Request> pop() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return closed_ || !q_.empty(); });
    if (q_.empty()) return std::nullopt;
    SERVERKIT_PROBE("queue_pop");
    Request r = std::move(q_.front());
    q_.pop_front();
    return r;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Request> q_;
  bool closed_ = false;
};

// The server's own log: one line per request, under a mutex.
class Log {
 public:
  explicit Log(const char* path) : f_(std::fopen(path, "a")) {
    if (f_ == nullptr) {
      Die(std::string("cannot open the log '") + path +
          "': " + std::strerror(errno));
    }
  }
  ~Log() { std::fclose(f_); }
  void line(int fd, std::string_view text) {
    SERVERKIT_PROBE("log");
    std::lock_guard<std::mutex> lock(mu_);
    std::fprintf(f_, "fd %d %.*s\n", fd, static_cast<int>(text.size()),
                 text.data());
  }

 private:
  std::FILE* f_;
  std::mutex mu_;
};

bool WriteAll(int fd, const std::string& data) {
  for (std::size_t off = 0; off < data.size();) {
    const ssize_t n =
        send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

// Splits a connection's input into lines and queues each; a line over
// kMaxLine closes the connection.
void ReadLines(const std::shared_ptr<Conn>& conn, RequestQueue* queue) {
  std::string pending;
  char buf[4096];
  for (;;) {
    const ssize_t n = recv(conn->fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    pending.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t eol;
         (eol = pending.find('\n', start)) != std::string::npos;
         start = eol + 1) {
      queue->push(Request{conn, pending.substr(start, eol - start)});
    }
    pending.erase(0, start);
    if (pending.size() > kMaxLine) return;
  }
}

int ParseInt(const char* arg, const char* flag, int lo, int hi) {
  char* end = nullptr;
  const long v = std::strtol(arg, &end, 10);
  if (*arg == '\0' || *end != '\0' || v < lo || v > hi) {
    Die(std::string(flag) + " takes " + std::to_string(lo) + " to " +
        std::to_string(hi) + ", not '" + arg + "'");
  }
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  int port = -1, workers = 2;
  const char* log_path = "/dev/null";
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.rfind("--port=", 0) == 0) {
      port = ParseInt(argv[i] + 7, "--port", 0, 65535);
    } else if (a.rfind("--workers=", 0) == 0) {
      workers = ParseInt(argv[i] + 10, "--workers", 1, 64);
    } else if (a.rfind("--log_file=", 0) == 0) {
      log_path = argv[i] + 11;
    } else {
      Die("usage: probe_echo_server --port=P [--workers=N] [--log_file=PATH]");
    }
  }
  if (port < 0) Die("--port is required");

  // Blocked before any thread starts, so only the sigwait below takes them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const int listen_fd = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listen_fd, 128) != 0) {
    Die("cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
        std::strerror(errno));
  }

  Log log(log_path);
  RequestQueue queue;
  std::atomic<std::uint64_t> requests{0}, connections{0};
  std::vector<std::thread> pool;
  for (int i = 0; i < workers; ++i) {
    pool.emplace_back([&] {
      while (std::optional<Request> r = queue.pop()) {
        log.line(r->conn->fd, r->line);
        std::lock_guard<std::mutex> lock(r->conn->write_mu);
        WriteAll(r->conn->fd, r->line + "\n");
        requests.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }

  // The readers, and their sockets so that a stop can wake them.
  std::mutex readers_mu;
  std::vector<std::thread> readers;
  std::vector<std::weak_ptr<Conn>> conns;
  std::thread acceptor([&] {
    for (;;) {
      const int fd = accept(listen_fd, nullptr, nullptr);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // the listening socket was shut down: stop
      }
      connections.fetch_add(1, std::memory_order_relaxed);
      auto conn = std::make_shared<Conn>(fd);
      std::lock_guard<std::mutex> lock(readers_mu);
      conns.push_back(conn);
      readers.emplace_back([conn, &queue] { ReadLines(conn, &queue); });
    }
  });
  std::printf("probe_echo_server: listening on 127.0.0.1:%d, %d worker(s)\n",
              port, workers);
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  shutdown(listen_fd, SHUT_RDWR);
  acceptor.join();
  close(listen_fd);
  {
    std::lock_guard<std::mutex> lock(readers_mu);
    for (const auto& w : conns) {
      if (auto c = w.lock()) shutdown(c->fd, SHUT_RDWR);
    }
  }
  for (std::thread& t : readers) t.join();
  queue.close();  // the workers finish what was queued, then end
  for (std::thread& t : pool) t.join();
  std::fprintf(stderr,
               "probe_echo_server: stopped; connections %llu, requests %llu\n",
               static_cast<unsigned long long>(connections.load()),
               static_cast<unsigned long long>(requests.load()));
  return 0;  // the probe's counts are printed at exit
}
