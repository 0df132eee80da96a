#include "reactor/uring_poller.h"

#include <liburing.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "reactor/channel.h"
#include "reactor/internal/report_errno.h"

namespace serverkit::reactor {
namespace {
constexpr unsigned kEntries = 1024;
constexpr std::uint64_t kIgnore = 0;  // the user_data of cancels
}  // namespace

struct UringPoller::Ring {
  struct io_uring ring;
};

std::unique_ptr<UringPoller> UringPoller::Create(EventLoop* loop,
                                                 std::string* why) {
  auto ring = std::make_unique<Ring>();
  const int rc = io_uring_queue_init(kEntries, &ring->ring, 0);
  if (rc < 0) {
    if (why != nullptr) *why = std::strerror(-rc);
    return nullptr;
  }
  return std::unique_ptr<UringPoller>(new UringPoller(loop, std::move(ring)));
}

UringPoller::UringPoller(EventLoop* loop, std::unique_ptr<Ring> ring)
    : loop_(loop), ring_(std::move(ring)) {}

UringPoller::~UringPoller() { io_uring_queue_exit(&ring_->ring); }

::io_uring_sqe* UringPoller::sqe() {
  struct io_uring_sqe* s = io_uring_get_sqe(&ring_->ring);
  if (s == nullptr) {  // the submission queue is full: hand it over first
    io_uring_submit(&ring_->ring);
    s = io_uring_get_sqe(&ring_->ring);
  }
  return s;
}

void UringPoller::cancel(State* state) {
  if (state->token == 0) return;
  armed_.erase(state->token);
  if (struct io_uring_sqe* s = sqe()) {
    io_uring_prep_poll_remove(s, state->token);
    io_uring_sqe_set_data64(s, kIgnore);
  }
  state->token = 0;
}

void UringPoller::arm_queued() {
  for (Channel* channel : to_arm_) {
    State& st = states_[channel];
    st.queued = false;
    if (st.token != 0 || channel->events() == 0) continue;
    struct io_uring_sqe* s = sqe();
    if (s == nullptr) {
      reactor_internal::ReportErrno(EBUSY, "reactor: io_uring queue full");
      continue;
    }
    st.token = ++next_token_;
    st.mask = channel->events();
    io_uring_prep_poll_add(s, channel->fd(),
                           static_cast<unsigned>(channel->events()));
    io_uring_sqe_set_data64(s, st.token);
    armed_[st.token] = channel;
  }
  to_arm_.clear();
}

Clock::time_point UringPoller::poll(int timeout_ms, ChannelList* active) {
  arm_queued();
  struct io_uring_cqe* cqe = nullptr;
  struct __kernel_timespec ts {};
  ts.tv_sec = timeout_ms / 1000;
  ts.tv_nsec = static_cast<long long>(timeout_ms % 1000) * 1000000;
  const int rc = io_uring_submit_and_wait_timeout(
      &ring_->ring, &cqe, 1, timeout_ms >= 0 ? &ts : nullptr, nullptr);
  const auto now = Clock::now();
  if (rc < 0 && rc != -ETIME && rc != -EINTR) {
    reactor_internal::ReportErrno(-rc, "reactor: io_uring_submit_and_wait failed");
  }
  unsigned head;
  unsigned seen = 0;
  io_uring_for_each_cqe(&ring_->ring, head, cqe) {
    ++seen;
    const std::uint64_t token = io_uring_cqe_get_data64(cqe);
    if (token == kIgnore) continue;
    auto it = armed_.find(token);
    if (it == armed_.end()) continue;  // cancelled or its channel removed
    Channel* channel = it->second;
    armed_.erase(it);
    State& st = states_[channel];
    st.token = 0;
    // A failed poll (the file went away under it) reads as an error.
    channel->set_revents(cqe->res >= 0 ? cqe->res : POLLERR);
    active->push_back(channel);
    if (!st.queued) {  // re-armed at the next poll(), after its callbacks
      st.queued = true;
      to_arm_.push_back(channel);
    }
  }
  io_uring_cq_advance(&ring_->ring, seen);
  return now;
}

void UringPoller::update_channel(Channel* channel) {
  auto [it, inserted] = states_.try_emplace(channel);
  if (inserted) channels_[channel->fd()] = channel;
  State& st = it->second;
  if (st.token != 0 && st.mask != channel->events()) cancel(&st);
  if (st.token == 0 && !st.queued && channel->events() != 0) {
    st.queued = true;
    to_arm_.push_back(channel);
  }
}

void UringPoller::remove_channel(Channel* channel) {
  auto it = states_.find(channel);
  if (it != states_.end()) {
    cancel(&it->second);
    if (it->second.queued) {
      for (Channel*& c : to_arm_) {
        if (c == channel) c = nullptr;
      }
      std::erase(to_arm_, nullptr);
    }
    states_.erase(it);
  }
  auto by_fd = channels_.find(channel->fd());
  if (by_fd != channels_.end() && by_fd->second == channel) {
    channels_.erase(by_fd);
  }
}

bool UringPoller::has_channel(Channel* channel) const {
  auto it = channels_.find(channel->fd());
  return it != channels_.end() && it->second == channel;
}

}  // namespace serverkit::reactor
