// -----------------------------------------------------------------------------
// servers/chat/peers/asio_server.cc
// -----------------------------------------------------------------------------
//
// The Boost.Asio chat peer, in the shape of Asio's own chat example
// (asio/src/examples/cpp11/chat/chat_server.cpp: chat_room, chat_participant,
// chat_session with deliver() and a deque of messages to write):
//
//   asio_server <addr> <port> <threads> [--max_message=N] [--max_queued=N]
//
//   - one io_context per thread (concurrency hint 1): with 1 thread a single
//     io_context accepts and serves; with N > 1 the main thread's io_context
//     accepts and hands each new socket round-robin to N I/O io_contexts,
//     one thread each (muduo's model, as our server);
//   - each I/O io_context has its own room, touched only by its thread; a
//     message read on any io_context is broadcast by posting one handler to
//     every io_context, carrying the frame as a shared immutable string, and
//     each room delivers it to its participants (the example's
//     room.deliver(), with the example's per-session write deque);
//   - reads as in the example: async_read of the 4-byte header, then of the
//     body; a length over --max_message closes that connection with one line
//     on stderr;
//   - a participant with more than --max_queued bytes waiting in its write
//     deque behind the frame being written when a message reaches it is
//     closed with one line on stderr (the example has no such limit; ours has
//     the same one, so an empty deque always takes the message). The frame
//     being written is left out: its completion can still be pending after
//     the peer has read all of it;
//   - SIGINT / SIGTERM stop it cleanly; it then prints its counters.
//
// Boost 1.74 (Asio 1.18).

// Boost 1.74's asio/awaitable.hpp uses std::exchange without <utility>; gcc 12
// in C++20 mode needs it included first.
// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "servers/chat/args.h"
#include "servers/chat/codec.h"
#include "servers/common/asio_accept.h"
#include "servers/common/process.h"

namespace serverkit::chat {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

using Frame = std::shared_ptr<const std::string>;

// One room's counters (each room its own, as our server's loops: no shared
// cache line on the hot path); summed at the end.
struct Counters {
  std::atomic<std::uint64_t> messages_in{0};
  std::atomic<std::uint64_t> delivered{0};
  std::atomic<std::uint64_t> closed_oversized{0};
  std::atomic<std::uint64_t> closed_slow{0};
};

class Participant {
 public:
  virtual ~Participant() = default;
  // Returns true when the frame was queued for writing.
  virtual bool Deliver(const Frame& frame) = 0;
};
using ParticipantPtr = std::shared_ptr<Participant>;

// The participants of one io_context; touched only by its thread.
class Room {
 public:
  void Join(const ParticipantPtr& p) { participants_.insert(p); }
  void Leave(const ParticipantPtr& p) { participants_.erase(p); }
  void Deliver(const Frame& frame) {
    std::uint64_t sent = 0;
    // A participant may leave (be closed as slow) while we iterate.
    for (auto it = participants_.begin(); it != participants_.end();) {
      const ParticipantPtr p = *it++;
      sent += p->Deliver(frame) ? 1 : 0;
    }
    counters.delivered.fetch_add(sent, std::memory_order_relaxed);
  }
  void Clear() { participants_.clear(); }

  Counters counters;

 private:
  std::set<ParticipantPtr> participants_;
};

// Every room with its io_context; fixed before the first connection.
struct Rooms {
  std::vector<asio::io_context*> contexts;
  std::vector<std::unique_ptr<Room>> rooms;

