// -----------------------------------------------------------------------------
// servers/pingpong/server.cc
// -----------------------------------------------------------------------------
//
// Our ping-pong server: the reactor (reactor/) built with a chosen policy.
//
//   server <addr> <port> <threads> [--protocol=echo|header] [--max_body=N]
//          [--buffer=NAME] [--task_queue=NAME] [--coalesce=0|1]
//          [--reply_via_queue] [--logger=NAME] [--log_file=PATH]
//          [--task_queue_slowdown_ns=N] [--log_slowdown_ns=N]
//          [--buffer_slowdown_ns_per_kib=N]
//
// The first five arguments are those of every server in the sweep (muduo's
// `server <addr> <port> <threads>`, plus the protocol). The rest pick the
// components, one at a time against the baseline policy (linear buffer,
// swap-vector task queue, coalesced wake-ups, no logging):
//
//   --buffer        a buffer of buffer/all_buffers.h (linear, ring, mirrored,
//                   string)
//   --task_queue    a multi-producer queue of queues/all_queues.h, for every
//                   loop's cross-thread task queue
//   --coalesce      share eventfd wake-ups between posts (default 1)
//   --reply_via_queue  the message callback hands each message to a separate
//                   worker loop, which posts the reply back to the
//                   connection's loop: two cross-thread posts per message,
//                   so the task queue matters
//   --logger        a logger of logger/all_loggers.h, writing one line per
//                   message to --log_file (default /dev/null); "none" (the
//                   default) logs nothing
//   --buffer_slowdown_ns_per_kib  every byte the message callback takes out
//                   of the input buffer costs N/1024 ns more CPU time, spun
//                   (components::ChargeConsumed) before they are consumed: the
//                   baseline buffer slowed on purpose, the validation's
//                   control for the buffer (sized in ns per KiB consumed)
//   (these and --task_queue_slowdown_ns and --log_slowdown_ns, the task
//   queue's and the logger's controls, are components/by_name.h's; the
//   buffer's control is charged here, through components::ChargeConsumed.)
//
// SIGINT / SIGTERM stop it cleanly; it then prints its counters to stderr:
//   server: stopped; messages N, closed for oversized body N, refused for
//   descriptors N, loop wake-ups N, tasks run N, bytes in N
// after one line of the pollers' counts, "serverkit uring: ..." or
// "serverkit epoll: ..." (servers/common/poller_stats_line.h);
// messages: replies (one log line each when a logger is on); tasks run: the
// tasks popped by every loop, the --reply_via_queue worker's included (one
// --task_queue_slowdown_ns each); bytes in: the bytes of every message the
// message callback consumed, on every protocol and path (the bytes of an
// oversized body, discarded with its connection, are not counted nor slowed).

#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "components/by_name.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"
#include "servers/common/poller_stats_line.h"
#include "servers/common/server_main.h"
#include "servers/common/server_policy.h"
#include "servers/pingpong/common.h"

namespace serverkit::pingpong {
namespace {

using components::Options;
using reactor::Clock;
using reactor::EventLoop;
using reactor::TcpServer;

constexpr const char* kProgram = "server";

constexpr const char* kExtraHelp =
    "  --reply_via_queue   reply through a worker loop (two cross-thread "
    "posts)\n";

// Every family but the pool; the buffer's control is charged in Consume.
constexpr unsigned kFamilies = components::kAllFamilies & ~components::kPool;

// One log line per message: "<conn> <bytes>". Type-erased so the server is
// instantiated once per buffer, not once per buffer and logger.
using LogLine = void(std::string_view conn, std::size_t bytes);

// ---- the server
// ---------------------------------------------------------------

// What the server counts and reports when it stops.
struct Counters {
  std::atomic<std::uint64_t> messages{0}, closed_oversized{0}, bytes_in{0};
};

// How the server answers a connection's messages: counts them, spins their
// cost with --buffer_slowdown_ns_per_kib, logs them, and replies directly
// or, with --reply_via_queue, through the worker loop.
template <typename B>
class Replier {
 public:
  using ConnPtr = reactor::TcpConnectionPtr<B>;

  Replier(Counters* counters, bool reply_via_queue, const Options& po,
          const std::function<LogLine>& log_line,
          const std::atomic<EventLoop*>* worker)
      : counters_(counters),
        reply_via_queue_(reply_via_queue),
        po_(po),
        log_line_(log_line),
        worker_(worker) {}

