// -----------------------------------------------------------------------------
// reactor/channel.h
// -----------------------------------------------------------------------------
//
// `Channel`: one file descriptor's interest set and event callbacks, as
// muduo's. A Channel does not own its fd (its owner, e.g. a TcpConnection or
// an Acceptor, closes it). It belongs to one EventLoop; every member must be
// called in that loop's thread. Its owner must call `disable_all()` and
// `remove()` before destroying it.
//
// `tie(obj)`: while the channel dispatches events, it holds a shared_ptr to
// `obj` (the TcpConnection), so a callback that closes the connection cannot
// destroy it in the middle of `handle_event`.

#ifndef SERVERKIT_REACTOR_CHANNEL_H_
#define SERVERKIT_REACTOR_CHANNEL_H_

#include <functional>
#include <memory>

#include "reactor/callbacks.h"

namespace serverkit::reactor {

class EventLoop;

class Channel {
 public:
  using EventCallback = std::function<void()>;
  using ReadEventCallback = std::function<void(Clock::time_point)>;

  Channel(EventLoop* loop, int fd);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Dispatches `revents()` to the callbacks. Loop thread.
  void handle_event(Clock::time_point receive_time);

  void set_read_callback(ReadEventCallback cb) { read_cb_ = std::move(cb); }
  void set_write_callback(EventCallback cb) { write_cb_ = std::move(cb); }
  void set_close_callback(EventCallback cb) { close_cb_ = std::move(cb); }
  void set_error_callback(EventCallback cb) { error_cb_ = std::move(cb); }

  void tie(const std::shared_ptr<void>& obj);

  int fd() const { return fd_; }
  int events() const { return events_; }
  void set_revents(int revents) { revents_ = revents; }
  bool is_none_event() const { return events_ == kNoneEvent; }
  bool is_writing() const { return (events_ & kWriteEvent) != 0; }
  bool is_reading() const { return (events_ & kReadEvent) != 0; }

  void enable_reading() {
    events_ |= kReadEvent;
    update();
  }
  void disable_reading() {
    events_ &= ~kReadEvent;
    update();
  }
  void enable_writing() {
    events_ |= kWriteEvent;
    update();
  }
  void disable_writing() {
    events_ &= ~kWriteEvent;
    update();
  }
  void disable_all() {
    events_ = kNoneEvent;
    update();
  }

  // Removes the channel from its loop's poller. Requires is_none_event().
  void remove();

  EventLoop* owner_loop() const { return loop_; }

  // Poller bookkeeping.
  int index() const { return index_; }
  void set_index(int index) { index_ = index; }

 private:
  static const int kNoneEvent;
  static const int kReadEvent;
  static const int kWriteEvent;

  void update();
  void handle_event_with_guard(Clock::time_point receive_time);

  EventLoop* const loop_;
  const int fd_;
  int events_ = 0;
  int revents_ = 0;
  int index_ = -1;  // the poller's state for this channel
  bool added_to_loop_ = false;
  bool event_handling_ = false;
  bool tied_ = false;
  std::weak_ptr<void> tie_;
  ReadEventCallback read_cb_;
  EventCallback write_cb_;
  EventCallback close_cb_;
  EventCallback error_cb_;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_CHANNEL_H_
