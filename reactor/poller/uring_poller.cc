#include "reactor/poller/uring_poller.h"

#include <liburing.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include "base/parse_number.h"
#include "reactor/channel.h"
#include "reactor/internal/report_errno.h"
#include "reactor/poller/internal/uring_buffers.h"
#include "reactor/poller/internal/uring_ring.h"
#include "reactor/poller/internal/uring_sends.h"

namespace serverkit::reactor {
namespace {

constexpr unsigned kEntries = 1024;

// The environment variable `name` as a count (base/parse_number.h's
// spelling), or nullopt where it is unset or empty; one that is not a count
// is said on stderr and ignored.
std::optional<std::size_t> EnvCount(const char* name, const char* what) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  const std::optional<std::size_t> n = ParseNumber<std::size_t>(v);
  if (!n) {
    std::fprintf(stderr, "reactor: %s=%s is not a %s; ignored\n", name, v,
                 what);
  }
  return n;
}

// SERVERKIT_URING_ROOM_BUDGET=BYTES (tests only): the rooms' budget.
std::size_t RoomBudget(std::size_t fallback) {
  return EnvCount("SERVERKIT_URING_ROOM_BUDGET", "byte count")
      .value_or(fallback);
}

// SERVERKIT_URING_FLUSH_SENDS=N: the sends that make the send path submit
// before the poll (reactor/poller/internal/uring_sends.h); 0: never, as
// before that submit existed (for comparisons).
std::size_t FlushSends() {
  const std::size_t n =
      EnvCount("SERVERKIT_URING_FLUSH_SENDS", "count")
          .value_or(reactor_internal::UringSends::kFlushSends);
  return n == 0 ? SIZE_MAX : n;
}

}  // namespace

std::unique_ptr<UringPoller> UringPoller::Create(EventLoop* loop,
                                                 std::string* why, UringIo io) {
  auto ring = reactor_internal::UringRing::Create(kEntries, why);
  if (ring == nullptr) return nullptr;
  auto poller =
      std::unique_ptr<UringPoller>(new UringPoller(loop, std::move(ring)));
  if (io == UringIo::kReadiness) return poller;
  poller->room_budget_ = RoomBudget(kRoomBudgetBytes);
  poller->buffers_ = reactor_internal::ProvidedBuffers::Register(
      poller->ring_->get(), kBuffers, kBufferBytes);
  return poller;
}

UringPoller::UringPoller(EventLoop* loop,
                         std::unique_ptr<reactor_internal::UringRing> ring)
    : loop_(loop),
      ring_(std::move(ring)),
      sends_(std::make_unique<reactor_internal::UringSends>(ring_.get(),
                                                            FlushSends())) {}

UringPoller::~UringPoller() {
  // The kernel lets go of the provided buffers and the sends' bytes (and
  // unregisters the buffer ring) before they are freed.
  ring_.reset();
}

// Puts the channel in this iteration's active list once, with fresh revents
// and an empty received list.
void UringPoller::activate(Channel* channel, State* state,
                           ChannelList* active) {
  if (state->seen == iteration_) return;
  state->seen = iteration_;
  channel->set_revents(0);
  channel->clear_received();
  active->push_back(channel);
}

Clock::time_point UringPoller::poll(int timeout_ms, ChannelList* active) {
  const auto start = Clock::now();
  if (last_return_ != Clock::time_point{}) {
    ++stats_.busy_us[PollerStats::TimeBucket(start - last_return_)];
  }
  ++stats_.polls;
  ring_->enable_once();
  // Buffers handed out in the last iteration: their channels' callbacks
  // have run (or the channels are gone), so the kernel may fill them again.
  if (buffers_ != nullptr) buffers_->recycle();
  // Cancels that found no submission entry before (in their order, ahead
  // of new arms for the same channel), then the sends queued since the
  // last poll().
  ring_->prep_waiting_cancels();
  sends_->prep_waiting();
  // A channel's new poll or receive goes after the cancel of its old one:
  // while a cancel waits for an entry, so do the arms.
  if (!ring_->cancels_waiting()) arm_queued();
  // Operations still without a submission entry: look again at once.
  if (ring_->cancels_waiting() || sends_->waiting() || !to_arm_.empty()) {
    timeout_ms = 0;
  }
  ++iteration_;
  stats_.sends_late += sends_->waiting_count();
  ++stats_.sends_per_submit[PollerStats::CountBucket(sends_since_submit_)];
  const auto before = sends_since_submit_ > 0 ? Clock::now() : start;
  if (sends_since_submit_ > 0) {
    ++stats_.send_wait_us[PollerStats::TimeBucket(before - first_send_)];
    sends_since_submit_ = 0;
  }
  const int rc = ring_->submit_and_wait(timeout_ms);
  const auto now = Clock::now();
  ++stats_.enters;
  stats_.enter_ns += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - before)
          .count());
  ++stats_.enter_us[PollerStats::TimeBucket(now - before)];
  if (rc < 0 && rc != -ETIME && rc != -EINTR) {
    reactor_internal::ReportErrno(-rc,
                                  "reactor: io_uring_submit_and_wait failed");
  }
  reap(active);
  ring_->submit_leftovers();
  last_return_ = now;
  return now;
}

