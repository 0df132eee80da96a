// -----------------------------------------------------------------------------
// reactor/tcp_server.h
// -----------------------------------------------------------------------------
//
// `TcpServer<B>`: accepts in the base loop, hands each connection round-robin
// to one of `threads` I/O loops (or to the base loop when threads == 0), and
// owns the connections until they close. Connections use buffer type `B`.
// Every loop is built with the EventLoopOptions that `loop_options()`
// returns (reactor/event_loop.h: the one way to configure a loop).
//
// SIGPIPE is ignored process-wide when the first server or client is built
// (a peer's reset must fail a write, not kill the server).
//
// Thread-safety: construct, `start()` and destroy in the base loop's thread;
// setters before `start()`. Callbacks run in the connection's loop thread.

#ifndef SERVERKIT_REACTOR_TCP_SERVER_H_
#define SERVERKIT_REACTOR_TCP_SERVER_H_

#include <atomic>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>

#include "buffer/buffer.h"
#include "reactor/acceptor.h"
#include "reactor/event_loop.h"
#include "reactor/event_loop_thread_pool.h"
#include "reactor/tcp_connection.h"

namespace serverkit::reactor {

// Ignores SIGPIPE once per process.
void IgnoreSigPipe();

template <Buffer B>
class TcpServer {
 public:
  using LoopOptionsFactory = EventLoopThreadPool::LoopOptionsFactory;

  // Binds now: throws std::system_error if the address is taken.
  TcpServer(EventLoop* base, const InetAddress& listen_addr, std::string name,
            int threads = 0, LoopOptionsFactory loop_options = {})
      : base_(base),
        name_(std::move(name)),
        acceptor_(std::make_unique<Acceptor>(base, listen_addr)),
        pool_(std::make_unique<EventLoopThreadPool>(base, threads,
                                                    std::move(loop_options))) {
    IgnoreSigPipe();
    acceptor_->set_new_connection_callback(
        [this](int fd, const InetAddress& peer) { new_connection(fd, peer); });
  }

  ~TcpServer() {
    base_->assert_in_loop_thread();
    for (auto& [name, conn] : connections_) {
      TcpConnectionPtr<B> c = std::move(conn);
      c->loop()->run_in_loop([c] { c->connect_destroyed(); });
    }
    connections_.clear();
    acceptor_.reset();
    pool_.reset();  // quits the I/O loops (after their pending tasks) and joins
  }

  TcpServer(const TcpServer&) = delete;
  TcpServer& operator=(const TcpServer&) = delete;

  void set_connection_callback(ConnectionCallback<B> cb) {
    connection_cb_ = std::move(cb);
  }
  void set_message_callback(MessageCallback<B> cb) {
    message_cb_ = std::move(cb);
  }
  void set_write_complete_callback(WriteCompleteCallback<B> cb) {
    write_complete_cb_ = std::move(cb);
  }
  // Every connection's back-pressure marks (TcpConnection::set_water_marks;
  // defaults kDefaultHighWaterMark and kDefaultLowWaterMark).
  void set_water_marks(std::size_t high, std::size_t low) {
    high_water_mark_ = high;
    low_water_mark_ = low;
  }
  // Called when a connection's queued output crosses the high mark.
  void set_high_water_mark_callback(HighWaterMarkCallback<B> cb) {
    high_water_cb_ = std::move(cb);
  }
  // Called when a peer half-closes (TcpConnection::set_half_close_callback).
  void set_half_close_callback(HalfCloseCallback<B> cb) {
    half_close_cb_ = std::move(cb);
  }

  // Starts the I/O threads and listens. Base loop thread; idempotent.
  void start() {
    base_->assert_in_loop_thread();
    if (started_) return;
    started_ = true;
    pool_->start();
    acceptor_->listen();
  }

  InetAddress listen_address() const { return acceptor_->local_address(); }
  const std::string& name() const { return name_; }
  std::size_t connection_count() const {
    return live_.load(std::memory_order_relaxed);
  }
  // Connections refused because descriptors ran out at accept.
  std::uint64_t rejected_for_descriptors() const {
    return acceptor_->rejected_for_descriptors();
  }
  // Connections accepted but refused because setting them up failed.
  std::uint64_t failed_connections() const {
    return failed_connections_.load(std::memory_order_relaxed);
  }
  std::vector<EventLoop*> loops() const { return pool_->loops(); }

 private:
  void new_connection(int fd, const InetAddress& peer) {
    base_->assert_in_loop_thread();
    EventLoop* loop = pool_->next_loop();
    std::string name = name_ + "#" + std::to_string(++next_id_);
    TcpConnectionPtr<B> conn;
    try {
      // A buffer may need resources of its own (the mirrored ring maps
      // memory through a memfd): if they run out, refuse this connection.
      conn = std::make_shared<TcpConnection<B>>(
          loop, name, fd, sockets::LocalAddress(fd), peer);
    } catch (const std::exception& e) {
      failed_connections_.fetch_add(1, std::memory_order_relaxed);
      std::fprintf(stderr, "reactor: %s: refusing connection from %s: %s\n",
                   name_.c_str(), peer.to_string().c_str(), e.what());
      sockets::Close(fd);
      return;
    }
    connections_[name] = conn;
    live_.fetch_add(1, std::memory_order_relaxed);
    conn->set_connection_callback(connection_cb_);
    conn->set_message_callback(message_cb_);
    conn->set_write_complete_callback(write_complete_cb_);
    conn->set_water_marks(high_water_mark_, low_water_mark_);
    if (high_water_cb_) {
      conn->set_high_water_mark_callback(high_water_cb_, high_water_mark_);
    }
    conn->set_half_close_callback(half_close_cb_);
    conn->set_close_callback(
        [this](const TcpConnectionPtr<B>& c) { remove_connection(c); });
    loop->run_in_loop([conn] { conn->connect_established(); });
  }

  // Called in the connection's loop thread.
  void remove_connection(const TcpConnectionPtr<B>& conn) {
    base_->run_in_loop([this, alive = std::weak_ptr<int>(lifetime_), conn] {
      // The server may be gone by the time the base loop gets here; its
      // destructor has already handed every connection to its loop.
      if (alive.expired()) return;
      if (connections_.erase(conn->name()) > 0) {
        live_.fetch_sub(1, std::memory_order_relaxed);
      }
      conn->loop()->queue_in_loop([conn] { conn->connect_destroyed(); });
    });
  }

  EventLoop* const base_;
  const std::string name_;
  std::unique_ptr<Acceptor> acceptor_;
  std::unique_ptr<EventLoopThreadPool> pool_;
  ConnectionCallback<B> connection_cb_;
  MessageCallback<B> message_cb_;
  WriteCompleteCallback<B> write_complete_cb_;
  HighWaterMarkCallback<B> high_water_cb_;
  HalfCloseCallback<B> half_close_cb_;
  std::size_t high_water_mark_ = kDefaultHighWaterMark;
  std::size_t low_water_mark_ = kDefaultLowWaterMark;
  bool started_ = false;
  std::uint64_t next_id_ = 0;
  std::map<std::string, TcpConnectionPtr<B>> connections_;  // base loop only
  std::atomic<std::size_t> live_{0};
  std::atomic<std::uint64_t> failed_connections_{0};
  // Expires with the server; tasks queued in the base loop check it.
  std::shared_ptr<int> lifetime_ = std::make_shared<int>(0);
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_TCP_SERVER_H_
