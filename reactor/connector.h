// -----------------------------------------------------------------------------
// reactor/connector.h
// -----------------------------------------------------------------------------
//
// `Connector`: the active side of a TCP connection. Starts a non-blocking
// connect, waits for writability, checks SO_ERROR, and hands the connected
// socket to its callback. On a refused or failed attempt (and on a
// self-connect) it retries with a back-off doubling from 50 ms to 5 s, until
// `stop()`, or gives up after `max_attempts` (0: never) and says so through the
// failure callback.
//
// Owned (through shared_ptr) by a TcpClient; every member but `start`,
// `stop`, `total_attempts` and `refused_attempts` runs in the loop thread;
// those four are thread-safe.

#ifndef SERVERKIT_REACTOR_CONNECTOR_H_
#define SERVERKIT_REACTOR_CONNECTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "reactor/channel.h"
#include "reactor/socket_ops.h"
#include "reactor/timer_queue.h"

namespace serverkit::reactor {

class EventLoop;

class Connector : public std::enable_shared_from_this<Connector> {
 public:
  using NewConnectionCallback = std::function<void(int fd)>;
  using FailureCallback = std::function<void(const std::string& reason)>;

  Connector(EventLoop* loop, const InetAddress& server, int max_attempts = 0);
  ~Connector();
  Connector(const Connector&) = delete;
  Connector& operator=(const Connector&) = delete;

  void set_new_connection_callback(NewConnectionCallback cb) {
    new_conn_cb_ = std::move(cb);
  }
  void set_failure_callback(FailureCallback cb) { failure_cb_ = std::move(cb); }

  void start();  // thread-safe
  void stop();   // thread-safe
  // Starts over (after a connection closed). Loop thread.
  void restart();

  // Attempts since the last (re)start, as counted against `max_attempts`.
  // Loop thread.
  int attempts() const { return attempts_; }
  // Connect attempts since construction, and those of them the server
  // refused (ECONNREFUSED, at once or through SO_ERROR). Thread-safe: relaxed
  // loads of counters the loop thread updates, so another thread may see
  // them late, but never an attempt that was not made.
  std::uint64_t total_attempts() const {
    return total_attempts_.load(std::memory_order_relaxed);
  }
  std::uint64_t refused_attempts() const {
    return refused_attempts_.load(std::memory_order_relaxed);
  }

 private:
  enum State { kDisconnected, kConnecting, kConnected };

  void start_in_loop();
  void connect();
  void connecting(int fd);
  void handle_write();
  void handle_error();
  void retry_after_error(int fd, int err);  // counts a refusal, retries
  void retry(int fd, const std::string& reason);
  int remove_and_reset_channel();

  EventLoop* const loop_;
  const InetAddress server_;
  const int max_attempts_;
  std::atomic<bool> connect_{false};
  State state_ = kDisconnected;
  std::unique_ptr<Channel> channel_;
  NewConnectionCallback new_conn_cb_;
  FailureCallback failure_cb_;
  std::chrono::milliseconds retry_delay_;
  int attempts_ = 0;
  std::atomic<std::uint64_t> total_attempts_{0};
  std::atomic<std::uint64_t> refused_attempts_{0};
  TimerId retry_timer_ = 0;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_CONNECTOR_H_
