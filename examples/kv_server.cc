// kv_server <port> <threads> <access_log>: a line protocol over TCP,
//   SET key value   -> "OK"
//   GET key         -> the value, or "NOT_FOUND"
//   SUM n           -> "SUM n = 1 + ... + n", computed on a thread pool
// one reply line per request. An example of serverkit used from a workspace
// of its own: the reactor's loops take a BoundedMpmcQueue as their task
// queue, connections a LinearBuffer, the access log a SyncLogger, and SUM a
// MutexPool whose tasks hand their replies back to the connection's loop.
// A SUM reply may overtake the replies to requests sent after it; each
// reply names its request, so a client matches them.

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "buffer/linear_buffer.h"
#include "logger/sync_logger.h"
#include "queues/bounded_mpmc_queue.h"
#include "reactor/event_loop.h"
#include "reactor/task_queue.h"
#include "reactor/tcp_server.h"
#include "threadpool/mutex_pool.h"

namespace {

using serverkit::LinearBuffer;
using serverkit::reactor::EventLoop;
using serverkit::reactor::TcpConnectionPtr;

constexpr std::size_t kMaxLine = 4096;

class Store {
 public:
  void set(std::string key, std::string value) {
    std::lock_guard<std::mutex> lock(mu_);
    map_[std::move(key)] = std::move(value);
  }
  std::string get(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = map_.find(key);
    return it == map_.end() ? "NOT_FOUND" : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> map_;
};

serverkit::reactor::EventLoopOptions LoopOptions() {
  serverkit::reactor::EventLoopOptions o;
  o.task_queue =
      serverkit::reactor::MakeTaskQueue<serverkit::BoundedMpmcQueue>();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: kv_server <port> <threads> <access_log>\n");
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const int threads = std::atoi(argv[2]);
  if (port <= 0 || port > 65535 || threads < 1 || threads > 64) {
    std::fprintf(stderr, "kv_server: bad port or thread count\n");
    return 2;
  }
  // SIGTERM and SIGINT go to one thread that asks the base loop to quit
  // (EventLoop::quit takes a lock: not for a signal handler). Blocked
  // here, before any thread starts, so every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  serverkit::LoggerOptions log_options;
  log_options.sink.path = argv[3];
  serverkit::SyncLogger access_log(log_options);  // throws on a bad path
  serverkit::MutexPool pool(2);
  Store store;

  EventLoop base(LoopOptions());
  serverkit::reactor::TcpServer<LinearBuffer> server(
      &base, serverkit::reactor::InetAddress("127.0.0.1", port), "kv", threads,
      LoopOptions);

  server.set_message_callback([&](const TcpConnectionPtr<LinearBuffer>& conn,
                                  LinearBuffer* in, auto) {
    for (;;) {
      const std::string_view all = in->peek();
      const auto eol = all.find('\n');
      if (eol == std::string_view::npos) {
        if (all.size() > kMaxLine) {
          conn->send("ERROR line too long\n");
          conn->shutdown();
        }
        return;
      }
      std::string line(all.substr(0, eol));
      in->retrieve(eol + 1);
      SK_LOG_INFO(access_log, "{} {}", conn->peer_address().to_string(), line);
      if (line.rfind("SET ", 0) == 0) {
        const auto space = line.find(' ', 4);
        if (space == std::string::npos) {
          conn->send("ERROR SET key value\n");
          continue;
        }
        store.set(line.substr(4, space - 4), line.substr(space + 1));
        conn->send("OK\n");
      } else if (line.rfind("GET ", 0) == 0) {
        conn->send(store.get(line.substr(4)) + "\n");
      } else if (line.rfind("SUM ", 0) == 0) {
        const long n = std::atol(line.c_str() + 4);
        // The sum runs on the pool; its reply goes back through the
        // connection's loop (send is thread-safe: it posts to the loop).
        if (!pool.try_submit([conn, n, line] {
              long long s = 0;
              for (long i = 1; i <= n; ++i) s += i;
              conn->send(line + " = " + std::to_string(s) + "\n");
            })) {
          conn->send("ERROR busy\n");
        }
      } else {
        conn->send("ERROR unknown request\n");
      }
    }
  });
  server.start();
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    base.quit();
  });
  std::printf("kv_server: listening on 127.0.0.1:%d\n", port);
  std::fflush(stdout);
  base.loop();
  stopper.join();
  // The pool's tasks send through the I/O loops: drain it while they run.
  pool.shutdown(serverkit::ShutdownMode::kDrain);
  std::printf("kv_server: stopped\n");
  return 0;
}
