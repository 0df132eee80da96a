// -----------------------------------------------------------------------------
// servers/pingpong/peers/asio_server.cc
// -----------------------------------------------------------------------------
//
// The Boost.Asio ping-pong server, written the idiomatic way:
//
//   asio_server <addr> <port> <threads> [--protocol=echo|header] [--max_body=N]
//
//   - one io_context per thread (concurrency hint 1), as in
//     huyuguang/asio_benchmark's io_service_pool: with 1 thread a single
//     io_context accepts and serves; with N > 1 the main thread's io_context
//     accepts and hands each new socket round-robin to N I/O io_contexts, one
//     thread each (muduo's model, which all servers of the sweep follow);
//   - per connection: TCP_NODELAY, one async_read_some of up to 64 KiB
//     outstanding and at most one async_write; no strands (a connection lives
//     on one single-threaded io_context);
//   - echo: the read buffer is swapped into the write slot when no write is in
//     flight (asio's own performance test does the same swap), otherwise the
//     bytes are queued; reading pauses while more than 1 MiB is queued;
//   - header: bytes accumulate until a whole message {uint32 body_size,
//     uint32 packet_count} + body is there, which is then queued for writing;
//     body_size > --max_body closes the connection with one line on stderr.
//
// Boost 1.74 (Asio 1.18): the asio_handler_allocate hooks of the 2008-era test
// are not used; Asio's recycling allocator serves the handlers.

// Boost 1.74's asio/awaitable.hpp uses std::exchange without <utility>; gcc 12
// in C++20 mode needs it included first.
// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "servers/common/asio_accept.h"
#include "servers/common/process.h"
#include "servers/pingpong/common.h"

namespace serverkit::pingpong {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

constexpr std::size_t kReadSize = 64 * 1024;
constexpr std::size_t kHighWater = 1 << 20;  // queued bytes that pause reading

// One connection. Lives on one io_context, touched only by its thread.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const ServerOptions& opt)
      : socket_(std::move(socket)),
        opt_(opt),
        rbuf_(new char[kReadSize]),
        wbuf_(new char[kReadSize]) {}

  void Start() {
    error_code ec;
    socket_.set_option(tcp::no_delay(true), ec);
    Read();
  }

 private:
  void Read() {
    if (opt_.protocol == Protocol::kEcho) {
      socket_.async_read_some(
          asio::buffer(rbuf_.get(), kReadSize),
          [this, self = shared_from_this()](error_code ec, std::size_t n) {
            if (!ec) OnEcho(n);
          });
    } else {
      if (in_.size() - in_end_ < kReadSize / 4) {  // grow by doubling
        in_.resize(std::max(kReadSize, 2 * in_.size()));
      }
      socket_.async_read_some(
          asio::buffer(in_.data() + in_end_, in_.size() - in_end_),
          [this, self = shared_from_this()](error_code ec, std::size_t n) {
            if (!ec) OnHeader(n);
          });
    }
  }

  void OnEcho(std::size_t n) {
    if (!writing_) {
      std::swap(rbuf_, wbuf_);
      StartWrite(asio::buffer(wbuf_.get(), n));
    } else {
      pending_.insert(pending_.end(), rbuf_.get(), rbuf_.get() + n);
    }
    ReadUnlessFull();
  }

  void OnHeader(std::size_t n) {
    in_end_ += n;
    std::size_t pos = 0;
    while (in_end_ - pos >= kHeaderSize) {
      const Header h = DecodeHeader(in_.data() + pos);
      if (h.body_size > opt_.max_body) {
        error_code ec;
        const auto peer = socket_.remote_endpoint(ec);
        std::fprintf(stderr,
                     "asio_server: closing connection from %s:%u: body_size "
                     "%u > max_body %u\n",
                     peer.address().to_string().c_str(), peer.port(),
                     h.body_size, opt_.max_body);
        socket_.close(ec);
        return;  // pending handlers end with operation_aborted
      }
      const std::size_t size = kHeaderSize + h.body_size;
      if (in_end_ - pos < size) break;
      pending_.insert(pending_.end(), in_.data() + pos,
                      in_.data() + pos + size);
      pos += size;
    }
    if (pos > 0) {
      std::memmove(in_.data(), in_.data() + pos, in_end_ - pos);
      in_end_ -= pos;
    }
    if (!writing_ && !pending_.empty()) WritePending();
    ReadUnlessFull();
  }

