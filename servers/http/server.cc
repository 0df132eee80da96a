// -----------------------------------------------------------------------------
// servers/http/server.cc
// -----------------------------------------------------------------------------
//
// Our HTTP server: the reactor (reactor/) with the HTTP/1.1 handler
// (http_handler.h), built with a chosen policy.
//
//   server <addr> <port> <threads> [--buffer=NAME] [--task_queue=NAME]
//          [--coalesce=0|1] [--logger=NAME] [--log_file=PATH]
//          [--task_queue_slowdown_ns=N] [--log_slowdown_ns=N]
//          [--pool=NAME] [--pool_threads=N] [--work_ns=N]
//          [--pool_slowdown_ns=N] [--buffer_slowdown_ns_per_kib=N]
//
// Every component and its control is chosen by components/by_name.h's flags
// (or their SERVERKIT_<FLAG> variables); --work_ns is this server's own.
// threads 1: one loop accepts and serves; N > 1: an accepting loop plus N
// I/O loops (as the ping-pong server and the peers). GET /collect answers
// {"ok":true}; see http_handler.h for keep-alive, pipelining, HEAD, Host,
// 100-continue, 400, 404, 405, 414 and 431. After a reply that closes (400,
// 414, 431, Connection: close, HTTP/1.0)
// the connection is half-closed once that reply has been written, so the
// peer always gets its tail.
//
// GET /work costs --work_ns of CPU per request (work.h: FNV-1a rounds,
// calibrated at startup) and answers {"work":"<digest>"}, the same body
// whatever runs it. With --pool=none (the default) the I/O thread runs it
// inline; with --pool=NAME (a kName of threadpool/all_pools.h) the I/O thread
// submits it to that pool (--pool_threads workers), and the task posts the
// reply back to the connection's loop. While a connection's /work is out,
// its later requests wait unparsed in its input buffer, so pipelined
// replies keep their order. A refused submit (the pool is shutting down)
// answers 503. --pool_slowdown_ns=N: the I/O thread spins N ns of CPU in
// each submit (slow on purpose: the pool's positive control). At a stop the
// pool is drained before the loops end; a reply whose connection has gone
// by then is counted as dropped on the pool's stop line.
//
// --logger: one access-log line per reply in nginx's "combined" format
//   $remote_addr - - [$time_local] "$request" $status $body_bytes_sent
//   "$http_referer" "$http_user_agent"
// through the named logger (after the logger's own prefix), to --log_file.
// The request line, Referer and User-Agent are escaped as nginx does
// (AppendLogEscaped), so a quote in them cannot split the line's fields.
//
// SIGINT / SIGTERM stop it cleanly; it then prints its counters to stderr,
// and one line per loop (connections, replies, busy polls) for the driver.

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "components/by_name.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"
#include "servers/common/poller_stats_line.h"
#include "servers/common/server_main.h"
#include "servers/common/server_policy.h"
#include "servers/http/http_handler.h"
#include "servers/http/work.h"
#include "servers/pingpong/common.h"

namespace serverkit::http {
namespace {

using components::Fail;
using components::Options;
using reactor::Clock;
using reactor::EventLoop;
using reactor::TcpServer;

constexpr const char* kProgram = "server";

constexpr const char* kWorkHelp =
    "  --work_ns=N         CPU cost of one GET /work (default 20000), on "
    "--pool\n"
    "                      (none: inline on the I/O thread)\n";

// One access-log line: the peer's address and the reply.
using LogLine = void(std::string_view remote_addr, const ReplyRecord& r);

// $time_local ("23/Nov/2026:17:29:16 +0000"), formatted once a second per
// thread.
std::string_view TimeLocal() {
  thread_local std::time_t last = -1;
  thread_local char text[64];
  const std::time_t now = std::time(nullptr);
  if (now != last) {
    last = now;
    std::tm tm{};
    localtime_r(&now, &tm);
    if (std::strftime(text, sizeof(text), "%d/%b/%Y:%H:%M:%S %z", &tm) == 0)
      text[0] = 0;
  }
  return text;
}

// One loop's share, for the stop line: how evenly connections were spread,
// and (with the loop's counters) how many replies one wake-up served.
struct LoopTally {
  explicit LoopTally(const EventLoop* l) : loop(l) {}
  const EventLoop* const loop;
  std::atomic<std::uint64_t> connections{0}, open{0}, max_open{0}, replies{0};
};

class LoopTallies {
 public:
  // The tally of `loop`, made on its first connection.
  LoopTally* of(const EventLoop* loop) {
    std::lock_guard<std::mutex> lock(mu_);
    if (LoopTally* t = find_locked(loop)) return t;
    tallies_.push_back(std::make_unique<LoopTally>(loop));
    return tallies_.back().get();
  }
  // Null for a loop that had no connection.
  const LoopTally* find(const EventLoop* loop) const {
    std::lock_guard<std::mutex> lock(mu_);
    return find_locked(loop);
  }

