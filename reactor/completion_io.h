// -----------------------------------------------------------------------------
// reactor/completion_io.h
// -----------------------------------------------------------------------------
//
// `CompletionIo`: what a completion-based poller does for a connection,
// beside readiness. A loop's `completion_io()` (reactor/event_loop.h) is
// null over epoll, and over io_uring where its reads and sends are readiness
// too (readiness I/O, the default, or no provided buffers); else it is the
// io_uring poller itself (reactor/poller/uring_poller.h), which then
// receives for channels with a receive callback and sends for channels with
// a send callback (reactor/channel.h).
//
// A connection asks its loop once, at construction, and keeps the pointer:
// each call is then one virtual call, as through the poller before, and a
// null pointer is the readiness path.
//
// Loop thread, except `room_receives()` (any thread).

#ifndef SERVERKIT_REACTOR_COMPLETION_IO_H_
#define SERVERKIT_REACTOR_COMPLETION_IO_H_

#include <cstddef>
#include <cstdint>

#include "buffer/buffer.h"

namespace serverkit::reactor {

class Channel;

class CompletionIo {
 public:
  // The most bytes the poller may receive for one channel between two
  // polls: bytes the kernel already took from the socket are delivered,
  // never dropped, even after the channel stopped reading.
  virtual std::size_t receive_limit() const = 0;
  // Receives the poller made into storage of their own, which a connection
  // may take as its input uncopied (bulk streams). Any thread.
  virtual std::uint64_t room_receives() const = 0;

  // Empty storage to fill and hand to `send` (recycled from finished sends,
  // so a warm loop allocates nothing per message).
  virtual BufferStorage send_buffer() = 0;
  // Storage a connection is done with, for later sends and receives.
  virtual void recycle(BufferStorage storage) = 0;
  // Sends all of `data`'s bytes on the channel's fd, owning them until done
  // (a buffer's own storage goes as it is, uncopied: buffer/buffer.h); the
  // channel's send callback then gets (bytes sent, 0), or (bytes sent
  // before the failure, errno). One send per channel at a time. A channel
  // removed meanwhile never hears of it.
  virtual void send(Channel* channel, BufferStorage data) = 0;

 protected:
  ~CompletionIo() = default;  // owned by its poller, never deleted through
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_COMPLETION_IO_H_
