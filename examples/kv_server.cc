// kv_server --port=P [--threads=N] [--work_ns=N] [component flags]: a line
// protocol over TCP,
//   SET key value   -> "OK"
//   GET key         -> the value, or "NOT_FOUND"
//   SUM n           -> "SUM n = 1 + ... + n", computed on a thread pool,
//                      which also spins --work_ns of CPU (default 20000):
//                      the expensive request, so that the pool matters
// one reply line per request, and one access-log line per request.
//
// An example of serverkit used from a workspace of its own, through the
// by-name library (@serverkit//components:by_name): every family is chosen
// at run time by the library's flags or their SERVERKIT_<FLAG> variables,
//   --task_queue=NAME  every loop's task queue (default bounded-mpmc)
//   --buffer=NAME      the connections' buffer (default linear)
//   --logger=NAME      the access log (default sync), to --log_file
//   --pool=NAME        where SUM runs (default mutex, --pool_threads=2)
// and each family's control (--task_queue_slowdown_ns, --log_slowdown_ns,
// --pool_slowdown_ns, --buffer_slowdown_ns_per_kib) works here too: this is
// what `bazel run //bench:whatif` fills a server's {policy} with. The pool's
// tasks hand their replies back to the connection's loop through its task
// queue. A SUM reply may overtake the replies to requests sent after it;
// each reply names its request, so a client matches them.
//
// SIGTERM or SIGINT stops it; it then prints one line to stderr:
//   kv_server: stopped; requests N (set N, get N, sum N, errors N), pool
//   NAME: tasks run N, failed submits N
// and then the library's (components::PrintCounts)
//   serverkit components: tasks run N, bytes in N, log lines N, pool tasks
//   run N

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "components/by_name.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"