 private:
  LoopTally* find_locked(const EventLoop* loop) const {
    for (const auto& t : tallies_) {
      if (t->loop == loop) return t.get();
    }
    return nullptr;
  }

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<LoopTally>> tallies_;
};

// Per-connection state, kept by the connection's loop thread.
struct Conn {
  Conn(bool record, std::string addr, LoopTally* t)
      : handler(record), remote_addr(std::move(addr)), tally(t) {
    handler.enable_work_route();
  }
  HttpHandler handler;
  std::string remote_addr;
  std::string out;
  LoopTally* tally;
  bool waiting = false;  // a /work task is out on the pool
  // Its body when it came back (empty: it failed, answer 503).
  std::optional<std::string> work_reply;
  bool peer_closed = false;      // held open (hold_open) until it comes back
  bool reading_stopped = false;  // too much input held behind the /work
};

// Input held behind an outstanding /work beyond this stops the
// connection's reads until the reply is in: the client's pipeline waits in
// the kernel's socket buffers, not in our memory (TCP backpressure).
constexpr std::size_t kHeldInputBytes = 256 * 1024;

// The /work route's choices and counters, shared by every loop.
struct WorkRoute {
  std::uint32_t work_ns = 20'000;
  const WorkCost* cost = nullptr;  // set by Serve once calibrated
  // Memory ordering: relaxed; read for the stop line once the loops ended.
  std::atomic<std::uint64_t> inline_runs{0}, tasks_run{0}, task_failures{0},
      dropped_replies{0}, unavailable{0}, reads_stopped{0};
};

// The busy polls and events of each loop, read while the loops exist.
struct LoopCounts {
  const EventLoop* loop;
  std::uint64_t busy_polls, events;
};

std::vector<LoopCounts> CountLoops(const std::vector<EventLoop*>& loops) {
  std::vector<LoopCounts> out;
  for (const EventLoop* l : loops) {
    out.push_back({l, l->busy_polls(), l->events()});
  }
  return out;
}

// One line per loop: its connections, replies and wake-ups.
void PrintLoops(const std::vector<LoopCounts>& counts,
                const LoopTallies& tallies) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const LoopCounts& c = counts[i];
    const LoopTally* t = tallies.find(c.loop);
    const auto get = [t](const std::atomic<std::uint64_t> LoopTally::*m) {
      return t == nullptr ? 0ULL
                          : static_cast<unsigned long long>((t->*m).load());
    };
    const double polls = static_cast<double>(c.busy_polls);
    std::fprintf(
        stderr,
        "server: loop %zu: connections %llu (at most %llu open), "
        "replies %llu, busy polls %llu, events per poll %.2f, "
        "replies per poll %.2f\n",
        i, get(&LoopTally::connections), get(&LoopTally::max_open),
        get(&LoopTally::replies), static_cast<unsigned long long>(c.busy_polls),
        polls > 0 ? static_cast<double>(c.events) / polls : 0.0,
        polls > 0 ? static_cast<double>(get(&LoopTally::replies)) / polls
                  : 0.0);
  }
}

// Counters over all connections.
struct Totals {
  std::atomic<std::uint64_t> connections{0}, requests{0}, ok{0}, not_found{0},
      bad_method{0}, bad_request{0}, head_too_large{0}, uri_too_long{0},
      unavailable{0};
  void add(const HandlerStats& s) {
    constexpr auto r = std::memory_order_relaxed;
    requests.fetch_add(s.requests, r);
    ok.fetch_add(s.ok, r);
    not_found.fetch_add(s.not_found, r);
    bad_method.fetch_add(s.bad_method, r);
    bad_request.fetch_add(s.bad_request, r);
    head_too_large.fetch_add(s.head_too_large, r);
    uri_too_long.fetch_add(s.uri_too_long, r);
    unavailable.fetch_add(s.unavailable, r);
  }
};

