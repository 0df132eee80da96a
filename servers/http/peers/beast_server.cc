// -----------------------------------------------------------------------------
// servers/http/peers/beast_server.cc
// -----------------------------------------------------------------------------
//
// The Boost.Beast (Boost 1.74) HTTP peer of the HTTP benchmark, written the
// way Beast's own http_server_async example is:
//
//   beast_server <addr> <port> <threads>
//
//   - one io_context per thread (concurrency hint 1). With 1 thread a single
//     io_context accepts and serves; with N > 1 the main thread's io_context
//     accepts and hands each socket round-robin to N I/O io_contexts (the
//     model every server of the benchmark follows);
//   - per connection: TCP_NODELAY, a flat_buffer and one request parser per
//     request (header limit 8 KiB: 431), async_read then async_write;
//     pipelined requests are read from what the buffer already holds;
//   - GET /collect (any query) answers 200 {"ok":true} (application/json),
//     another method on it 405, any other path 404; keep-alive as the
//     request asks (need_eof closes after the reply); a malformed request
//     gets 400 and a close.
//
// SIGINT / SIGTERM stop every io_context.

// Boost 1.74's asio/awaitable.hpp uses std::exchange without <utility>; gcc 12
// in C++20 mode needs it included first.
// clang-format off
#include <utility>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
// clang-format on

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "servers/common/process.h"
#include "servers/http/http_handler.h"
#include "servers/pingpong/common.h"

namespace serverkit::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket socket) : stream_(std::move(socket)) {}

  void Start() {
    error_code ec;
    stream_.socket().set_option(tcp::no_delay(true), ec);
    Read();
  }

 private:
  void Read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(kMaxHeadBytes));
    parser_->body_limit(1 << 20);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](error_code ec, std::size_t) {
                        self->OnRead(ec);
                      });
  }

  void OnRead(error_code ec) {
    if (ec == bhttp::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::connection_reset ||
        ec == asio::error::operation_aborted) {
      Close();
      return;
    }
    if (ec) {  // malformed or too large: answer, then close
      Reply(ec == bhttp::error::header_limit
                ? bhttp::status::request_header_fields_too_large
                : bhttp::status::bad_request,
            11, false, true);
      return;
    }
    const auto& req = parser_->get();
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    bhttp::status status = bhttp::status::not_found;
    if (path == kCollectPath) {
      status = req.method() == bhttp::verb::get
                   ? bhttp::status::ok
                   : bhttp::status::method_not_allowed;
    }
    Reply(status, req.version(), req.keep_alive(), !req.keep_alive());
  }

  void Reply(bhttp::status status, unsigned version, bool keep_alive,
             bool close) {
    res_.emplace();
    res_->result(status);
    res_->version(version);
    res_->set(bhttp::field::server, "beast");
    res_->set(bhttp::field::content_type, "application/json");
    if (status == bhttp::status::method_not_allowed)
      res_->set(bhttp::field::allow, "GET");
    res_->body() = status == bhttp::status::ok
                       ? std::string(kCollectBody)
                       : std::string(R"({"error":"error"})");
    res_->keep_alive(keep_alive && !close);
    res_->prepare_payload();
    bhttp::async_write(
        stream_, *res_,
        [self = shared_from_this(), close](error_code ec, std::size_t) {
          if (ec || close) {
            self->Close();
            return;
          }
          self->Read();
        });
  }

  // Half-close after the reply, then read (and drop) until the peer closes:
  // closing with unread input would reset the connection and could cost the
  // peer the reply's tail.
  void Close() {
    error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (!ec) Drain();
  }

  void Drain() {
    stream_.socket().async_read_some(
        asio::buffer(drain_),
        [self = shared_from_this()](error_code ec, std::size_t) {
          if (!ec) self->Drain();
        });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::optional<bhttp::response<bhttp::string_body>> res_;
  char drain_[4096];
};

class Server {
 public:
  Server(asio::io_context& accept_ctx, std::vector<asio::io_context*> io,
         tcp::endpoint ep)
      : acceptor_(accept_ctx), io_(std::move(io)) {
    acceptor_.open(ep.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  }

  void Accept() {
    asio::io_context* ctx = io_[next_++ % io_.size()];
    acceptor_.async_accept(*ctx, [this, ctx](error_code ec,
                                             tcp::socket socket) {
      if (!ec) {
        // The socket belongs to ctx: start the session in ctx's thread.
        asio::post(*ctx, [s = std::make_shared<Session>(std::move(socket))] {
          s->Start();
        });
      } else if (ec == asio::error::operation_aborted) {
        return;
      } else if (!logged_) {
        logged_ = true;
        std::fprintf(stderr, "beast_server: accept: %s\n",
                     ec.message().c_str());
      }
      Accept();
    });
  }

 private:
  tcp::acceptor acceptor_;
  std::vector<asio::io_context*> io_;
  std::size_t next_ = 0;
  bool logged_ = false;
};

int Main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: beast_server <addr> <port> <threads>\n");
    return 2;
  }
  const auto port = pingpong::ParseLong(argv[2]);
  const auto threads = pingpong::ParseLong(argv[3]);
  if (!port || *port > 65535 || !threads || *threads < 1 || *threads > 256) {
    std::fprintf(stderr, "beast_server: bad port or thread count\n");
    return 2;
  }
  servers::RaiseFdLimit();
  // The I/O contexts outlive the accepting one: a pending accept holds a
  // socket of the context it was for until the accepting context is gone.
  std::vector<std::unique_ptr<asio::io_context>> io_owned;
  asio::io_context main_ctx(1);
  std::vector<asio::io_context*> io;
  if (*threads == 1) {
    io.push_back(&main_ctx);
  } else {
    for (long i = 0; i < *threads; ++i) {
      io_owned.push_back(std::make_unique<asio::io_context>(1));
      io.push_back(io_owned.back().get());
    }
  }
  // Before the socket listens: a SIGTERM that comes as soon as the port
  // accepts is handled (a stop), not the default action (killed).
  servers::StopSignalWatcher stop_watch([&] {
    main_ctx.stop();
    for (auto& ctx : io_owned) ctx->stop();
  });
  std::optional<Server> server;
  try {
    server.emplace(main_ctx, io,
                   tcp::endpoint(asio::ip::make_address(argv[1]),
                                 static_cast<unsigned short>(*port)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "beast_server: cannot listen on %s:%ld: %s\n", argv[1],
                 *port, e.what());
    return 2;
  }
  server->Accept();

  std::vector<asio::executor_work_guard<asio::io_context::executor_type>>
      guards;
  std::vector<std::thread> workers;
  for (auto& ctx : io_owned) {
    guards.push_back(asio::make_work_guard(*ctx));
    workers.emplace_back([c = ctx.get()] { c->run(); });
  }
  std::fprintf(stderr, "beast_server: listening on %s:%ld, %ld thread(s)\n",
               argv[1], *port, *threads);
  main_ctx.run();
  for (auto& ctx : io_owned) ctx->stop();
  for (auto& t : workers) t.join();
  std::fprintf(stderr, "beast_server: stopped\n");
  return 0;
}

}  // namespace
}  // namespace serverkit::http

int main(int argc, char** argv) { return serverkit::http::Main(argc, argv); }