// Hands every completion to its path. A token nobody holds any more was a
// removed channel's, or a re-armed one's: dropped.
void UringPoller::reap(ChannelList* active) {
  struct io_uring* ring = ring_->get();
  struct io_uring_cqe* cqe = nullptr;
  unsigned head;
  unsigned seen = 0;
  io_uring_for_each_cqe(ring, head, cqe) {
    ++seen;
    const std::uint64_t token = io_uring_cqe_get_data64(cqe);
    if (token == reactor_internal::kIgnoreToken) continue;
    if (auto it = recvs_.find(token); it != recvs_.end()) {
      on_recv(it->second, cqe, active);
    } else if (sends_->has(token)) {
      on_send(token, cqe->res, active);
    } else if (armed_.count(token) != 0) {
      on_poll(cqe, active);
    } else if (auto room = rooms_.find(token); room != rooms_.end()) {
      // A one-shot receive of a removed channel: its storage is free now.
      room_bytes_ -= room->second.capacity;
      sends_->keep(std::move(room->second));
      rooms_.erase(room);
    } else if ((cqe->flags & IORING_CQE_F_BUFFER) && buffers_ != nullptr) {
      // A receive of a removed channel: nobody to give the bytes to.
      buffers_->give_back(
          static_cast<std::uint16_t>(cqe->flags >> IORING_CQE_BUFFER_SHIFT));
    }
  }
  io_uring_cq_advance(ring, seen);
  ++stats_.completions[PollerStats::CountBucket(seen)];
}

PollerStats UringPoller::stats() const {
  PollerStats s = stats_;
  s.loops = 1;
  s.sq_full = ring_->sq_full();
  s.sq_refused = ring_->sq_refused();
  s.send_flushes = sends_->flushes();
  return s;
}

BufferStorage UringPoller::send_buffer() { return sends_->spare_buffer(); }

void UringPoller::recycle(BufferStorage storage) {
  sends_->keep(std::move(storage));
}

void UringPoller::send(Channel* channel, BufferStorage data) {
  const std::uint64_t token = ++next_token_;
  // Read before start(): an early submit's own system call (the kernel
  // sending every queued reply) is not part of the oldest one's wait.
  const bool first = sends_since_submit_++ == 0;
  const auto now =
      first || sends_->flush_due() ? Clock::now() : Clock::time_point{};
  if (first) first_send_ = now;
  ++stats_.sends;
  state_of(channel)->send_token = token;
  const std::uint64_t flushes = sends_->flushes();
  sends_->start(token, channel, channel->fd(), std::move(data));
  if (sends_->flushes() != flushes) {  // handed over now, not at the poll
    ++stats_.send_wait_us[PollerStats::TimeBucket(now - first_send_)];
    ++stats_.sends_per_submit[PollerStats::CountBucket(sends_since_submit_)];
    sends_since_submit_ = 0;
  }
}

void UringPoller::on_send(std::uint64_t token, int res, ChannelList* active) {
  const reactor_internal::UringSends::Done done = sends_->complete(token, res);
  if (done.channel == nullptr) return;
  State& st = *state_of(done.channel);
  st.send_token = 0;
  activate(done.channel, &st, active);
  done.channel->add_sent(done.bytes, done.error);
}

void UringPoller::update_channel(Channel* channel) {
  State& st = *state_of(channel);
  const int mask = poll_mask(channel);
  // The owner's read may have left bytes: a one-shot poll looks (level)
  // before the next multishot one.
  if (channel->take_more_to_read()) {
    st.look_once = true;
    if (st.multishot) cancel(&st);
  }
  if (st.token != 0 && st.mask != mask) cancel(&st);
  if (st.recv_token != 0 && !wants_recv(channel)) cancel_recv(&st);
  if ((st.token == 0 && mask != 0) ||
      (st.recv_token == 0 && wants_recv(channel))) {
    queue(channel, &st);
  }
}

void UringPoller::remove_channel(Channel* channel) {
  if (const int slot = channel->index(); slot >= 0) {
    State& st = slots_[static_cast<std::size_t>(slot)];
    cancel(&st);
    cancel_recv(&st);
    if (st.send_token != 0) sends_->drop(st.send_token);
    // Late completions of its receives find no channel; their buffers are
    // recycled in poll().
    for (std::uint64_t token : st.live_recvs) recvs_.erase(token);
    if (st.queued) {
      for (Channel*& c : to_arm_) {
        if (c == channel) c = nullptr;
      }
      std::erase(to_arm_, nullptr);
    }
    st = State{};
    free_slots_.push_back(slot);
    channel->set_index(-1);
  }
  auto by_fd = channels_.find(channel->fd());
  if (by_fd != channels_.end() && by_fd->second == channel) {
    channels_.erase(by_fd);
  }
}

// The channel's state, in the slot its index() names; a channel seen for
// the first time gets one (a free slot where there is one).
UringPoller::State* UringPoller::state_of(Channel* channel) {
  int slot = channel->index();
  if (slot < 0) {
    if (free_slots_.empty()) {
      slot = static_cast<int>(slots_.size());
      slots_.emplace_back();
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    channel->set_index(slot);
    channels_[channel->fd()] = channel;
  }
  return &slots_[static_cast<std::size_t>(slot)];
}

bool UringPoller::has_channel(Channel* channel) const {
  auto it = channels_.find(channel->fd());
  return it != channels_.end() && it->second == channel;
}

}  // namespace serverkit::reactor