// The connections of the calling loop thread (initialized in each thread on
// its first call). Shared, so that a /work reply coming back from the pool
// holds a weak pointer that tells whether its connection is still there.
std::unordered_map<const void*, std::shared_ptr<Conn>>& LoopConns() {
  thread_local std::unordered_map<const void*, std::shared_ptr<Conn>> conns;
  return conns;
}

struct Args {
  std::string addr;
  int port = 0;
  int threads = 1;
};

Args ParseArgs(const std::vector<char*>& rest) {
  const std::string usage =
      std::string("usage: server <addr> <port> <threads> [flags]\n") +
      components::Help() + kWorkHelp;
  if (rest.size() == 2 && std::string_view(rest[1]) == "--help") {
    std::fputs(usage.c_str(), stdout);
    std::exit(0);
  }
  if (rest.size() != 4) Fail(kProgram, "expected 3 arguments\n" + usage);
  Args a;
  a.addr = rest[1];
  const auto port = pingpong::ParseLong(rest[2]);
  const auto threads = pingpong::ParseLong(rest[3]);
  if (!port || *port > 65535)
    Fail(kProgram, std::string("bad port '") + rest[2] + "'");
  if (!threads || *threads < 1 || *threads > 256) {
    Fail(kProgram, std::string("bad thread count '") + rest[3] + "'");
  }
  a.port = static_cast<int>(*port);
  a.threads = static_cast<int>(*threads);
  return a;
}

