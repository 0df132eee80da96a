// -----------------------------------------------------------------------------
// servers/chat/server.cc
// -----------------------------------------------------------------------------
//
// Our chat server: muduo's "high performance" chat
// (muduo/examples/asio/chat/server_threaded_highperformance.cc) on the
// reactor.
//
//   server <addr> <port> <threads> [--max_message=N] [--max_queued=N]
//          [--buffer=NAME] [--task_queue=NAME] [--coalesce=0|1]
//          [--logger=NAME] [--log_file=PATH]
//          [--task_queue_slowdown_ns=N] [--log_slowdown_ns=N]
//
//   - threads 1: one loop accepts and serves; N > 1: an accepting loop plus N
//     I/O loops, connections handed round-robin (as the ping-pong server).
//   - Each I/O loop keeps its own connections (a vector plus an index,
//     touched only by that loop's thread: no lock on the hot path).
//   - A complete frame read on any loop is broadcast by posting ONE task to
//     every I/O loop through the policy's task queue (`queue_in_loop`), the
//     task carrying the frame as a shared immutable string (the bytes as
//     read, header included); each loop writes it to its own connections.
//     The set of loops is fixed before the first connection, so reading it
//     needs no lock either (muduo guards its loop set with a mutex).
//   - Codec (codec.h): a length over --max_message closes that connection,
//     with one line on stderr.
//   - Slow receivers: a connection with more than --max_queued bytes of
//     output queued when a broadcast reaches it is closed, with one line on
//     stderr (the rest of the room keeps going). Only what is already queued
//     counts, so a receiver with nothing queued always gets the frame, even
//     one over --max_queued; a client that never reads costs at most about
//     --max_queued + --max_message bytes of our memory.
//   - --logger writes one line per message read ("<conn> <bytes>").
//   - SIGINT / SIGTERM stop it cleanly; it then prints its counters:
//       server: stopped; messages in N, frames delivered N, closed oversized
//       N, closed slow N, refused for descriptors N, tasks run N
//     (tasks run: the tasks popped by every loop, the base loop's and every
//     I/O loop's, one --task_queue_slowdown_ns each).

#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "components/by_name.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"
#include "servers/chat/args.h"
#include "servers/chat/codec.h"
#include "servers/common/server_main.h"
#include "servers/common/server_policy.h"

namespace serverkit::chat {
namespace {

using components::Options;
using reactor::Clock;
using reactor::EventLoop;
using reactor::TcpServer;

constexpr const char* kProgram = "server";

// One log line per message read: "<conn> <bytes>".
using LogLine = void(std::string_view conn, std::size_t bytes);

using Frame = std::shared_ptr<const std::string>;

// The connections of one I/O loop. Everything but the counters is touched
// only in that loop's thread; the counters are read at the end.
template <typename B>
class LoopRoom {
 public:
  using ConnPtr = reactor::TcpConnectionPtr<B>;

  LoopRoom(EventLoop* loop, std::size_t max_queued)
      : loop_(loop), max_queued_(max_queued) {}

  EventLoop* loop() const { return loop_; }

  void join(const ConnPtr& c) {
    index_.emplace(c.get(), conns_.size());
    conns_.push_back(c);
  }

  void leave(const ConnPtr& c) {
    const auto it = index_.find(c.get());
    if (it == index_.end()) return;
    const std::size_t i = it->second;
    index_.erase(it);
    if (i + 1 != conns_.size()) {
      conns_[i] = std::move(conns_.back());
      index_[conns_[i].get()] = i;
    }
    conns_.pop_back();
  }

  // Loop thread. Writes `frame` to every connection of this loop. A send
  // never closes a connection synchronously (the reactor defers closes), so
  // the vector does not change under the loop.
  void deliver(const std::string& frame) {
    std::uint64_t sent = 0;
    for (const ConnPtr& c : conns_) {
      if (!c->connected()) continue;  // closing already
      const std::size_t queued = c->output_buffer()->readable_bytes();
      // The bytes already queued decide, not the frame's size (which may
      // exceed max_queued when max_message does).
      if (queued > max_queued_) {
        closed_slow.fetch_add(1, std::memory_order_relaxed);
        std::fprintf(stderr,
                     "server: %s: closing slow receiver: %zu bytes queued, "
                     "max_queued %zu\n",
                     c->name().c_str(), queued, max_queued_);
        c->force_close();
        continue;
      }
      c->send(std::string_view(frame));
      ++sent;
    }
    delivered.fetch_add(sent, std::memory_order_relaxed);
  }

  std::atomic<std::uint64_t> delivered{0};
  std::atomic<std::uint64_t> closed_slow{0};

