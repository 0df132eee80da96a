// -----------------------------------------------------------------------------
// reactor/poller.h
// -----------------------------------------------------------------------------
//
// `Poller`: the I/O multiplexing interface an EventLoop owns. Two
// implementations: `EpollPoller` (level-triggered epoll readiness, the
// default) and `UringPoller` (io_uring: completion-based receives and sends
// where the kernel has provided-buffer rings, one-shot polls for the rest;
// reactor/uring_poller.h). `NewPoller` is the factory. Must be called in the
// owning loop's thread.

#ifndef SERVERKIT_REACTOR_POLLER_H_
#define SERVERKIT_REACTOR_POLLER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "buffer/buffer.h"
#include "reactor/callbacks.h"

namespace serverkit::reactor {

class Channel;
class EventLoop;

enum class PollerBackend { kEpoll, kUring };

class Poller {
 public:
  using ChannelList = std::vector<Channel*>;

  virtual ~Poller() = default;

  // Waits up to `timeout_ms` and fills `active` with the ready channels.
  virtual Clock::time_point poll(int timeout_ms, ChannelList* active) = 0;
  virtual void update_channel(Channel* channel) = 0;
  virtual void remove_channel(Channel* channel) = 0;
  virtual bool has_channel(Channel* channel) const = 0;
  // "epoll" or "uring": what this loop really uses (after any fallback).
  virtual PollerBackend backend() const = 0;
  // The most bytes it may receive for one channel between two polls when
  // it reads for channels (completion-based reads, reactor/channel.h); 0
  // when channels read on readiness themselves.
  virtual std::size_t receive_limit() const { return 0; }
  // Receives the poller made into storage of their own, which a
  // connection may take as its input uncopied (reactor/uring_poller.h,
  // bulk streams); 0 where it makes none. Any thread.
  virtual std::uint64_t room_receives() const { return 0; }

  // Completion-based writes (reactor/channel.h). `sends()`: this poller
  // sends for channels with a send callback. `send_buffer()`: empty
  // storage to fill and hand to `send` (recycled from finished sends, so a
  // warm loop allocates nothing per message). `send(channel, data)`: sends
  // all of `data`'s bytes on the channel's fd, owning them until done (a
  // buffer's own storage goes as it is, uncopied: buffer/buffer.h); the
  // channel's send callback then gets (bytes sent, 0), or (bytes sent
  // before the failure, errno). One send per channel at a time. A channel
  // removed meanwhile never hears of it. Loop thread.
  virtual bool sends() const { return false; }
  virtual BufferStorage send_buffer() { return {}; }
  // Storage a connection is done with, for later sends and receives
  // (freed where the poller keeps none).
  virtual void recycle(BufferStorage /*storage*/) {}
  virtual void send(Channel* channel, BufferStorage data);
};

// "epoll" / "uring"; nullopt for anything else.
std::optional<PollerBackend> ParsePollerBackend(std::string_view name);
std::string_view PollerBackendName(PollerBackend backend);

// The backend a loop gets unless its options say otherwise: the
// environment's SERVERKIT_REACTOR_BACKEND ("epoll" or "uring"; the tests
// run the reactor over both this way), else epoll.
PollerBackend DefaultPollerBackend();

// The poller of `backend`. io_uring where it is not permitted (an old
// kernel, seccomp, kernel.io_uring_disabled) falls back to epoll, saying so
// in one line on stderr (once per process).
std::unique_ptr<Poller> NewPoller(
    EventLoop* loop, PollerBackend backend = DefaultPollerBackend());

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_POLLER_H_