  // The echo protocol: whatever arrived goes back.
  void OnEcho(const ConnPtr& conn, B* in) const {
    Consume(in->readable_bytes());
    if (!reply_via_queue_ && !log_line_) {
      counters_->messages.fetch_add(1, std::memory_order_relaxed);
      conn->send(in);  // the plain echo: no copy out of the buffer
      return;
    }
    Reply(conn, in->retrieve_all_as_string());
  }

  // The header protocol: each whole message goes back; a body over
  // `max_body` closes the connection.
  void OnHeader(const ConnPtr& conn, B* in, std::uint32_t max_body) const {
    for (;;) {
      Header h{};
      std::size_t total = 0;
      switch (FrameMessage(*in, max_body, &h, &total)) {
        case MessageStatus::kNeedMore:
          return;  // wait for the rest
        case MessageStatus::kTooLong:
          counters_->closed_oversized.fetch_add(1, std::memory_order_relaxed);
          std::fprintf(stderr,
                       "server: %s: closing: body_size %u > max_body %u\n",
                       conn->name().c_str(), h.body_size, max_body);
          conn->force_close();
          in->retrieve_all();
          return;
        case MessageStatus::kMessage:
          Consume(total);
          Reply(conn, in->retrieve_as_string(total));
          break;
      }
    }
  }

 private:
  // Called with the bytes the message callback is about to take out of the
  // input buffer: counts them and, with --buffer_slowdown_ns_per_kib, spins
  // their cost first.
  void Consume(std::size_t bytes) const {
    counters_->bytes_in.fetch_add(bytes, std::memory_order_relaxed);
    components::ChargeConsumed(po_, bytes);
  }

  void Reply(const ConnPtr& conn, std::string&& data) const {
    if (log_line_) log_line_(conn->name(), data.size());
    counters_->messages.fetch_add(1, std::memory_order_relaxed);
    if (!reply_via_queue_) {
      conn->send(data);
      return;
    }
    // Hop to the worker loop and back: both posts cross threads.
    worker_->load()->queue_in_loop([conn, data = std::move(data)]() mutable {
      conn->send(data);  // from the worker thread: posted to conn's loop
    });
  }

