// -----------------------------------------------------------------------------
// reactor/uring_poller.h
// -----------------------------------------------------------------------------
//
// `UringPoller`: readiness through io_uring (liburing 2.3, Debian's
// liburing-dev), behind the same `Poller` interface as `EpollPoller`, so the
// loop, channels and connections are unchanged. Each channel with interest
// has one one-shot IORING_OP_POLL_ADD armed for its mask; a completion is
// the channel's revents, and the channel is re-armed at the next `poll()`
// (after its callbacks ran), so a channel still ready completes again at
// once: level-triggered, as the reactor expects. Every (re-)arm and every
// cancel of one loop iteration goes to the kernel in one
// io_uring_submit_and_wait_timeout, which also waits. A change of interest
// cancels the armed poll (IORING_OP_POLL_REMOVE) and arms the new mask.
// Completions carry a token, never a pointer: a token whose channel was
// removed or re-armed since finds nothing and is dropped, so a late
// completion cannot touch a destroyed channel.
//
// Not used (yet): multishot accept and recv with provided buffers, which
// need a completion-based connection rather than this readiness interface.
//
// Loop thread only.

#ifndef SERVERKIT_REACTOR_URING_POLLER_H_
#define SERVERKIT_REACTOR_URING_POLLER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "reactor/poller.h"

struct io_uring_sqe;

namespace serverkit::reactor {

class UringPoller final : public Poller {
 public:
  // Null, with the reason in *why, when io_uring cannot be set up here (an
  // old kernel, seccomp, kernel.io_uring_disabled).
  static std::unique_ptr<UringPoller> Create(EventLoop* loop, std::string* why);
  ~UringPoller() override;

  Clock::time_point poll(int timeout_ms, ChannelList* active) override;
  void update_channel(Channel* channel) override;
  void remove_channel(Channel* channel) override;
  bool has_channel(Channel* channel) const override;
  PollerBackend backend() const override { return PollerBackend::kUring; }

 private:
  struct Ring;
  struct State {
    std::uint64_t token = 0;  // the armed poll's; 0: not armed
    int mask = 0;             // what it was armed for
    bool queued = false;      // in to_arm_
  };

  UringPoller(EventLoop* loop, std::unique_ptr<Ring> ring);
  void cancel(State* state);
  void arm_queued();
  ::io_uring_sqe* sqe();

  EventLoop* const loop_;
  std::unique_ptr<Ring> ring_;
  std::uint64_t next_token_ = 0;
  std::unordered_map<Channel*, State> states_;
  std::unordered_map<int, Channel*> channels_;         // by fd
  std::unordered_map<std::uint64_t, Channel*> armed_;  // by token
  std::vector<Channel*> to_arm_;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_URING_POLLER_H_
