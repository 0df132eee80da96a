// -----------------------------------------------------------------------------
// reactor/poller.h
// -----------------------------------------------------------------------------
//
// `Poller`: the I/O multiplexing interface an EventLoop owns. One
// implementation today, `EpollPoller` (level-triggered epoll); `NewPoller`
// is the factory, so another (io_uring, poll) can be added without touching
// the loop. Must be called in the owning loop's thread.

#ifndef SERVERKIT_REACTOR_POLLER_H_
#define SERVERKIT_REACTOR_POLLER_H_

#include <memory>
#include <vector>

#include "reactor/callbacks.h"

namespace serverkit::reactor {

class Channel;
class EventLoop;

class Poller {
 public:
  using ChannelList = std::vector<Channel*>;

  virtual ~Poller() = default;

  // Waits up to `timeout_ms` and fills `active` with the ready channels.
  virtual Clock::time_point poll(int timeout_ms, ChannelList* active) = 0;
  virtual void update_channel(Channel* channel) = 0;
  virtual void remove_channel(Channel* channel) = 0;
  virtual bool has_channel(Channel* channel) const = 0;
};

// The default poller (epoll).
std::unique_ptr<Poller> NewPoller(EventLoop* loop);

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_POLLER_H_