  Counters* const counters_;
  const bool reply_via_queue_;
  const Options& po_;
  const std::function<LogLine>& log_line_;
  const std::atomic<EventLoop*>* const worker_;
};

// The callbacks about a connection's life rather than its messages.
template <typename B>
void SetConnectionCallbacks(TcpServer<B>& server, bool reply_via_queue,
                            const std::atomic<EventLoop*>* worker) {
  server.set_connection_callback([](const reactor::TcpConnectionPtr<B>&) {});
  // A peer that half-closes gets every reply before our FIN. Replies made in
  // the message callback are queued before the EOF is seen; with
  // --reply_via_queue some are still on their way through the worker loop,
  // so the close waits for a marker that follows them along the same path.
  if (reply_via_queue) {
    server.set_half_close_callback(
        [worker](const reactor::TcpConnectionPtr<B>& conn) {
          conn->hold_open();
          worker->load()->queue_in_loop([conn] { conn->close_when_drained(); });
        });
  }
  // Back-pressure: a peer that sends and never reads stalls above the
  // connection's high-water mark (reactor::kDefaultHighWaterMark) instead of
  // growing our memory; say so once per connection that hits it.
  server.set_high_water_mark_callback(
      [](const reactor::TcpConnectionPtr<B>& conn, std::size_t queued) {
        if (conn->backpressure_pauses() <= 1) {
          std::fprintf(stderr,
                       "server: %s: %zu bytes queued for a peer that does not "
                       "read; reading paused until it drains\n",
                       conn->name().c_str(), queued);
        }
      });
}

// The line the server ends with: its counts and every loop's.
template <typename B>
void PrintStopped(const EventLoop& base, const TcpServer<B>& server,
                  const EventLoop* worker, const Counters& counters) {
  std::uint64_t wakeups = base.wakeups(), tasks = base.tasks_run();
  for (EventLoop* l : server.loops()) {
    if (l != &base) {
      wakeups += l->wakeups();
      tasks += l->tasks_run();
    }
  }
  if (worker != nullptr) {
    wakeups += worker->wakeups();
    tasks += worker->tasks_run();
  }
  std::fprintf(
      stderr,
      "server: stopped; messages %llu, closed for oversized body %llu, "
      "refused for descriptors %llu, loop wake-ups %llu, tasks run %llu, "
      "bytes in %llu\n",
      static_cast<unsigned long long>(counters.messages.load()),
      static_cast<unsigned long long>(counters.closed_oversized.load()),
      static_cast<unsigned long long>(server.rejected_for_descriptors() +
                                      server.failed_connections()),
      static_cast<unsigned long long>(wakeups),
      static_cast<unsigned long long>(tasks),
      static_cast<unsigned long long>(counters.bytes_in.load()));
}

template <typename B>
int Serve(const ServerOptions& so, const Options& po, bool reply_via_queue,
          const components::TaskQueueFactory& make_queue,
          const std::function<LogLine>& log_line) {
  auto loop_options = [&] { return components::LoopOptions(make_queue, po); };
  EventLoop base(loop_options());

  // The worker loop of --reply_via_queue.
  std::unique_ptr<std::thread> worker_thread;
  std::atomic<EventLoop*> worker{nullptr};
  if (reply_via_queue) {
    worker_thread = std::make_unique<std::thread>([&] {
      EventLoop loop(loop_options());
      worker.store(&loop);
      loop.loop();
    });
    while (worker.load() == nullptr) std::this_thread::yield();
  }

  std::unique_ptr<TcpServer<B>> server = servers::ListenOrFail<B>(
      kProgram, &base, so.addr, so.port, so.threads, "pingpong", loop_options);

  Counters counters;
  const Replier<B> replier(&counters, reply_via_queue, po, log_line, &worker);
  SetConnectionCallbacks(*server, reply_via_queue, &worker);
  if (so.protocol == Protocol::kEcho) {
    server->set_message_callback(
        [&replier](const reactor::TcpConnectionPtr<B>& conn, B* in,
                   Clock::time_point) { replier.OnEcho(conn, in); });
  } else {
    server->set_message_callback(
        [&replier, max_body = so.max_body](
            const reactor::TcpConnectionPtr<B>& conn, B* in,
            Clock::time_point) { replier.OnHeader(conn, in, max_body); });
  }
  server->start();
  std::fprintf(
      stderr,
      "server: listening on %s, %d I/O thread(s), protocol %s, buffer %s, "
      "task queue %s, coalesce %d, reply via queue %d, logger %s, poller %s\n",
      server->listen_address().to_string().c_str(), so.threads,
      std::string(ProtocolName(so.protocol)).c_str(),
      std::string(B::kName).c_str(),
      std::string(base.task_queue_name()).c_str(), po.coalesce ? 1 : 0,
      reply_via_queue ? 1 : 0, po.logger.c_str(),
      servers::PollerName(base).c_str());
  servers::LoopUntilStopped(&base);

  servers::PrintPollerStats(server->loops(), &base);
  PrintStopped(base, *server, reply_via_queue ? worker.load() : nullptr,
               counters);
  server.reset();
  if (worker_thread) {
    worker.load()->quit();
    worker_thread->join();
  }
  return 0;
}

int Main(int argc, char** argv) {
  Options po;
  bool reply_via_queue = false;
  std::vector<char*> rest = components::TakeFlags(
      argc, argv, kProgram, &po, kFamilies, [&](std::string_view a) {
        if (a == "--reply_via_queue") {
          reply_via_queue = true;
          return true;
        }
        return false;
      });
  const std::string help = components::Help(kFamilies) + kExtraHelp;
  const ServerOptions so = ParseServerArgs(static_cast<int>(rest.size()),
                                           rest.data(), kProgram, help);

  return servers::RunServer<LogLine>(
      kProgram, po,
      [](auto* l) -> std::function<LogLine> {
        return [l](std::string_view conn, std::size_t bytes) {
          SK_LOG_INFO(*l, "{} {} bytes", conn, bytes);
        };
      },
      [&]<typename B>(const components::TaskQueueFactory& make_queue,
                      const std::function<LogLine>& log_line) {
        return Serve<B>(so, po, reply_via_queue, make_queue, log_line);
      });
}

}  // namespace
}  // namespace serverkit::pingpong

int main(int argc, char** argv) {
  return serverkit::pingpong::Main(argc, argv);
}