  void Broadcast(const Frame& frame) const {
    for (std::size_t i = 0; i < rooms.size(); ++i) {
      asio::post(*contexts[i],
                 [r = rooms[i].get(), frame] { r->Deliver(frame); });
    }
  }
};

class Session : public Participant,
                public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Room* room, const Rooms* all,
          const ServerArgs* args)
      : socket_(std::move(socket)), room_(room), all_(all), args_(args) {}

  void Start() {
    error_code ec;
    socket_.set_option(tcp::no_delay(true), ec);
    room_->Join(shared_from_this());
    ReadHeader();
  }

  bool Deliver(const Frame& frame) override {
    if (closed_) return false;
    const std::size_t waiting =
        write_frames_.empty() ? 0 : queued_ - write_frames_.front()->size();
    if (waiting > args_->max_queued) {  // as ours: what is already queued
      room_->counters.closed_slow.fetch_add(1, std::memory_order_relaxed);
      std::fprintf(stderr,
                   "asio_server: %s: closing slow receiver: %zu bytes "
                   "queued, max_queued %zu\n",
                   Peer().c_str(), waiting, args_->max_queued);
      Close();
      return false;
    }
    const bool writing = !write_frames_.empty();
    write_frames_.push_back(frame);
    queued_ += frame->size();
    if (!writing) Write();
    return true;
  }

 private:
  std::string Peer() const {
    error_code ec;
    const auto ep = socket_.remote_endpoint(ec);
    if (ec) return "?";
    return ep.address().to_string() + ":" + std::to_string(ep.port());
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    room_->Leave(shared_from_this());
    error_code ec;
    socket_.close(ec);  // pending handlers end with operation_aborted
  }

  void ReadHeader() {
    asio::async_read(
        socket_, asio::buffer(header_, kHeaderLen),
        [this, self = shared_from_this()](error_code ec, std::size_t) {
          if (ec) {
            Close();
            return;
          }
          const std::uint32_t len = DecodeLength(header_);
          if (len > args_->max_message) {
            room_->counters.closed_oversized.fetch_add(
                1, std::memory_order_relaxed);
            std::fprintf(stderr,
                         "asio_server: %s: closing: message length %u > "
                         "max_message %u\n",
                         Peer().c_str(), len, args_->max_message);
            Close();
            return;
          }
          body_.assign(kHeaderLen + len, '\0');
          std::memcpy(body_.data(), header_, kHeaderLen);
          ReadBody();
        });
  }

  void ReadBody() {
    asio::async_read(
        socket_,
        asio::buffer(body_.data() + kHeaderLen, body_.size() - kHeaderLen),
        [this, self = shared_from_this()](error_code ec, std::size_t) {
          if (ec) {
            Close();
            return;
          }
          room_->counters.messages_in.fetch_add(1, std::memory_order_relaxed);
          all_->Broadcast(
              std::make_shared<const std::string>(std::move(body_)));
          body_.clear();
          ReadHeader();
        });
  }

  void Write() {
    asio::async_write(
        socket_, asio::buffer(*write_frames_.front()),
        [this, self = shared_from_this()](error_code ec, std::size_t) {
          if (ec) {
            Close();
            return;
          }
          queued_ -= write_frames_.front()->size();
          write_frames_.pop_front();
          if (!write_frames_.empty()) Write();
        });
  }

  tcp::socket socket_;
  Room* const room_;
  const Rooms* const all_;
  const ServerArgs* const args_;
  char header_[kHeaderLen];
  std::string body_;  // the frame being read: header and message
  std::deque<Frame> write_frames_;
  std::size_t queued_ = 0;  // bytes of write_frames_
  bool closed_ = false;
};

