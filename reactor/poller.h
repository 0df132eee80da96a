// -----------------------------------------------------------------------------
// reactor/poller.h
// -----------------------------------------------------------------------------
//
// `Poller`: the I/O multiplexing interface an EventLoop owns. Two
// implementations: `EpollPoller` (level-triggered epoll readiness, the
// default) and `UringPoller` (io_uring: one-shot polls through the ring, and
// on request completion-based receives and sends where the kernel has
// provided-buffer rings), both in reactor/poller/. `NewPoller`
// (reactor/poller/new_poller.cc) is the factory. Must be called in the owning
// loop's thread.

#ifndef SERVERKIT_REACTOR_POLLER_H_
#define SERVERKIT_REACTOR_POLLER_H_

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "reactor/callbacks.h"
#include "reactor/poller_stats.h"

namespace serverkit::reactor {

class Channel;
class CompletionIo;
class EventLoop;

enum class PollerBackend { kEpoll, kUring };

// How connections read and write over io_uring: on readiness (the ring
// polls, read(2) and write(2) as over epoll; the default, whose tail is
// epoll's: docs/servers.md) or on completion (multishot receives into
// provided buffers, sends that the ring makes, both batched).
enum class UringIo { kReadiness, kCompletion };

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
  // Its completion-based reads and sends (reactor/completion_io.h), or
  // null where channels read and write on readiness. The same for the
  // poller's life: a loop asks once.
  virtual CompletionIo* completion_io() = 0;
  // What it counted so far (reactor/poller_stats.h), `loops` 1.
  virtual PollerStats stats() const = 0;
};

// "epoll" / "uring"; nullopt for anything else.
std::optional<PollerBackend> ParsePollerBackend(std::string_view name);
std::string_view PollerBackendName(PollerBackend backend);

// The backend a loop gets unless its options say otherwise: the
// environment's SERVERKIT_REACTOR_BACKEND ("epoll" or "uring"; the tests
// run the reactor over both this way), else epoll.
PollerBackend DefaultPollerBackend();

// "readiness" / "completion"; nullopt for anything else.
std::optional<UringIo> ParseUringIo(std::string_view name);
std::string_view UringIoName(UringIo io);

// The io_uring I/O a loop gets unless its options say otherwise: the
// environment's SERVERKIT_URING_IO ("readiness" or "completion"), else
// readiness.
UringIo DefaultUringIo();

// The poller of `backend` (over io_uring, reading and writing as `io` says).
// io_uring where it is not permitted (an old kernel, seccomp,
// kernel.io_uring_disabled) falls back to epoll, saying so in one line on
// stderr (once per process).
std::unique_ptr<Poller> NewPoller(
    EventLoop* loop, PollerBackend backend = DefaultPollerBackend(),
    UringIo io = DefaultUringIo());

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_POLLER_H_
