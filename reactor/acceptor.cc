#include "reactor/acceptor.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "reactor/event_loop.h"
#include "reactor/internal/report_errno.h"

namespace serverkit::reactor {

Acceptor::Acceptor(EventLoop* loop, const InetAddress& listen_addr)
    : loop_(loop),
      fd_(sockets::CreateNonblockingTcp()),
      channel_(loop, fd_),
      idle_fd_(::open("/dev/null", O_RDONLY | O_CLOEXEC)) {
  sockets::SetReuseAddr(fd_, true);
  try {
    sockets::BindOrThrow(fd_, listen_addr);
  } catch (...) {
    sockets::Close(fd_);
    if (idle_fd_ >= 0) ::close(idle_fd_);
    throw;
  }
  channel_.set_read_callback([this](Clock::time_point) { handle_read(); });
}

Acceptor::~Acceptor() {
  if (listening_) {
    channel_.disable_all();
    channel_.remove();
  }
  sockets::Close(fd_);
  if (idle_fd_ >= 0) ::close(idle_fd_);
}

void Acceptor::listen() {
  loop_->assert_in_loop_thread();
  sockets::ListenOrThrow(fd_);
  listening_ = true;
  channel_.enable_reading();
}

void Acceptor::handle_read() {
  loop_->assert_in_loop_thread();
  // Drain the backlog: level-triggered, but one wake-up per connection costs
  // an epoll round each.
  for (int i = 0; i < 64; ++i) {
    InetAddress peer;
    const int fd = sockets::Accept(fd_, &peer);
    if (fd >= 0) {
      if (cb_) {
        cb_(fd, peer);
      } else {
        sockets::Close(fd);
      }
      continue;
    }
    const int err = errno;
    if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR ||
        err == ECONNABORTED) {
      return;
    }
    if (err == EMFILE || err == ENFILE) {
      const std::uint64_t rejected =
          rejected_.fetch_add(1, std::memory_order_relaxed) + 1;
      reactor_internal::ReportErrno(
          err,
          "reactor: accept: out of file descriptors, closing the "
          "new connection (%llu rejected so far)",
          static_cast<unsigned long long>(rejected));
      if (idle_fd_ >= 0) {
        ::close(idle_fd_);
        const int doomed = ::accept(fd_, nullptr, nullptr);
        if (doomed >= 0) ::close(doomed);
        idle_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      }
      return;
    }
    reactor_internal::ReportErrno(err, "reactor: accept failed");
    return;
  }
}

}  // namespace serverkit::reactor
