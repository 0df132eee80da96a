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
//
// Completion-based reads. A channel with a receive callback
// (`set_recv_callback`) lets a poller that can receive for it (UringPoller:
// a multishot recv into provided buffers) do the reading: while reading is
// enabled the poller receives, hands what arrived to the channel
// (`add_received`, `end_received`), and `handle_event` passes it all, in
// order, to the receive callback once per loop iteration instead of
// calling the read callback. The views point into the poller's buffers and
// are valid until the poller's next `poll()`: the callback copies what it
// keeps. A poller that cannot (EpollPoller) ignores the receive callback
// and the channel reads on readiness as before, so an owner sets both.
// Data received after reading was disabled (in flight when the receive was
// cancelled) is still delivered: the socket no longer holds it.
//
// Reads that drain. An owner whose read callback reads the fd until the
// kernel holds nothing more, or else calls `more_to_read()`, says so once
// (`set_drains_reads`). A poller may then keep its read interest armed
// across events (UringPoller: one multishot poll instead of a one-shot per
// event) and mark the channel `edge_reads()`; `more_to_read()` on such a
// channel asks the poller for one level-triggered look before it goes on.
// Elsewhere (EpollPoller, level-triggered) it does nothing.
//
// Completion-based writes, likewise: a poller that sends for the channel
// (reactor/completion_io.h) reports each finished send (`add_sent`), and
// `handle_event` passes it to the send callback, before any received data.

#ifndef SERVERKIT_REACTOR_CHANNEL_H_
#define SERVERKIT_REACTOR_CHANNEL_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "buffer/buffer.h"
#include "reactor/callbacks.h"

namespace serverkit::reactor {

class EventLoop;

class Channel {
 public:
  using EventCallback = std::function<void()>;
  using ReadEventCallback = std::function<void(Clock::time_point)>;

  // What a poller received for the channel since its last dispatch: the
  // bytes in order, then possibly the end of the stream: `ended` with
  // `error` 0 for the peer's EOF, else the errno that ended it.
  // `storage`, when it holds bytes, owns those of the last view (a receive
  // into storage of its own, not the poller's ring): the callback may take
  // it (buffer/buffer.h, adopt()) instead of copying.
  struct Received {
    std::vector<std::string_view> data;
    BufferStorage storage;
    bool ended = false;
    int error = 0;
  };
  using RecvCallback = std::function<void(Received&, Clock::time_point)>;
  // A send the poller finished: the bytes it sent, and 0 or the errno that
  // stopped it.
  using SendCallback = std::function<void(std::size_t sent, int error)>;

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
  void set_recv_callback(RecvCallback cb) { recv_cb_ = std::move(cb); }
  bool has_recv_callback() const { return static_cast<bool>(recv_cb_); }
  void set_send_callback(SendCallback cb) { send_cb_ = std::move(cb); }
  bool has_send_callback() const { return static_cast<bool>(send_cb_); }

  // Poller side of completion-based reads and writes (loop thread).
  // `clear_received` drops what was not dispatched (the poller calls it
  // before the first add of an iteration, so no view outlives its buffer).
  void add_received(std::string_view data) { received_.data.push_back(data); }
  // Bytes received into `storage` (at most one per dispatch, the last).
  void add_received(BufferStorage storage) {
    if (received_.storage.bytes != nullptr) {  // an earlier view's: kept
      held_.push_back(std::move(received_.storage));
    }
    received_.data.emplace_back(storage.data(), storage.size());
    received_.storage = std::move(storage);
  }
  void end_received(int error) {
    received_.ended = true;
    received_.error = error;
  }
  void add_sent(std::size_t bytes, int error) {
    sent_done_ = true;
    sent_bytes_ = bytes;
    sent_error_ = error;
  }
  void clear_received() {
    received_.data.clear();
    received_.storage = {};
    held_.clear();
    received_.ended = false;
    received_.error = 0;
    sent_done_ = false;
  }

  void tie(const std::shared_ptr<void>& obj);

  int fd() const { return fd_; }
  int events() const { return events_; }
  void set_revents(int revents) { revents_ = revents; }
  int revents() const { return revents_; }
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

  void set_drains_reads(bool drains) { drains_reads_ = drains; }
  bool drains_reads() const { return drains_reads_; }
  // The owner's read may have left bytes in the kernel (see the header).
  void more_to_read() {
    if (!edge_reads_) return;
    more_to_read_ = true;
    update();
  }
  // Poller side: reads are edge-triggered now; a request for one more look.
  void set_edge_reads(bool edge) { edge_reads_ = edge; }
  bool edge_reads() const { return edge_reads_; }
  bool take_more_to_read() { return std::exchange(more_to_read_, false); }

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
  bool drains_reads_ = false;
  bool edge_reads_ = false;
  bool more_to_read_ = false;
  std::weak_ptr<void> tie_;
  ReadEventCallback read_cb_;
  EventCallback write_cb_;
  EventCallback close_cb_;
  EventCallback error_cb_;
  RecvCallback recv_cb_;
  Received received_;
  std::vector<BufferStorage> held_;  // storage of earlier views, this dispatch
  SendCallback send_cb_;
  bool sent_done_ = false;
  std::size_t sent_bytes_ = 0;
  int sent_error_ = 0;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_CHANNEL_H_