template <typename B>
int Serve(const Args& args, const Options& po, WorkRoute& route,
          const components::TaskQueueFactory& make_queue,
          const std::function<LogLine>& log_line) {
  auto loop_options = [&] { return components::LoopOptions(make_queue, po); };
  // Destroyed before the stop line: it runs the /work replies posted to it
  // after its loop ended, which the line counts.
  auto base = std::make_unique<EventLoop>(loop_options());
  const WorkCost cost = WorkCost::Calibrated(route.work_ns);
  route.cost = &cost;
  // Built here, after RunServer blocked the stop signals in this thread,
  // so that its workers inherit the mask.
  const std::unique_ptr<components::Pool> pool =
      components::MakePool(kProgram, po);
  std::unique_ptr<TcpServer<B>> server =
      servers::ListenOrFail<B>(kProgram, base.get(), args.addr, args.port,
                               args.threads, "http", loop_options);

  Totals totals;
  LoopTallies tallies;
  const bool logging = static_cast<bool>(log_line);
  server->set_connection_callback(
      [&](const reactor::TcpConnectionPtr<B>& conn) {
        auto& conns =
            LoopConns();  // each loop thread keeps its own connections
        if (conn->connected()) {
          std::string addr = conn->peer_address().to_string();
          addr.resize(addr.rfind(':') == std::string::npos ? addr.size()
                                                           : addr.rfind(':'));
          LoopTally* tally = tallies.of(conn->loop());
          conns[conn.get()] =
              std::make_shared<Conn>(logging, std::move(addr), tally);
          totals.connections.fetch_add(1, std::memory_order_relaxed);
          tally->connections.fetch_add(1, std::memory_order_relaxed);
          const std::uint64_t open =
              tally->open.fetch_add(1, std::memory_order_relaxed) + 1;
          if (open > tally->max_open.load(std::memory_order_relaxed)) {
            tally->max_open.store(open, std::memory_order_relaxed);
          }
        } else if (auto it = conns.find(conn.get()); it != conns.end()) {
          const HandlerStats& stats = it->second->handler.stats();
          totals.add(stats);
          LoopTally* tally = it->second->tally;
          tally->replies.fetch_add(stats.requests, std::memory_order_relaxed);
          tally->open.fetch_sub(1, std::memory_order_relaxed);
          conns.erase(it);
        }
      });
  // Feeds the connection's input to its handler, answering /work inline or
  // through the pool, until the input is used up or a /work is out; then
  // sends what was answered. Loop thread.
  std::function<void(const reactor::TcpConnectionPtr<B>&, Conn&, B*)> pump;
  // The reply of a /work task, back in the connection's loop.
  const auto work_done =
      [&route, &pump](const std::weak_ptr<reactor::TcpConnection<B>>& wc,
                      const std::weak_ptr<Conn>& ws, const std::string& body) {
        const std::shared_ptr<Conn> state = ws.lock();
        const reactor::TcpConnectionPtr<B> conn = wc.lock();
        if (!state || !conn || !state->waiting) {
          route.dropped_replies.fetch_add(1, std::memory_order_relaxed);
          return;
        }
        state->waiting = false;
        state->work_reply = body;
        pump(conn, *state, conn->input_buffer());
        if (state->reading_stopped &&
            (!state->waiting ||
             conn->input_buffer()->readable_bytes() < kHeldInputBytes)) {
          state->reading_stopped = false;
          conn->start_reading();
        }
      };
  // Starts the pending /work: inline, or on the pool (Conn.waiting).
  const auto start_work = [&](const reactor::TcpConnectionPtr<B>& conn, Conn& c,
                              const ReplyCallback& on_reply) {
    if (!pool) {
      c.handler.complete_work(200, cost.Run(), &c.out, on_reply);
      route.inline_runs.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    auto it = LoopConns().find(conn.get());
    // Weak pointers: the task must not keep a connection alive, nor free it
    // on a worker thread.
    Task task([wc = std::weak_ptr<reactor::TcpConnection<B>>(conn),
               ws = std::weak_ptr<Conn>(it->second), loop = conn->loop(),
               &route, &work_done] {
      std::string body;
      try {
        body = route.cost->Run();
      } catch (...) {
        route.task_failures.fetch_add(1, std::memory_order_relaxed);
      }
      route.tasks_run.fetch_add(1, std::memory_order_relaxed);
      loop->queue_in_loop([wc, ws, body = std::move(body), &work_done] {
        work_done(wc, ws, body);
      });
    });
    if (pool->try_submit(std::move(task))) {
      c.waiting = true;
    } else {
      c.handler.complete_work(503, {}, &c.out, on_reply);
    }
  };
  pump = [&](const reactor::TcpConnectionPtr<B>& conn, Conn& c, B* in) {
    ReplyCallback on_reply;
    if (logging) {
      on_reply = [&log_line, &c](const ReplyRecord& r) {
        log_line(c.remote_addr, r);
      };
    }
    while (!c.waiting) {
      if (c.handler.work_pending() && c.work_reply) {
        const std::string body = std::move(*c.work_reply);
        c.work_reply.reset();
        c.handler.complete_work(body.empty() ? 503 : 200, body, &c.out,
                                on_reply);
        continue;
      }
      if (c.handler.work_pending()) {
        start_work(conn, c, on_reply);
        continue;
      }
      if (in->readable_bytes() == 0) break;
      const auto spans = in->readable();
      const std::size_t used = c.handler.feed(
          std::string_view(spans.first.data(), spans.first.size()), &c.out,
          on_reply);
      components::ChargeConsumed(po, used);
      in->retrieve(used);
    }
    if (!c.out.empty()) {
      conn->send(c.out);
      c.out.clear();
    }
    // Half-close once the reply is written (never drops its tail).
    if (c.handler.should_close()) conn->shutdown();
    // Held open for a /work reply (the half-close callback): it is out.
    if (c.peer_closed && !c.waiting) conn->close_when_drained();
  };
  server->set_message_callback([&](const reactor::TcpConnectionPtr<B>& conn,
                                   B* in, Clock::time_point) {
    auto& conns = LoopConns();
    auto it = conns.find(conn.get());
    if (it == conns.end()) {
      in->retrieve_all();
      return;
    }
    // While a /work is out, the bytes wait in `in` (pump resumes them),
    // up to kHeldInputBytes: then reading stops until the reply.
    Conn& c = *it->second;
    if (!c.waiting) {
      pump(conn, c, in);
    } else if (!c.reading_stopped && in->readable_bytes() >= kHeldInputBytes) {
      c.reading_stopped = true;
      route.reads_stopped.fetch_add(1, std::memory_order_relaxed);
      conn->stop_reading();
    }
  });
  // A peer that half-closes while its /work is out still gets the reply.
  server->set_half_close_callback(
      [&](const reactor::TcpConnectionPtr<B>& conn) {
        auto& conns = LoopConns();
        auto it = conns.find(conn.get());
        if (it != conns.end() && it->second->waiting) {
          it->second->peer_closed = true;
          conn->hold_open();
        }
      });
  server->start();
  std::fprintf(
      stderr,
      "server: listening on %s, %d I/O thread(s), buffer %s, task queue %s, "
      "coalesce %d, logger %s\n",
      server->listen_address().to_string().c_str(), args.threads,
      std::string(B::kName).c_str(),
      std::string(base->task_queue_name()).c_str(), po.coalesce ? 1 : 0,
      po.logger.c_str());
  std::fprintf(stderr,
               "server: /work costs %u ns: %llu rounds of %.1f ns, on %s "
               "(%zu thread(s)), submit slowdown %u ns\n",
               route.work_ns, static_cast<unsigned long long>(cost.rounds()),
               cost.ns_per_round(), pool ? po.pool.c_str() : "the I/O thread",
               pool ? pool->workers() : std::size_t{0}, po.pool_slowdown_ns);
  servers::LoopUntilStopped(base.get());
  // Every accepted task runs and posts its reply before the loops end.
  if (pool) pool->shutdown(ShutdownMode::kDrain);
  servers::PrintPollerStats(server->loops(), base.get());
  const std::vector<LoopCounts> loop_counts = CountLoops(server->loops());
  server.reset();  // connections still open report their counters on the way
  base.reset();
  std::fprintf(
      stderr,
      "server: stopped; connections %llu, replies %llu (200: %llu, 404: %llu, "
      "405: %llu, 400: %llu, 431: %llu, 414: %llu)\n",
      static_cast<unsigned long long>(totals.connections.load()),
      static_cast<unsigned long long>(totals.requests.load()),
      static_cast<unsigned long long>(totals.ok.load()),
      static_cast<unsigned long long>(totals.not_found.load()),
      static_cast<unsigned long long>(totals.bad_method.load()),
      static_cast<unsigned long long>(totals.bad_request.load()),
      static_cast<unsigned long long>(totals.head_too_large.load()),
      static_cast<unsigned long long>(totals.uri_too_long.load()));
  PrintLoops(loop_counts, tallies);
  std::fprintf(
      stderr,
      "server: pool %s: tasks run %llu, failed submits %llu, inline runs "
      "%llu, task failures %llu, replies dropped (connection gone) %llu, "
      "503 replies %llu, reads stopped (input held) %llu\n",
      po.pool.c_str(), static_cast<unsigned long long>(route.tasks_run.load()),
      static_cast<unsigned long long>(pool ? pool->failed_submits() : 0),
      static_cast<unsigned long long>(route.inline_runs.load()),
      static_cast<unsigned long long>(route.task_failures.load()),
      static_cast<unsigned long long>(route.dropped_replies.load()),
      static_cast<unsigned long long>(totals.unavailable.load()),
      static_cast<unsigned long long>(route.reads_stopped.load()));
  return 0;
}

// Takes the /work route's flag into `route`; false when `arg` is not it. A
// bad value fails (exit 2) with what is valid.
bool TakeWorkFlag(std::string_view arg, WorkRoute* route) {
  if (auto v = components::FlagValue(arg, "--work_ns")) {
    route->work_ns = components::ParseNs(kProgram, "--work_ns", *v);
    return true;
  }
  return false;
}

int Main(int argc, char** argv) {
  Options po;
  WorkRoute route;
  const std::vector<char*> rest = components::TakeFlags(
      argc, argv, kProgram, &po, components::kAllFamilies,
      [&route](std::string_view a) { return TakeWorkFlag(a, &route); });
  const Args args = ParseArgs(rest);

  return servers::RunServer<LogLine>(
      kProgram, po,
      [](auto* l) -> std::function<LogLine> {
        return [l](std::string_view addr, const ReplyRecord& r) {
          if (r.request_line_complete) {
            thread_local std::string target, referer, user_agent;
            SK_LOG_INFO(*l, kAccessLogFormat, addr, TimeLocal(), r.method,
                        LogEscaped(r.target, &target), r.http_major,
                        r.http_minor, r.status, r.body_bytes,
                        OrDash(LogEscaped(r.referer, &referer)),
                        OrDash(LogEscaped(r.user_agent, &user_agent)));
          } else {
            SK_LOG_INFO(*l, kAccessLogFormatNoRequest, addr, TimeLocal(),
                        r.status, r.body_bytes);
          }
        };
      },
      [&]<typename B>(const components::TaskQueueFactory& make_queue,
                      const std::function<LogLine>& log_line) {
        return Serve<B>(args, po, route, make_queue, log_line);
      });
}

}  // namespace
}  // namespace serverkit::http

int main(int argc, char** argv) { return serverkit::http::Main(argc, argv); }
