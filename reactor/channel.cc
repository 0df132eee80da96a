#include "reactor/channel.h"

#include <poll.h>
#include <sys/epoll.h>

#include <cassert>

#include "reactor/completion_io.h"
#include "reactor/event_loop.h"

namespace serverkit::reactor {

const int Channel::kNoneEvent = 0;
const int Channel::kReadEvent = EPOLLIN | EPOLLPRI;
const int Channel::kWriteEvent = EPOLLOUT;

Channel::Channel(EventLoop* loop, int fd) : loop_(loop), fd_(fd) {}

Channel::~Channel() {
  assert(!event_handling_);
  assert(!added_to_loop_ && "remove() the channel before destroying it");
}

void Channel::tie(const std::shared_ptr<void>& obj) {
  tie_ = obj;
  tied_ = true;
}

void Channel::update() {
  added_to_loop_ = true;
  loop_->update_channel(this);
}

void Channel::remove() {
  assert(is_none_event());
  added_to_loop_ = false;
  edge_reads_ = false;  // no poller left to ask
  more_to_read_ = false;
  loop_->remove_channel(this);
}

void Channel::handle_event(Clock::time_point receive_time) {
  if (tied_) {
    std::shared_ptr<void> guard = tie_.lock();
    if (guard) handle_event_with_guard(receive_time);
  } else {
    handle_event_with_guard(receive_time);
  }
}

void Channel::handle_event_with_guard(Clock::time_point receive_time) {
  event_handling_ = true;
  if ((revents_ & EPOLLHUP) && !(revents_ & EPOLLIN)) {
    if (close_cb_) close_cb_();
  }
  if (revents_ & EPOLLERR) {
    if (error_cb_) error_cb_();
  }
  if (sent_done_) {
    sent_done_ = false;
    if (send_cb_) send_cb_(sent_bytes_, sent_error_);
  }
  if (!received_.data.empty() || received_.ended) {
    // Completion-based reads: what the poller received, in one call (only
    // the poller adds to the list, never a callback; clearing keeps the
    // vector's capacity, so no allocation per message).
    if (recv_cb_) recv_cb_(received_, receive_time);
    if (received_.storage.bytes != nullptr) {
      // Only a completion-based poller hands over storage.
      loop_->completion_io()->recycle(std::move(received_.storage));
    }
    clear_received();
  }
  if (revents_ & (EPOLLIN | EPOLLPRI | EPOLLRDHUP)) {
    if (read_cb_) read_cb_(receive_time);
  }
  if (revents_ & EPOLLOUT) {
    if (write_cb_) write_cb_();
  }
  event_handling_ = false;
}

}  // namespace serverkit::reactor
