// -----------------------------------------------------------------------------
// reactor/tcp_connection.h
// -----------------------------------------------------------------------------
//
// `TcpConnection<B>`: one established TCP connection, with input and output
// buffers of type `B` (any `Buffer` from buffer/), muduo's design.
//
//   - Reads: on readable, one `read_fd` into the input buffer (readv with a
//     64 KiB stack extra), then the message callback with the buffer; the
//     callee retrieves what it consumed. A read that filled 64 KiB may have
//     left bytes, and says so to its channel (`more_to_read`), so that a
//     poller whose reads are edge-triggered looks again. Under io_uring's
//     completion I/O the poller receives instead
//     (reactor/poller/uring_poller.h) and hands the bytes over: they are
//     appended to the input buffer, then the same message callback.
//   - Writes: `send` writes directly when nothing is queued, queues the rest
//     in the output buffer and waits for EPOLLOUT. Under completion I/O the
//     poller sends instead: `send` copies the bytes into a send the poller owns
//     when none is in flight, else queues them in the output buffer, which
//     goes out as the next send when the one in flight completes; the
//     marks, the write-complete callback, shutdown and the half-close
//     count the bytes in flight as queued.
//   - Back-pressure: above the high-water mark of queued output (default
//     kDefaultHighWaterMark, 1 MiB) the connection stops reading (EPOLLIN
//     off), so a peer that sends and never reads stalls in TCP's flow
//     control instead of growing the server's memory; once the output has
//     drained to the low-water mark (default kDefaultLowWaterMark, 256 KiB)
//     it reads again. A connection then holds at most the high mark plus
//     what one message callback sends in reply to one read (a read is at
//     most the input buffer's free space plus 64 KiB; over io_uring, what
//     the loop received for it between two polls, at most its
//     `receive_limit()` (reactor/completion_io.h), since bytes the kernel
//     already took from the socket are delivered, never dropped). Crossing the
//     high mark also calls the high-water-mark callback, once per crossing.
//     `set_water_marks` changes both marks.
//   - Peer half-close: when the peer's EOF arrives the connection stops
//     reading, calls the half-close callback (which may still send), and
//     closes once everything queued has been written; with nothing queued it
//     closes at once. A callback whose replies are still being computed
//     elsewhere calls `hold_open()`, and later `close_when_drained()` (after
//     its last send). A peer that resets while we write closes it at once.
//   - `shutdown()` is a half-close that waits for the output buffer to drain
//     before `shutdown(SHUT_WR)`; reads go on until the peer closes.
//   - `force_close()` closes now; queued output is dropped.
//   - TCP_NODELAY is set on every connection; SO_KEEPALIVE too.
//
// Ownership: shared_ptr, held by its TcpServer / TcpClient and, during event
// dispatch, by its Channel's tie. It owns its socket and closes it in the
// destructor.
//
// Thread-safety: `send`, `shutdown`, `force_close` and the const getters are
// thread-safe (they hop to the loop thread). Everything else must be called
// in the connection's loop thread, and every callback runs there.

#ifndef SERVERKIT_REACTOR_TCP_CONNECTION_H_
#define SERVERKIT_REACTOR_TCP_CONNECTION_H_

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>
#include <string_view>

#include "buffer/buffer.h"
#include "reactor/callbacks.h"
#include "reactor/channel.h"
#include "reactor/completion_io.h"
#include "reactor/event_loop.h"
#include "reactor/internal/report_errno.h"
#include "reactor/socket_ops.h"

namespace serverkit::reactor {

// Back-pressure marks of a new connection (see the header comment).
inline constexpr std::size_t kDefaultHighWaterMark = std::size_t{1} << 20;
inline constexpr std::size_t kDefaultLowWaterMark = std::size_t{256} << 10;

template <typename B>
class TcpConnection : public std::enable_shared_from_this<TcpConnection<B>> {
  static_assert(Buffer<B>, "TcpConnection needs a Buffer (buffer/buffer.h)");

 public:
  using Ptr = TcpConnectionPtr<B>;

