#include "reactor/poller/epoll_poller.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "reactor/channel.h"
#include "reactor/internal/report_errno.h"

namespace serverkit::reactor {
namespace {
constexpr int kNew = -1;     // never added to epoll
constexpr int kAdded = 1;    // in epoll
constexpr int kDeleted = 2;  // known, but removed from epoll (no interest)
}  // namespace

EpollPoller::EpollPoller(EventLoop* loop)
    : loop_(loop), epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)), events_(16) {
  if (epoll_fd_ < 0) {
    reactor_internal::ReportErrno("reactor: epoll_create1 failed");
    std::abort();
  }
  stats_.loops = 1;
}

EpollPoller::~EpollPoller() { ::close(epoll_fd_); }

Clock::time_point EpollPoller::poll(int timeout_ms, ChannelList* active) {
  // The iteration's busy time, as the io_uring poller counts it.
  if (last_return_ != Clock::time_point{}) {
    ++stats_.busy_us[PollerStats::TimeBucket(Clock::now() - last_return_)];
  }
  ++stats_.polls;
  const int n = ::epoll_wait(epoll_fd_, events_.data(),
                             static_cast<int>(events_.size()), timeout_ms);
  const int saved = errno;
  const auto now = Clock::now();
  if (n >= 0) ++stats_.completions[PollerStats::CountBucket(n)];
  if (n > 0) {
    for (int i = 0; i < n; ++i) {
      auto* channel = static_cast<Channel*>(events_[i].data.ptr);
      channel->set_revents(static_cast<int>(events_[i].events));
      active->push_back(channel);
    }
    if (static_cast<std::size_t>(n) == events_.size()) {
      events_.resize(events_.size() * 2);
    }
  } else if (n < 0 && saved != EINTR) {
    reactor_internal::ReportErrno(saved, "reactor: epoll_wait failed");
  }
  last_return_ = now;
  return now;
}

void EpollPoller::update_channel(Channel* channel) {
  const int index = channel->index();
  if (index == kNew || index == kDeleted) {
    if (index == kNew) channels_[channel->fd()] = channel;
    channel->set_index(kAdded);
    ctl(EPOLL_CTL_ADD, channel);
  } else if (channel->is_none_event()) {
    ctl(EPOLL_CTL_DEL, channel);
    channel->set_index(kDeleted);
  } else {
    ctl(EPOLL_CTL_MOD, channel);
  }
}

void EpollPoller::remove_channel(Channel* channel) {
  channels_.erase(channel->fd());
  if (channel->index() == kAdded) ctl(EPOLL_CTL_DEL, channel);
  channel->set_index(kNew);
}

bool EpollPoller::has_channel(Channel* channel) const {
  auto it = channels_.find(channel->fd());
  return it != channels_.end() && it->second == channel;
}

void EpollPoller::ctl(int op, Channel* channel) {
  struct epoll_event event;
  std::memset(&event, 0, sizeof(event));
  event.events = static_cast<std::uint32_t>(channel->events());
  event.data.ptr = channel;
  if (::epoll_ctl(epoll_fd_, op, channel->fd(), &event) < 0) {
    reactor_internal::ReportErrno("reactor: epoll_ctl(op=%d, fd=%d) failed", op,
                                  channel->fd());
  }
}

}  // namespace serverkit::reactor
