// -----------------------------------------------------------------------------
// reactor/poller/epoll_poller.h
// -----------------------------------------------------------------------------
//
// `EpollPoller`: level-triggered epoll. Channels are registered on first
// interest, modified in place, and deleted from epoll (but kept known) when
// they lose all interest. Loop thread only.

#ifndef SERVERKIT_REACTOR_POLLER_EPOLL_POLLER_H_
#define SERVERKIT_REACTOR_POLLER_EPOLL_POLLER_H_

#include <unordered_map>
#include <vector>

#include "reactor/poller.h"

struct epoll_event;

namespace serverkit::reactor {

class EpollPoller final : public Poller {
 public:
  explicit EpollPoller(EventLoop* loop);
  ~EpollPoller() override;

  Clock::time_point poll(int timeout_ms, ChannelList* active) override;
  void update_channel(Channel* channel) override;
  void remove_channel(Channel* channel) override;
  bool has_channel(Channel* channel) const override;
  PollerBackend backend() const override { return PollerBackend::kEpoll; }
  // Channels read and write on readiness themselves.
  CompletionIo* completion_io() override { return nullptr; }
  PollerStats stats() const override { return stats_; }

 private:
  void ctl(int op, Channel* channel);

  EventLoop* const loop_;
  const int epoll_fd_;
  std::vector<struct epoll_event> events_;
  std::unordered_map<int, Channel*> channels_;
  PollerStats stats_;
  Clock::time_point last_return_{};  // of the last poll(); epoch: none yet
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_POLLER_EPOLL_POLLER_H_
