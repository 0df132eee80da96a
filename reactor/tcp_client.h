// -----------------------------------------------------------------------------
// reactor/tcp_client.h
// -----------------------------------------------------------------------------
//
// `TcpClient<B>`: one outgoing connection in one loop, through a Connector
// that retries. With `retry()` on, a connection that closes is dialled again.
//
// Thread-safety: `connect`, `disconnect`, `stop`, `connection`,
// `connect_attempts` and `refused_attempts` are thread-safe; construct
// and destroy in the loop thread (the destructor closes the connection and
// stops the connector at once, whether or not the loop still runs).
// Callbacks run in the loop thread.

#ifndef SERVERKIT_REACTOR_TCP_CLIENT_H_
#define SERVERKIT_REACTOR_TCP_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "buffer/buffer.h"
#include "reactor/connector.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_connection.h"

namespace serverkit::reactor {

void IgnoreSigPipe();

template <Buffer B>
class TcpClient {
 public:
  TcpClient(EventLoop* loop, const InetAddress& server, std::string name,
            int max_connect_attempts = 0)
      : loop_(loop),
        name_(std::move(name)),
        connector_(
            std::make_shared<Connector>(loop, server, max_connect_attempts)) {
    IgnoreSigPipe();
    connector_->set_new_connection_callback(
        [this](int fd) { new_connection(fd); });
    connector_->set_failure_callback([this](const std::string& reason) {
      if (failure_cb_) failure_cb_(reason);
    });
  }

  ~TcpClient() {
    loop_->assert_in_loop_thread();
    connector_->stop();  // runs now: we are in the loop thread
    TcpConnectionPtr<B> conn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      conn = std::move(connection_);
    }
    if (conn) {
      // Tear the connection down here rather than through the loop, which
      // may have stopped already. Others may still hold `conn`; it is closed
      // and its channel is gone, so their sends are dropped and counted.
      conn->set_close_callback([](const TcpConnectionPtr<B>&) {});
      conn->connect_destroyed();
    }
  }

  TcpClient(const TcpClient&) = delete;
  TcpClient& operator=(const TcpClient&) = delete;

  void connect() { connector_->start(); }
  // Half-closes the connection (after its output drains).
  void disconnect() {
    retry_.store(false, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mu_);
    if (connection_) connection_->shutdown();
  }
  void stop() { connector_->stop(); }
  void enable_retry() { retry_.store(true, std::memory_order_relaxed); }

  // Connect attempts since construction (every retry and re-dial counts),
  // and those the server refused. Thread-safe; from another thread the
  // counts may lag the loop by a moment.
  std::uint64_t connect_attempts() const {
    return connector_->total_attempts();
  }
  std::uint64_t refused_attempts() const {
    return connector_->refused_attempts();
  }

  TcpConnectionPtr<B> connection() const {
    std::lock_guard<std::mutex> lock(mu_);
    return connection_;
  }

  void set_connection_callback(ConnectionCallback<B> cb) {
    connection_cb_ = std::move(cb);
  }
  void set_message_callback(MessageCallback<B> cb) {
    message_cb_ = std::move(cb);
  }
  void set_write_complete_callback(WriteCompleteCallback<B> cb) {
    write_complete_cb_ = std::move(cb);
  }
  void set_failure_callback(std::function<void(const std::string&)> cb) {
    failure_cb_ = std::move(cb);
  }

 private:
  void new_connection(int fd) {
    loop_->assert_in_loop_thread();
    auto conn = std::make_shared<TcpConnection<B>>(
        loop_, name_ + "#" + std::to_string(++next_id_), fd,
        sockets::LocalAddress(fd), sockets::PeerAddress(fd));
    conn->set_connection_callback(connection_cb_);
    conn->set_message_callback(message_cb_);
    conn->set_write_complete_callback(write_complete_cb_);
    conn->set_close_callback(
        [this](const TcpConnectionPtr<B>& c) { remove_connection(c); });
    {
      std::lock_guard<std::mutex> lock(mu_);
      connection_ = conn;
    }
    conn->connect_established();
  }

  void remove_connection(const TcpConnectionPtr<B>& conn) {
    loop_->assert_in_loop_thread();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (connection_ == conn) connection_.reset();
    }
    loop_->queue_in_loop([conn] { conn->connect_destroyed(); });
    if (retry_.load(std::memory_order_relaxed)) connector_->restart();
  }

  EventLoop* const loop_;
  const std::string name_;
  std::shared_ptr<Connector> connector_;
  // Atomic: disconnect() may come from any thread, remove_connection reads
  // it in the loop's.
  std::atomic<bool> retry_{false};
  std::uint64_t next_id_ = 0;
  mutable std::mutex mu_;
  TcpConnectionPtr<B> connection_;  // guarded by mu_
  ConnectionCallback<B> connection_cb_;
  MessageCallback<B> message_cb_;
  WriteCompleteCallback<B> write_complete_cb_;
  std::function<void(const std::string&)> failure_cb_;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_TCP_CLIENT_H_