class Server {
 public:
  explicit Server(const ServerArgs& args)
      : args_(args),
        accept_ctx_(1),
        // Before the socket listens: a SIGTERM as soon as the port accepts
        // is a stop, not the default action (killed).
        stop_watch_([this] { asio::post(accept_ctx_, [this] { Stop(); }); }),
        acceptor_(accept_ctx_) {
    const int io = args.threads == 1 ? 0 : args.threads;
    for (int i = 0; i < io; ++i) {
      io_.push_back(std::make_unique<asio::io_context>(1));
      guards_.emplace_back(asio::make_work_guard(*io_.back()));
    }
    if (io_.empty()) {
      rooms_.contexts.push_back(&accept_ctx_);
    } else {
      for (auto& c : io_) rooms_.contexts.push_back(c.get());
    }
    for (std::size_t i = 0; i < rooms_.contexts.size(); ++i) {
      rooms_.rooms.push_back(std::make_unique<Room>());
    }
    const tcp::endpoint ep(asio::ip::make_address(args.addr),
                           static_cast<unsigned short>(args.port));
    acceptor_.open(ep.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  }

  void Run() {
    for (auto& ctx : io_) {
      threads_.emplace_back([c = ctx.get()] { c->run(); });
    }
    std::fprintf(stderr,
                 "asio_server: chat (Boost.Asio " BOOST_LIB_VERSION
                 ") listening on %s:%d, %d I/O thread(s), max_message %u, "
                 "max_queued %zu\n",
                 args_.addr.c_str(), args_.port, args_.threads,
                 args_.max_message, args_.max_queued);
    Accept();
    accept_ctx_.run();
    for (auto& c : io_) c->stop();
    for (auto& t : threads_) t.join();
    std::uint64_t in = 0, delivered = 0, oversized = 0, slow = 0;
    for (const auto& r : rooms_.rooms) {
      in += r->counters.messages_in.load();
      delivered += r->counters.delivered.load();
      oversized += r->counters.closed_oversized.load();
      slow += r->counters.closed_slow.load();
    }
    std::fprintf(stderr,
                 "asio_server: stopped; messages in %llu, frames delivered "
                 "%llu, closed oversized %llu, closed slow %llu\n",
                 static_cast<unsigned long long>(in),
                 static_cast<unsigned long long>(delivered),
                 static_cast<unsigned long long>(oversized),
                 static_cast<unsigned long long>(slow));
    // The rooms hold the sessions; the contexts' handlers hold them too.
    for (auto& r : rooms_.rooms) r->Clear();
  }

 private:
  // On accept_ctx_'s thread.
  void Stop() {
    error_code ignored;
    acceptor_.close(ignored);
    pause_.cancel();
    for (auto& c : io_) c->stop();
    accept_ctx_.stop();
  }

  std::size_t NextIndex() {
    const std::size_t i = next_;
    next_ = (next_ + 1) % rooms_.contexts.size();
    return i;
  }

  void Accept() {
    const std::size_t i = NextIndex();
    asio::io_context& ctx = *rooms_.contexts[i];
    acceptor_.async_accept(ctx, [this, i, &ctx](error_code ec, tcp::socket s) {
      if (!ec) {
        auto session = std::make_shared<Session>(
            std::move(s), rooms_.rooms[i].get(), &rooms_, &args_);
        asio::post(ctx, [session] { session->Start(); });
      } else if (!servers::AcceptAgainAfter(ec, pause_, &logged_emfile_,
                                            "asio_server",
                                            [this] { Accept(); })) {
        return;
      }
      Accept();
    });
  }

  const ServerArgs args_;
  // Before accept_ctx_, so destroyed after it: a pending accept on
  // accept_ctx_ holds a socket of one of these.
  std::vector<std::unique_ptr<asio::io_context>> io_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>>
      guards_;
  asio::io_context accept_ctx_;
  servers::StopSignalWatcher stop_watch_;
  tcp::acceptor acceptor_;
  asio::steady_timer pause_{accept_ctx_};
  bool logged_emfile_ = false;
  Rooms rooms_;
  std::vector<std::thread> threads_;
  std::size_t next_ = 0;
};

int Main(int argc, char** argv) {
  const ServerArgs args = ParseServerArgs(
      argc, argv, "asio_server",
      "Boost.Asio " BOOST_LIB_VERSION
      ": one io_context per thread (concurrency hint 1), a room per "
      "io_context.\n");
  std::signal(SIGPIPE, SIG_IGN);
  servers::RaiseFdLimit();
  try {
    Server server(args);
    server.Run();  // until SIGINT / SIGTERM
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asio_server: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace serverkit::chat

int main(int argc, char** argv) { return serverkit::chat::Main(argc, argv); }