  TcpConnection(EventLoop* loop, std::string name, int fd,
                const InetAddress& local, const InetAddress& peer)
      : loop_(loop),
        name_(std::move(name)),
        fd_(fd),
        channel_(loop, fd),
        local_(local),
        peer_(peer) {
    channel_.set_read_callback([this](Clock::time_point t) { handle_read(t); });
    channel_.set_drains_reads(true);  // handle_read: see more_to_read()
    channel_.set_recv_callback(
        [this](Channel::Received& r, Clock::time_point t) {
          handle_received(r, t);
        });
    if (io_ != nullptr) {
      channel_.set_send_callback(
          [this](std::size_t sent, int error) { handle_sent(sent, error); });
    }
    channel_.set_write_callback([this] { handle_write(); });
    channel_.set_close_callback([this] { handle_close(); });
    channel_.set_error_callback([this] { handle_error(); });
    sockets::SetKeepAlive(fd, true);
    sockets::SetTcpNoDelay(fd, true);
  }

  ~TcpConnection() { sockets::Close(fd_); }

  TcpConnection(const TcpConnection&) = delete;
  TcpConnection& operator=(const TcpConnection&) = delete;

  EventLoop* loop() const { return loop_; }
  const std::string& name() const { return name_; }
  const InetAddress& local_address() const { return local_; }
  const InetAddress& peer_address() const { return peer_; }
  bool connected() const { return state_.load() == kConnected; }
  bool disconnected() const { return state_.load() == kDisconnected; }
  int fd() const { return fd_; }