  void ReadUnlessFull() {
    if (pending_.size() < kHighWater) {
      Read();
    } else {
      read_paused_ = true;
    }
  }

  void WritePending() {
    writing_buf_.swap(pending_);
    pending_.clear();
    StartWrite(asio::buffer(writing_buf_));
  }

  void StartWrite(asio::const_buffer buf) {
    writing_ = true;
    asio::async_write(
        socket_, buf,
        [this, self = shared_from_this()](error_code ec, std::size_t) {
          writing_ = false;
          if (ec) return;
          if (!pending_.empty()) WritePending();
          if (read_paused_ && pending_.size() < kHighWater) {
            read_paused_ = false;
            Read();
          }
        });
  }

  tcp::socket socket_;
  const ServerOptions& opt_;
  std::unique_ptr<char[]> rbuf_;  // echo: the read in flight
  std::unique_ptr<char[]> wbuf_;  // echo: the write in flight (swapped in)
  std::vector<char> in_;          // header: bytes of incomplete messages
  std::size_t in_end_ = 0;
  std::vector<char> pending_;      // bytes waiting for the write in flight
  std::vector<char> writing_buf_;  // pending_ bytes being written
  bool writing_ = false;
  bool read_paused_ = false;
};

class Server {
 public:
  explicit Server(const ServerOptions& opt)
      : opt_(opt), accept_ctx_(1), acceptor_(accept_ctx_) {
    const int io = opt.threads == 1 ? 0 : opt.threads;
    for (int i = 0; i < io; ++i) {
      io_.push_back(std::make_unique<asio::io_context>(1));
      guards_.emplace_back(asio::make_work_guard(*io_.back()));
    }
    const tcp::endpoint ep(asio::ip::make_address(opt.addr),
                           static_cast<unsigned short>(opt.port));
    acceptor_.open(ep.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  }

  void Run() {
    for (auto& ctx : io_) {
      threads_.emplace_back([c = ctx.get()] { c->run(); });
    }
    Accept();
    accept_ctx_.run();
  }

 private:
  asio::io_context& NextContext() {
    if (io_.empty()) return accept_ctx_;
    asio::io_context& c = *io_[next_];
    next_ = (next_ + 1) % io_.size();
    return c;
  }

  void Accept() {
    asio::io_context& ctx = NextContext();
    acceptor_.async_accept(ctx, [this, &ctx](error_code ec, tcp::socket s) {
      if (!ec) {
        auto session = std::make_shared<Session>(std::move(s), opt_);
        asio::post(ctx, [session] { session->Start(); });
      } else if (!servers::AcceptAgainAfter(ec, pause_, &logged_emfile_,
                                            "asio_server",
                                            [this] { Accept(); })) {
        return;
      }
      Accept();
    });
  }

  ServerOptions opt_;
  asio::io_context accept_ctx_;
  tcp::acceptor acceptor_;
  asio::steady_timer pause_{accept_ctx_};
  bool logged_emfile_ = false;
  std::vector<std::unique_ptr<asio::io_context>> io_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>>
      guards_;
  std::vector<std::thread> threads_;
  std::size_t next_ = 0;
};

int Main(int argc, char** argv) {
  const ServerOptions opt = ParseServerArgs(
      argc, argv, "asio_server",
      "Boost.Asio " BOOST_LIB_VERSION
      ": one io_context per thread (concurrency hint 1), async_read_some of "
      "up to 64 KiB.\n");
  std::signal(SIGPIPE, SIG_IGN);
  servers::RaiseFdLimit();
  try {
    Server server(opt);
    server.Run();  // until killed
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asio_server: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace serverkit::pingpong

int main(int argc, char** argv) {
  return serverkit::pingpong::Main(argc, argv);
}
