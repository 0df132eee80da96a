// -----------------------------------------------------------------------------
// reactor/acceptor.h
// -----------------------------------------------------------------------------
//
// `Acceptor`: the listening socket of a TcpServer, in the base loop.
//
// Descriptor exhaustion: the acceptor keeps one spare descriptor open on
// /dev/null. When accept fails with EMFILE or ENFILE, it closes the spare,
// accepts the pending connection, closes it at once (the client sees a
// close, not a hang in the backlog), reopens the spare, and counts the
// rejection. Without this, level-triggered epoll would report the listening
// socket readable forever and the loop would spin.
//
// Owned by its TcpServer; every member runs in the base loop's thread.

#ifndef SERVERKIT_REACTOR_ACCEPTOR_H_
#define SERVERKIT_REACTOR_ACCEPTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "reactor/channel.h"
#include "reactor/socket_ops.h"

namespace serverkit::reactor {

class EventLoop;

class Acceptor {
 public:
  using NewConnectionCallback =
      std::function<void(int fd, const InetAddress& peer)>;

  // Binds at once (throws std::system_error when it cannot).
  Acceptor(EventLoop* loop, const InetAddress& listen_addr);
  ~Acceptor();
  Acceptor(const Acceptor&) = delete;
  Acceptor& operator=(const Acceptor&) = delete;

  void set_new_connection_callback(NewConnectionCallback cb) {
    cb_ = std::move(cb);
  }
  void listen();
  bool listening() const { return listening_; }
  InetAddress local_address() const { return sockets::LocalAddress(fd_); }
  // Thread-safe.
  std::uint64_t rejected_for_descriptors() const {
    return rejected_.load(std::memory_order_relaxed);
  }

 private:
  void handle_read();

  EventLoop* const loop_;
  const int fd_;
  Channel channel_;
  NewConnectionCallback cb_;
  bool listening_ = false;
  int idle_fd_;
  std::atomic<std::uint64_t> rejected_{0};
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_ACCEPTOR_H_
