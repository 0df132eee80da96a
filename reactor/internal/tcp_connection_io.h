// -----------------------------------------------------------------------------
// reactor/internal/tcp_connection_io.h
// -----------------------------------------------------------------------------
//
// TcpConnection<B>'s read and write paths (reactor/tcp_connection.h, which
// includes this file after the class): reads on readiness or handed over by
// a completion-based poller, the peer's EOF, and writes on readiness or as
// sends the poller owns (reactor/completion_io.h). Defined out of the class
// only to keep the class readable; each is `inline`, as it was in the class.

#ifndef SERVERKIT_REACTOR_INTERNAL_TCP_CONNECTION_IO_H_
#define SERVERKIT_REACTOR_INTERNAL_TCP_CONNECTION_IO_H_

#include <unistd.h>

#include <cerrno>
#include <span>
#include <string_view>
#include <utility>

#include "buffer/buffer.h"
#include "reactor/channel.h"
#include "reactor/completion_io.h"
#include "reactor/internal/report_errno.h"
#include "reactor/tcp_connection.h"

namespace serverkit::reactor {

template <typename B>
inline void TcpConnection<B>::handle_read(Clock::time_point receive_time) {
  int saved_errno = 0;
  const ssize_t n = input_.read_fd(fd_, &saved_errno);
  if (n > 0) {
    bytes_read_.fetch_add(static_cast<std::uint64_t>(n),
                          std::memory_order_relaxed);
    // read_fd offers the kernel at least kReadFdExtraBytes, and a stream
    // socket's read stops short only when it has nothing more.
    if (static_cast<std::size_t>(n) >= kReadFdExtraBytes) {
      channel_.more_to_read();
    }
    if (message_cb_) {
      message_cb_(this->shared_from_this(), &input_, receive_time);
    }
  } else if (n == 0) {
    handle_peer_eof();
  } else if (saved_errno != EAGAIN && saved_errno != EWOULDBLOCK &&
             saved_errno != EINTR) {
    errno = saved_errno;
    handle_error();
    handle_close();
  }
}

template <typename B>
inline void TcpConnection<B>::handle_received(Channel::Received& r,
                                              Clock::time_point receive_time) {
  std::size_t n = 0;
  if constexpr (ReleasableBuffer<B>) {
    if (r.data.size() == 1 && r.storage.bytes != nullptr &&
        input_.readable_bytes() == 0) {
      n = r.storage.size();
      io_->recycle(input_.release());
      input_.adopt(std::move(r.storage));
    }
  }
  if (n == 0) {
    for (std::string_view d : r.data) {
      input_.append(d.data(), d.size());
      n += d.size();
    }
  }
  if (n > 0) {
    bytes_read_.fetch_add(n, std::memory_order_relaxed);
    if (message_cb_ && state_.load() != kDisconnected) {
      message_cb_(this->shared_from_this(), &input_, receive_time);
    }
  }
  if (!r.ended || state_.load() == kDisconnected) return;
  if (r.error == 0) {
    handle_peer_eof();
  } else {
    if (r.error != ECONNRESET && r.error != EPIPE) {
      reactor_internal::ReportErrno(r.error, "reactor: %s: receive failed",
                                    name_.c_str());
    }
    handle_close();
  }
}

template <typename B>
inline void TcpConnection<B>::handle_write() {
  if (!channel_.is_writing()) return;
  int saved_errno = 0;
  const ssize_t n = output_.write_fd(fd_, &saved_errno);
  if (n > 0) {
    bytes_written_.fetch_add(static_cast<std::uint64_t>(n),
                             std::memory_order_relaxed);
    if (paused_ && output_.readable_bytes() <= low_water_mark_) {
      resume_reading();
    }
    if (output_.readable_bytes() == 0) {
      channel_.disable_writing();
      if (write_complete_cb_) {
        loop_->queue_in_loop([self = this->shared_from_this()] {
          self->write_complete_cb_(self);
        });
      }
      if (state_.load() == kDisconnecting) shutdown_in_loop();
      if (close_when_drained_) handle_close();
    }
  } else if (n < 0 && saved_errno != EAGAIN && saved_errno != EWOULDBLOCK &&
             saved_errno != EINTR) {
    // The peer is gone (EPIPE, ECONNRESET) or the socket failed: what is
    // queued can never be delivered.
    if (saved_errno != EPIPE && saved_errno != ECONNRESET) {
      reactor_internal::ReportErrno(saved_errno, "reactor: %s: write failed",
                                    name_.c_str());
    }
    handle_close();
  }
}

template <typename B>
inline void TcpConnection<B>::handle_peer_eof() {
  loop_->assert_in_loop_thread();
  if (peer_closed_.exchange(true, std::memory_order_relaxed)) return;
  paused_ = false;
  if (channel_.is_reading()) channel_.disable_reading();
  if (half_close_cb_) half_close_cb_(this->shared_from_this());
  if (!held_open_) close_when_drained_in_loop();
}

template <typename B>
inline void TcpConnection<B>::send_in_loop(const char* data, std::size_t len) {
  loop_->assert_in_loop_thread();
  if (state_.load() == kDisconnected) {
    dropped_sends_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (io_ != nullptr) {
    if (in_flight_ == 0 && output_.readable_bytes() == 0) {
      start_send(data, len);
    } else {
      queue_output(data, len);
      if (in_flight_ == 0) flush_output();
    }
    return;
  }
  std::size_t written = 0;
  bool fault = false;
  if (!channel_.is_writing() && output_.readable_bytes() == 0) {
    const ssize_t n = ::write(fd_, data, len);
    if (n >= 0) {
      written = static_cast<std::size_t>(n);
      bytes_written_.fetch_add(written, std::memory_order_relaxed);
      if (written == len && write_complete_cb_) {
        loop_->queue_in_loop([self = this->shared_from_this()] {
          self->write_complete_cb_(self);
        });
      }
    } else if (errno != EWOULDBLOCK && errno != EAGAIN && errno != EINTR) {
      if (errno == EPIPE || errno == ECONNRESET) fault = true;
      if (!fault) {
        reactor_internal::ReportErrno("reactor: %s: write failed",
                                      name_.c_str());
      }
    }
  }
  if (fault || written == len) return;
  queue_output(data + written, len - written);
  if (!channel_.is_writing()) channel_.enable_writing();
}

template <typename B>
inline void TcpConnection<B>::queue_output(const char* data, std::size_t len) {
  const std::size_t queued = queued_bytes();
  if (queued + len >= high_water_mark_ && queued < high_water_mark_ &&
      high_water_cb_) {
    loop_->queue_in_loop(
        [self = this->shared_from_this(), total = queued + len] {
          self->high_water_cb_(self, total);
        });
  }
  output_.append(data, len);
  if (!paused_ && queued_bytes() >= high_water_mark_ && channel_.is_reading()) {
    pause_reading();
  }
}

template <typename B>
inline void TcpConnection<B>::start_send(const char* data, std::size_t len) {
  BufferStorage bytes = io_->send_buffer();
  bytes.assign(data, len);
  start_send(std::move(bytes));
}

template <typename B>
inline void TcpConnection<B>::start_send(BufferStorage bytes) {
  in_flight_ = bytes.size();
  io_->send(&channel_, std::move(bytes));
}

template <typename B>
inline void TcpConnection<B>::flush_output() {
  const std::size_t n = output_.readable_bytes();
  if (n == 0) return;
  if constexpr (ReleasableBuffer<B>) {
    BufferStorage bytes = output_.release();
    output_.adopt(io_->send_buffer());
    start_send(std::move(bytes));
  } else {
    BufferStorage bytes = io_->send_buffer();
    bytes.reserve(n);
    CopyOut(output_.readable(), std::span<char>(bytes.bytes.get(), n));
    output_.retrieve(n);
    bytes.end = n;
    start_send(std::move(bytes));
  }
}

template <typename B>
inline void TcpConnection<B>::handle_sent(std::size_t sent, int error) {
  in_flight_ = 0;
  bytes_written_.fetch_add(sent, std::memory_order_relaxed);
  if (state_.load() == kDisconnected) return;
  if (error != 0) {
    // The peer is gone (EPIPE, ECONNRESET) or the socket failed: what is
    // queued can never be delivered.
    if (error != EPIPE && error != ECONNRESET) {
      reactor_internal::ReportErrno(error, "reactor: %s: send failed",
                                    name_.c_str());
    }
    handle_close();
    return;
  }
  flush_output();
  if (paused_ && queued_bytes() <= low_water_mark_) resume_reading();
  if (in_flight_ > 0) return;
  if (write_complete_cb_) {
    loop_->queue_in_loop(
        [self = this->shared_from_this()] { self->write_complete_cb_(self); });
  }
  if (state_.load() == kDisconnecting) shutdown_in_loop();
  if (close_when_drained_) handle_close();
}

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_INTERNAL_TCP_CONNECTION_IO_H_