namespace {

namespace components = serverkit::components;
using serverkit::reactor::EventLoop;
using serverkit::reactor::TcpConnectionPtr;

constexpr const char* kProgram = "kv_server";
constexpr std::size_t kMaxLine = 4096;

constexpr const char* kUsage =
    "usage: kv_server --port=P [--threads=N] [--work_ns=N] [flags]\n"
    "  --port=P            the TCP port on 127.0.0.1 (0: any free one)\n"
    "  --threads=N         I/O loops, 1 to 64 (default 2)\n"
    "  --work_ns=N         CPU cost of one SUM on the pool (default 20000)\n";

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

struct Args {
  int port = -1;
  int threads = 2;
  std::uint32_t work_ns = 20'000;
};

// Memory ordering: relaxed; counters read for the stop line.
struct Counters {
  std::atomic<std::uint64_t> set{0}, get{0}, sum{0}, errors{0}, sums_run{0};
};

// One access-log line: the peer and the request.
using LogLine = void(std::string_view peer, std::string_view request);

template <typename B>
int Serve(const Args& args, const components::Options& o,
          const components::TaskQueueFactory& make_queue,
          const std::function<LogLine>& log_line, components::Pool& pool) {
  auto loop_options = [&] { return components::LoopOptions(make_queue, o); };
  Store store;
  Counters n;
  EventLoop base(loop_options());
  serverkit::reactor::TcpServer<B> server(
      &base,
      serverkit::reactor::InetAddress("127.0.0.1",
                                      static_cast<std::uint16_t>(args.port)),
      "kv", args.threads, loop_options);

  server.set_message_callback(
      [&](const TcpConnectionPtr<B>& conn, B* in, auto) {
        for (;;) {
          const std::string_view all = in->peek();
          const auto eol = all.find('\n');
          if (eol == std::string_view::npos) {
            if (all.size() > kMaxLine) {
              n.errors.fetch_add(1, std::memory_order_relaxed);
              conn->send("ERROR line too long\n");
              conn->shutdown();
              in->retrieve_all();
            }
            return;
          }
          std::string line(all.substr(0, eol));
          components::ChargeConsumed(o, eol + 1);  // the buffer's control
          in->retrieve(eol + 1);
          if (log_line) log_line(conn->peer_address().to_string(), line);
          if (line.rfind("SET ", 0) == 0) {
            const auto space = line.find(' ', 4);
            if (space == std::string::npos) {
              n.errors.fetch_add(1, std::memory_order_relaxed);
              conn->send("ERROR SET key value\n");
              continue;
            }
            n.set.fetch_add(1, std::memory_order_relaxed);
            store.set(line.substr(4, space - 4), line.substr(space + 1));
            conn->send("OK\n");
          } else if (line.rfind("GET ", 0) == 0) {
            n.get.fetch_add(1, std::memory_order_relaxed);
            conn->send(store.get(line.substr(4)) + "\n");
          } else if (line.rfind("SUM ", 0) == 0) {
            n.sum.fetch_add(1, std::memory_order_relaxed);
            const long count = std::atol(line.c_str() + 4);
            // On the pool; the reply goes back through the connection's loop
            // (send from another thread posts to the loop's task queue).
            serverkit::Task task([conn, count, line, &n, &args] {
              components::SpinCpuNs(args.work_ns);
              long long s = 0;
              for (long i = 1; i <= count; ++i) s += i;
              n.sums_run.fetch_add(1, std::memory_order_relaxed);
              conn->send(line + " = " + std::to_string(s) + "\n");
            });
            if (!pool.try_submit(std::move(task))) {
              conn->send("ERROR busy\n");
            }
          } else {
            n.errors.fetch_add(1, std::memory_order_relaxed);
            conn->send("ERROR unknown request\n");
          }
        }
      });
  server.start();
  std::printf(
      "kv_server: listening on %s, %d I/O thread(s), task queue %s, buffer "
      "%s, logger %s, pool %s (%zu thread(s)), SUM costs %u ns\n",
      server.listen_address().to_string().c_str(), args.threads,
      std::string(base.task_queue_name()).c_str(),
      std::string(B::kName).c_str(), o.logger.c_str(),
      std::string(pool.name()).c_str(), pool.workers(), args.work_ns);
  std::fflush(stdout);

  // SIGTERM and SIGINT are blocked in every thread (main blocked them before
  // any started): one thread takes them and asks the base loop to quit.
  std::thread stopper([&base] {
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    int sig = 0;
    sigwait(&stop_signals, &sig);
    base.quit();
  });
  base.loop();
  stopper.join();
  // The pool's tasks send through the I/O loops: drain it while they run.
  pool.shutdown(serverkit::ShutdownMode::kDrain);
  const std::uint64_t requests = n.set + n.get + n.sum + n.errors;
  std::fprintf(stderr,
               "kv_server: stopped; requests %llu (set %llu, get %llu, sum "
               "%llu, errors %llu), pool %s: tasks run %llu, failed submits "
               "%llu\n",
               static_cast<unsigned long long>(requests),
               static_cast<unsigned long long>(n.set.load()),
               static_cast<unsigned long long>(n.get.load()),
               static_cast<unsigned long long>(n.sum.load()),
               static_cast<unsigned long long>(n.errors.load()),
               std::string(pool.name()).c_str(),
               static_cast<unsigned long long>(n.sums_run.load()),
               static_cast<unsigned long long>(pool.failed_submits()));
  components::PrintCounts(stderr);  // whatif counts operations from it
  return 0;
}

bool TakeOwnFlag(std::string_view a, Args* args) {
  const auto number = [&](const std::string& v, long lo, long hi) {
    char* end = nullptr;
    const long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || x < lo || x > hi) {
      components::Fail(kProgram, std::string(a.substr(0, a.find('='))) +
                                     " takes " + std::to_string(lo) + " to " +
                                     std::to_string(hi) + ", not '" + v + "'");
    }
    return x;
  };
  if (a == "--help") {
    std::fputs(kUsage, stdout);
    std::fputs(components::Help().c_str(), stdout);
    std::exit(0);
  }
  if (auto v = components::FlagValue(a, "--port")) {
    args->port = static_cast<int>(number(*v, 0, 65535));
  } else if (auto v = components::FlagValue(a, "--threads")) {
    args->threads = static_cast<int>(number(*v, 1, 64));
  } else if (auto v = components::FlagValue(a, "--work_ns")) {
    args->work_ns = components::ParseNs(kProgram, "--work_ns", *v);
  } else {
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // This server's defaults; the flags and SERVERKIT_<FLAG> override them.
  components::Options o;
  o.task_queue = "bounded-mpmc";
  o.buffer = "linear";
  o.logger = "sync";
  o.pool = "mutex";
  o.pool_threads = 2;
  Args args;
  const std::vector<char*> rest = components::TakeFlags(
      argc, argv, kProgram, &o, components::kAllFamilies,
      [&](std::string_view a) { return TakeOwnFlag(a, &args); });
  if (rest.size() > 1) {
    components::Fail(kProgram, std::string("unknown argument '") + rest[1] +
                                   "'\n" + kUsage + components::Help());
  }
  if (args.port < 0)
    components::Fail(kProgram, std::string("--port is required\n") + kUsage);
  if (o.pool == "none") {
    components::Fail(kProgram, "SUM needs a pool: --pool=NAME, not none");
  }

  // Blocked before any thread starts (an async logger's backend, the pool's
  // workers, the loops), so every thread inherits the mask and only the
  // stopper takes the signals.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const components::TaskQueueFactory make_queue =
      components::MakeTaskQueueFactory(kProgram, o);
  std::function<LogLine> log_line;
  const std::shared_ptr<void> logger = components::MakeLogger<LogLine>(
      kProgram, o,
      [](auto* l) -> std::function<LogLine> {
        return [l](std::string_view peer, std::string_view request) {
          SK_LOG_INFO(*l, "{} {}", peer, request);
        };
      },
      &log_line);
  const std::unique_ptr<components::Pool> pool =
      components::MakePool(kProgram, o);
  return components::WithBuffer(kProgram, o, [&]<typename B>() {
    return Serve<B>(args, o, make_queue, log_line, *pool);
  });
}