 private:
  EventLoop* const loop_;
  const std::size_t max_queued_;
  std::vector<ConnPtr> conns_;
  std::unordered_map<const reactor::TcpConnection<B>*, std::size_t> index_;
};

// Takes every whole message out of `in` and posts it to every room, one
// task per loop sharing one immutable frame; a message over `max_message`
// closes the connection.
template <typename B>
void Broadcast(const reactor::TcpConnectionPtr<B>& conn, B* in,
               std::uint32_t max_message,
               const std::vector<std::unique_ptr<LoopRoom<B>>>& rooms,
               const std::function<LogLine>& log_line,
               std::atomic<std::uint64_t>* messages_in,
               std::atomic<std::uint64_t>* closed_oversized) {
  std::string frame;
  std::uint32_t length = 0;
  for (;;) {
    const DecodeStatus st = Decode(in, max_message, &frame, &length);
    if (st == DecodeStatus::kNeedMore) return;
    if (st == DecodeStatus::kTooLong) {
      closed_oversized->fetch_add(1, std::memory_order_relaxed);
      std::fprintf(stderr,
                   "server: %s: closing: message length %u > "
                   "max_message %u\n",
                   conn->name().c_str(), length, max_message);
      conn->force_close();
      in->retrieve_all();
      return;
    }
    messages_in->fetch_add(1, std::memory_order_relaxed);
    if (log_line) log_line(conn->name(), frame.size() - kHeaderLen);
    // One task per loop, all sharing one immutable frame.
    const Frame shared = std::make_shared<const std::string>(std::move(frame));
    for (const auto& room : rooms) {
      room->loop()->queue_in_loop(
          [r = room.get(), shared] { r->deliver(*shared); });
    }
  }
}

// The line the server ends with: its counts, the rooms' and the loops'.
template <typename B>
void PrintStopped(const EventLoop& base, const TcpServer<B>& server,
                  const std::vector<std::unique_ptr<LoopRoom<B>>>& rooms,
                  std::uint64_t messages_in, std::uint64_t closed_oversized) {
  std::uint64_t delivered = 0, closed_slow = 0;
  for (const auto& room : rooms) {
    delivered += room->delivered.load(std::memory_order_relaxed);
    closed_slow += room->closed_slow.load(std::memory_order_relaxed);
  }
  std::uint64_t tasks = base.tasks_run();
  for (EventLoop* l : server.loops()) {
    if (l != &base) tasks += l->tasks_run();
  }
  std::fprintf(
      stderr,
      "server: stopped; messages in %llu, frames delivered %llu, "
      "closed oversized %llu, closed slow %llu, refused for "
      "descriptors %llu, tasks run %llu\n",
      static_cast<unsigned long long>(messages_in),
      static_cast<unsigned long long>(delivered),
      static_cast<unsigned long long>(closed_oversized),
      static_cast<unsigned long long>(closed_slow),
      static_cast<unsigned long long>(server.rejected_for_descriptors() +
                                      server.failed_connections()),
      static_cast<unsigned long long>(tasks));
}

template <typename B>
int Serve(const ServerArgs& sa, const Options& po,
          const components::TaskQueueFactory& make_queue,
          const std::function<LogLine>& log_line) {
  using ConnPtr = reactor::TcpConnectionPtr<B>;
  auto loop_options = [&] { return components::LoopOptions(make_queue, po); };
  EventLoop base(loop_options());

  // The rooms, one per I/O loop, and the loop → room map: filled after
  // start() and before the base loop runs (so before any connection is
  // accepted), read-only afterwards. They outlive the server.
  std::vector<std::unique_ptr<LoopRoom<B>>> rooms;
  std::unordered_map<const EventLoop*, LoopRoom<B>*> room_of;
  std::atomic<std::uint64_t> messages_in{0}, closed_oversized{0};

  std::unique_ptr<TcpServer<B>> server = servers::ListenOrFail<B>(
      kProgram, &base, sa.addr, sa.port, sa.threads, "chat", loop_options);

  server->set_connection_callback([&room_of](const ConnPtr& conn) {
    LoopRoom<B>* room = room_of.at(conn->loop());
    if (conn->connected()) {
      room->join(conn);
    } else {
      room->leave(conn);
    }
  });
  server->set_message_callback(
      [&](const ConnPtr& conn, B* in, Clock::time_point) {
        Broadcast(conn, in, sa.max_message, rooms, log_line, &messages_in,
                  &closed_oversized);
      });
  server->start();
  for (EventLoop* l : server->loops()) {
    rooms.push_back(std::make_unique<LoopRoom<B>>(l, sa.max_queued));
    room_of[l] = rooms.back().get();
  }
  std::fprintf(stderr,
               "server: chat listening on %s, %d I/O thread(s), buffer %s, "
               "task queue %s, coalesce %d, logger %s, max_message %u, "
               "max_queued %zu\n",
               server->listen_address().to_string().c_str(), sa.threads,
               std::string(B::kName).c_str(),
               std::string(base.task_queue_name()).c_str(), po.coalesce ? 1 : 0,
               po.logger.c_str(), sa.max_message, sa.max_queued);
  servers::LoopUntilStopped(&base);

  PrintStopped(base, *server, rooms, messages_in.load(),
               closed_oversized.load());
  server.reset();  // joins the I/O loops; the rooms go after
  return 0;
}

int Main(int argc, char** argv) {
  // The chat server takes no pool, and does not charge the buffer's control.
  constexpr unsigned kFamilies =
      components::kTaskQueue | components::kBuffer | components::kLogger;
  Options po;
  std::vector<char*> rest =
      components::TakeFlags(argc, argv, kProgram, &po, kFamilies);
  const ServerArgs sa =
      ParseServerArgs(static_cast<int>(rest.size()), rest.data(), kProgram,
                      components::Help(kFamilies));

  return servers::RunServer<LogLine>(
      kProgram, po,
      [](auto* l) -> std::function<LogLine> {
        return [l](std::string_view conn, std::size_t bytes) {
          SK_LOG_INFO(*l, "{} {} bytes", conn, bytes);
        };
      },
      [&]<typename B>(const components::TaskQueueFactory& make_queue,
                      const std::function<LogLine>& log_line) {
        return Serve<B>(sa, po, make_queue, log_line);
      });
}

}  // namespace
}  // namespace serverkit::chat

int main(int argc, char** argv) { return serverkit::chat::Main(argc, argv); }