  // Sends `data` (copied). Thread-safe. Dropped, and counted in
  // `dropped_sends()`, once the connection is going down.
  void send(std::string_view data) {
    if (state_.load() != kConnected) {
      dropped_sends_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if (loop_->is_in_loop_thread()) {
      send_in_loop(data.data(), data.size());
    } else {
      loop_->run_in_loop(
          [self = this->shared_from_this(), copy = std::string(data)] {
            self->send_in_loop(copy.data(), copy.size());
          });
    }
  }

  // Sends the readable bytes of `buf` and retrieves them. Loop thread.
  // Over io_uring, with nothing else queued, a buffer that hands its
  // storage over (buffer/buffer.h: LinearBuffer) gives it to the send
  // uncopied and takes a finished send's storage instead.
  void send(B* buf) {
    loop_->assert_in_loop_thread();
    if (state_.load() != kConnected) {
      dropped_sends_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if constexpr (ReleasableBuffer<B>) {
      if (io_ != nullptr && in_flight_ == 0 && output_.readable_bytes() == 0 &&
          buf->readable_bytes() > 0) {
        BufferStorage bytes = buf->release();
        buf->adopt(io_->send_buffer());
        start_send(std::move(bytes));
        return;
      }
    }
    while (buf->readable_bytes() > 0) {
      const ReadableSpans spans = buf->readable();
      send_in_loop(spans.first.data(), spans.first.size());
      buf->retrieve(spans.first.size());
    }
  }

  // Half-close once the output drains. Thread-safe.
  void shutdown() {
    int expected = kConnected;
    if (state_.compare_exchange_strong(expected, kDisconnecting)) {
      loop_->run_in_loop(
          [self = this->shared_from_this()] { self->shutdown_in_loop(); });
    }
  }

  // Closes now, dropping queued output. Thread-safe.
  void force_close() {
    const int s = state_.load();
    if (s == kConnected || s == kDisconnecting) {
      state_.store(kDisconnecting);
      loop_->queue_in_loop(
          [self = this->shared_from_this()] { self->force_close_in_loop(); });
    }
  }

  void start_reading() {
    loop_->run_in_loop([self = this->shared_from_this()] {
      if (!self->channel_.is_reading()) self->channel_.enable_reading();
    });
  }
  void stop_reading() {
    loop_->run_in_loop([self = this->shared_from_this()] {
      if (self->channel_.is_reading()) self->channel_.disable_reading();
    });
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
  // The callback, and `mark` as the high-water mark (the low mark drops to
  // a quarter of it when it was not below it). Loop thread.
  void set_high_water_mark_callback(HighWaterMarkCallback<B> cb,
                                    std::size_t mark) {
    high_water_cb_ = std::move(cb);
    set_water_marks(mark, low_water_mark_ < mark ? low_water_mark_ : mark / 4);
  }
  // Stop reading above `high` queued output bytes, read again at `low` or
  // below; `low` is capped at `high`, and `high` is at least 1. Loop thread.
  void set_water_marks(std::size_t high, std::size_t low) {
    high_water_mark_ = high > 0 ? high : 1;
    low_water_mark_ = low < high_water_mark_ ? low : high_water_mark_;
  }
  std::size_t high_water_mark() const { return high_water_mark_; }
  std::size_t low_water_mark() const { return low_water_mark_; }
  // Called once, in the loop thread, when the peer's EOF arrives: reading
  // has stopped, and the connection closes once its queued output (and
  // whatever the callback sends) has been written, unless the callback
  // calls hold_open().
  void set_half_close_callback(HalfCloseCallback<B> cb) {
    half_close_cb_ = std::move(cb);
  }
  // From the half-close callback: do not close when the output drains; the
  // owner calls close_when_drained() (or force_close()) later. Loop thread.
  void hold_open() {
    loop_->assert_in_loop_thread();
    held_open_ = true;
  }
  // Closes once everything queued (including sends posted before this
  // call from the same thread) has been written; at once when nothing is.
  // Thread-safe.
  void close_when_drained() {
    loop_->run_in_loop([self = this->shared_from_this()] {
      self->close_when_drained_in_loop();
    });
  }
  void set_close_callback(CloseCallback<B> cb) { close_cb_ = std::move(cb); }

  B* input_buffer() { return &input_; }
  B* output_buffer() { return &output_; }

  // Called once by the server or client when it takes the connection.
  // Loop thread.
  void connect_established() {
    loop_->assert_in_loop_thread();
    state_.store(kConnected);
    channel_.tie(this->shared_from_this());
    channel_.enable_reading();
    if (connection_cb_) connection_cb_(this->shared_from_this());
  }

  // Called once by the server / client when it drops the connection; the
  // last call on a connection. Loop thread.
  void connect_destroyed() {
    loop_->assert_in_loop_thread();
    if (state_.load() == kConnected || state_.load() == kDisconnecting) {
      state_.store(kDisconnected);
      channel_.disable_all();
      if (connection_cb_) connection_cb_(this->shared_from_this());
    }
    channel_.remove();
  }

  std::uint64_t bytes_read() const {
    return bytes_read_.load(std::memory_order_relaxed);
  }
  std::uint64_t bytes_written() const {
    return bytes_written_.load(std::memory_order_relaxed);
  }
  std::uint64_t dropped_sends() const {
    return dropped_sends_.load(std::memory_order_relaxed);
  }
  // The peer has half-closed (its EOF arrived). Thread-safe.
  bool peer_half_closed() const {
    return peer_closed_.load(std::memory_order_relaxed);
  }
  // Times reading stopped above the high-water mark. Thread-safe.
  std::uint64_t backpressure_pauses() const {
    return backpressure_pauses_.load(std::memory_order_relaxed);
  }
  // Reading is stopped by back-pressure now. Loop thread.
  bool paused_by_backpressure() const { return paused_; }

 private:
  enum State { kConnecting, kConnected, kDisconnecting, kDisconnected };

  void handle_read(Clock::time_point receive_time);

  // Completion-based reads (a poller that receives for the channel, see
  // reactor/channel.h): the bytes are already here; append them all (or,
  // into an empty input buffer that can, take their storage), call the
  // message callback once, then handle the end of the stream.
  void handle_received(Channel::Received& r, Clock::time_point receive_time);

  void handle_write();

  // The peer's EOF: stop reading, tell the owner, and close once the output
  // has drained (at once when nothing is queued).
  void handle_peer_eof();

  void close_when_drained_in_loop() {
    loop_->assert_in_loop_thread();
    if (state_.load() == kDisconnected) return;
    close_when_drained_ = true;
    if (!writing() && output_.readable_bytes() == 0) handle_close();
  }

  void pause_reading() {
    paused_ = true;
    backpressure_pauses_.fetch_add(1, std::memory_order_relaxed);
    channel_.disable_reading();
  }

  void resume_reading() {
    paused_ = false;
    if (!peer_closed_.load(std::memory_order_relaxed) &&
        state_.load() != kDisconnected && !channel_.is_reading()) {
      channel_.enable_reading();
    }
  }

  void handle_close() {
    loop_->assert_in_loop_thread();
    if (state_.load() == kDisconnected) return;
    state_.store(kDisconnected);
    channel_.disable_all();
    Ptr guard = this->shared_from_this();
    if (connection_cb_) connection_cb_(guard);
    // The owner removes us: we die after this call.
    if (close_cb_) close_cb_(guard);
  }

  void handle_error() {
    const int err = sockets::GetSocketError(fd_);
    if (err != 0 && err != ECONNRESET && err != EPIPE) {
      reactor_internal::ReportErrno(err, "reactor: %s: socket error",
                                    name_.c_str());
    }
  }

  void send_in_loop(const char* data, std::size_t len);

  // Bytes waiting to be written: the output buffer and the send in flight.
  std::size_t queued_bytes() const {
    return output_.readable_bytes() + in_flight_;
  }
  // Output is pending (EPOLLOUT awaited, or a send in flight).
  bool writing() const { return channel_.is_writing() || in_flight_ > 0; }

  // Appends to the output buffer, with the marks' bookkeeping.
  void queue_output(const char* data, std::size_t len);

  // Over io_uring: hands `len` bytes to the poller as one send.
  void start_send(const char* data, std::size_t len);
  void start_send(BufferStorage bytes);

  // Over io_uring: everything in the output buffer as one send (its very
  // storage, where the buffer hands it over).
  void flush_output();

  // The poller finished the send in flight.
  void handle_sent(std::size_t sent, int error);

  void shutdown_in_loop() {
    loop_->assert_in_loop_thread();
    if (!writing()) sockets::ShutdownWrite(fd_);
  }

  void force_close_in_loop() {
    loop_->assert_in_loop_thread();
    const int s = state_.load();
    if (s == kConnected || s == kDisconnecting) handle_close();
  }

  EventLoop* const loop_;
  const std::string name_;
  const int fd_;
  Channel channel_;
  // Over io_uring's completion I/O (the poller sends; null: readiness
  // writes), asked once; the bytes of the send in flight.
  CompletionIo* const io_ = loop_->completion_io();
  std::size_t in_flight_ = 0;
  const InetAddress local_;
  const InetAddress peer_;
  std::atomic<int> state_{kConnecting};
  B input_;
  B output_;
  std::size_t high_water_mark_ = kDefaultHighWaterMark;
  std::size_t low_water_mark_ = kDefaultLowWaterMark;
  bool paused_ = false;              // reading stopped by back-pressure
  bool held_open_ = false;           // hold_open() after the peer's EOF
  bool close_when_drained_ = false;  // close once the output is written
  std::atomic<bool> peer_closed_{false};
  ConnectionCallback<B> connection_cb_;
  MessageCallback<B> message_cb_;
  WriteCompleteCallback<B> write_complete_cb_;
  HighWaterMarkCallback<B> high_water_cb_;
  HalfCloseCallback<B> half_close_cb_;
  CloseCallback<B> close_cb_;
  std::atomic<std::uint64_t> bytes_read_{0};
  std::atomic<std::uint64_t> bytes_written_{0};
  std::atomic<std::uint64_t> dropped_sends_{0};
  std::atomic<std::uint64_t> backpressure_pauses_{0};
};

}  // namespace serverkit::reactor

// The read and write paths' definitions.
#include "reactor/internal/tcp_connection_io.h"  // IWYU pragma: export

#endif  // SERVERKIT_REACTOR_TCP_CONNECTION_H_
