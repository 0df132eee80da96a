#include "reactor/connector.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "reactor/event_loop.h"

namespace serverkit::reactor {
namespace {
constexpr std::chrono::milliseconds kInitialRetryDelay{50};
constexpr std::chrono::milliseconds kMaxRetryDelay{5000};
}  // namespace

Connector::Connector(EventLoop* loop, const InetAddress& server,
                     int max_attempts)
    : loop_(loop),
      server_(server),
      max_attempts_(max_attempts),
      retry_delay_(kInitialRetryDelay) {}

Connector::~Connector() {
  // The owner stops us in the loop thread before dropping us; a pending
  // channel would dangle.
  if (channel_) {
    channel_->disable_all();
    channel_->remove();
  }
}

void Connector::start() {
  connect_ = true;
  loop_->run_in_loop([self = shared_from_this()] { self->start_in_loop(); });
}

void Connector::stop() {
  connect_ = false;
  loop_->run_in_loop([self = shared_from_this()] {
    if (self->retry_timer_ != 0) self->loop_->cancel(self->retry_timer_);
    if (self->state_ == kConnecting) {
      self->state_ = kDisconnected;
      sockets::Close(self->remove_and_reset_channel());
    }
  });
}

void Connector::restart() {
  loop_->assert_in_loop_thread();
  state_ = kDisconnected;
  retry_delay_ = kInitialRetryDelay;
  attempts_ = 0;
  connect_ = true;
  start_in_loop();
}

void Connector::start_in_loop() {
  loop_->assert_in_loop_thread();
  retry_timer_ = 0;
  if (connect_ && state_ == kDisconnected) connect();
}

void Connector::connect() {
  ++attempts_;
  total_attempts_.fetch_add(1, std::memory_order_relaxed);
  int fd;
  try {
    fd = sockets::CreateNonblockingTcp();
  } catch (const std::exception& e) {
    if (failure_cb_) failure_cb_(e.what());
    return;
  }
  const int err = sockets::Connect(fd, server_);
  switch (err) {
    case 0:
    case EINPROGRESS:
    case EINTR:
    case EISCONN:
      connecting(fd);
      break;
    case EAGAIN:
    case EADDRINUSE:
    case EADDRNOTAVAIL:
    case ECONNREFUSED:
    case ENETUNREACH:
    case ETIMEDOUT:
      retry_after_error(fd, err);
      break;
    default:
      sockets::Close(fd);
      if (failure_cb_) {
        failure_cb_("connect to " + server_.to_string() + ": " +
                    std::strerror(err));
      }
      break;
  }
}

void Connector::connecting(int fd) {
  state_ = kConnecting;
  channel_ = std::make_unique<Channel>(loop_, fd);
  channel_->set_write_callback([this] { handle_write(); });
  channel_->set_error_callback([this] { handle_error(); });
  channel_->enable_writing();
}

int Connector::remove_and_reset_channel() {
  channel_->disable_all();
  channel_->remove();
  const int fd = channel_->fd();
  // We may be inside the channel's handle_event: destroy it later.
  loop_->queue_in_loop(
      [doomed = std::shared_ptr<Channel>(channel_.release())] {});
  return fd;
}

void Connector::handle_write() {
  if (state_ != kConnecting) return;
  const int fd = remove_and_reset_channel();
  const int err = sockets::GetSocketError(fd);
  if (err != 0) {
    retry_after_error(fd, err);
  } else if (sockets::IsSelfConnect(fd)) {
    retry(fd, "self connect");
  } else {
    state_ = kConnected;
    if (connect_ && new_conn_cb_) {
      new_conn_cb_(fd);
    } else {
      sockets::Close(fd);
    }
  }
}

void Connector::handle_error() {
  if (state_ != kConnecting) return;
  const int fd = remove_and_reset_channel();
  retry_after_error(fd, sockets::GetSocketError(fd));
}

void Connector::retry_after_error(int fd, int err) {
  if (err == ECONNREFUSED) {
    refused_attempts_.fetch_add(1, std::memory_order_relaxed);
  }
  retry(fd, std::strerror(err));
}

void Connector::retry(int fd, const std::string& reason) {
  sockets::Close(fd);
  state_ = kDisconnected;
  if (!connect_) return;
  if (max_attempts_ > 0 && attempts_ >= max_attempts_) {
    if (failure_cb_) {
      failure_cb_("connect to " + server_.to_string() + " failed after " +
                  std::to_string(attempts_) + " attempts: " + reason);
    }
    return;
  }
  retry_timer_ = loop_->run_after(
      retry_delay_, [self = shared_from_this()] { self->start_in_loop(); });
  retry_delay_ = std::min(retry_delay_ * 2, kMaxRetryDelay);
}

}  // namespace serverkit::reactor
