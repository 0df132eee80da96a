// UringPoller's poll-and-receive path: the one-shot POLL_ADDs that carry
// every readiness interest, and the multishot receives that fill the
// provided buffers (reactor/poller/uring_poller.h).

#include <liburing.h>
#include <poll.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "reactor/channel.h"
#include "reactor/poller/internal/uring_buffers.h"
#include "reactor/poller/internal/uring_ring.h"
#include "reactor/poller/internal/uring_sends.h"
#include "reactor/poller/uring_poller.h"

namespace serverkit::reactor {
namespace {

constexpr int kReadMask = EPOLLIN | EPOLLPRI;

// SERVERKIT_URING_MULTISHOT_POLL=0: every poll one-shot, as before reads
// that drain kept theirs armed (for comparisons).
bool MultishotPolls() {
  static const bool on = [] {
    const char* v = std::getenv("SERVERKIT_URING_MULTISHOT_POLL");
    return v == nullptr || std::string_view(v) != "0";
  }();
  return on;
}

}  // namespace

bool UringPoller::receives_for(const Channel* channel) const {
  return buffers_ != nullptr && channel->has_recv_callback();
}

int UringPoller::poll_mask(const Channel* channel) const {
  return receives_for(channel) ? channel->events() & ~kReadMask
                               : channel->events();
}

bool UringPoller::wants_recv(const Channel* channel) const {
  return receives_for(channel) && channel->is_reading();
}

void UringPoller::cancel(State* state) {
  if (state->token == 0) return;
  armed_.erase(state->token);
  // POLL_REMOVE gives up (-EALREADY) on a multishot poll whose wake-up is
  // being handled and leaves it armed, holding the file: ASYNC_CANCEL
  // marks it instead, and it ends at its next run.
  ring_->cancel(state->token, /*poll=*/!state->multishot);
  state->token = 0;
  state->multishot = false;
}

// The receive stays in recvs_ until its last completion: what it took from
// the socket before the cancel is still delivered.
void UringPoller::cancel_recv(State* state) {
  if (state->recv_token == 0) return;
  ring_->cancel(state->recv_token, /*poll=*/false);
  state->recv_token = 0;
}

void UringPoller::queue(Channel* channel, State* state) {
  if (state->queued) return;
  state->queued = true;
  to_arm_.push_back(channel);
}

// A channel whose poll or receive finds no submission entry stays queued,
// with those after it, for the next poll().
void UringPoller::arm_queued() {
  reactor_internal::ErasePrefixWhile(to_arm_, [this](Channel* channel) {
    State& st = *state_of(channel);
    if (!arm(channel, &st)) return false;
    st.queued = false;
    return true;
  });
}

bool UringPoller::arm(Channel* channel, State* state) {
  State& st = *state;
  const int mask = poll_mask(channel);
  if (st.token == 0 && mask != 0) {
    struct io_uring_sqe* s = ring_->sqe();
    if (s == nullptr) return false;
    st.token = ++next_token_;
    st.mask = mask;
    // A read-only interest of an owner that drains its reads stays armed:
    // no re-arm per event. A one-shot poll is level-triggered: for
    // writes, and for the look the owner asked for.
    const bool reads = (mask & kReadMask) != 0;
    const bool read_only = reads && (mask & ~kReadMask) == 0;
    // After the peer's FIN a one-shot write poll completes at once (RDHUP),
    // so a write-only interest then stays armed too (see the header).
    st.multishot = channel->drains_reads() && MultishotPolls() &&
                   ((read_only && !st.look_once) || (!reads && st.peer_hup));
    if (st.multishot) {
      // RDHUP too: the peer's FIN may come with the last bytes, and a read
      // that takes them leaves the EOF with no wake-up after it.
      io_uring_prep_poll_multishot(s, channel->fd(),
                                   static_cast<unsigned>(mask | EPOLLRDHUP));
    } else {
      io_uring_prep_poll_add(s, channel->fd(), static_cast<unsigned>(mask));
    }
    channel->set_edge_reads(st.multishot && reads);
    io_uring_sqe_set_data64(s, st.token);
    armed_[st.token] = channel;
  }
  if (st.recv_token == 0 && wants_recv(channel)) {
    struct io_uring_sqe* s = ring_->sqe();
    if (s == nullptr) return false;
    st.recv_token = ++next_token_;
    if (st.bulk && room_bytes_ + st.room > room_budget_) {
      st.bulk = false;  // over the budget: through the ring
      st.room = kRoomBytes;
    }
    if (st.bulk) {
      BufferStorage room = sends_->spare_buffer();
      room.reserve(st.room);
      io_uring_prep_recv(s, channel->fd(), room.bytes.get(), room.capacity, 0);
      room_bytes_ += room.capacity;
      rooms_.emplace(st.recv_token, std::move(room));
    } else {
      io_uring_prep_recv_multishot(s, channel->fd(), nullptr, 0, 0);
      s->flags |= IOSQE_BUFFER_SELECT;
      s->buf_group = reactor_internal::ProvidedBuffers::kGroup;
    }
    io_uring_sqe_set_data64(s, st.recv_token);
    recvs_[st.recv_token] = channel;
    st.live_recvs.push_back(st.recv_token);
  }
  return true;
}

void UringPoller::on_poll(const ::io_uring_cqe* cqe, ChannelList* active) {
  auto it = armed_.find(io_uring_cqe_get_data64(cqe));
  Channel* channel = it->second;
  State& st = *state_of(channel);
  if (cqe->res > 0 && (cqe->res & EPOLLRDHUP)) st.peer_hup = true;
  if (cqe->flags & IORING_CQE_F_MORE) {  // a multishot poll, still armed
    activate(channel, &st, active);
    channel->set_revents(channel->revents() | cqe->res);
    // The stream ends (EOF, reset, error) while reading: from here on
    // level-triggered, so that what is left to read (the EOF itself) is
    // seen again.
    if ((st.mask & kReadMask) != 0 &&
        (cqe->res & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
      st.look_once = true;
      cancel(&st);
      queue(channel, &st);
    }
    return;
  }
  armed_.erase(it);
  st.token = 0;
  st.multishot = false;
  st.look_once = false;  // this was the look, or the poll ended anyway
  activate(channel, &st, active);
  // A failed poll (the file went away under it) reads as an error.
  channel->set_revents(channel->revents() |
                       (cqe->res >= 0 ? cqe->res : POLLERR));
  queue(channel, &st);  // re-armed at the next poll(), after its callbacks
}

void UringPoller::on_recv(Channel* channel, const ::io_uring_cqe* cqe,
                          ChannelList* active) {
  const std::uint64_t token = io_uring_cqe_get_data64(cqe);
  State& st = *state_of(channel);
  const int res = cqe->res;
  bool more = false;
  if (auto room = rooms_.find(token); room != rooms_.end()) {
    BufferStorage bytes = std::move(room->second);
    room_bytes_ -= bytes.capacity;
    rooms_.erase(room);
    on_room_recv(channel, &st, std::move(bytes), res, active);
  } else {
    more = on_ring_recv(channel, &st, cqe, active);
  }
  if (res == -ENOBUFS) ++stats_.enobufs;
  bool stream_ended = false;
  if (res == 0) {  // the peer's EOF
    activate(channel, &st, active);
    channel->end_received(0);
    stream_ended = true;
  } else if (res < 0 && res != -ENOBUFS && res != -ECANCELED) {
    activate(channel, &st, active);
    channel->end_received(-res);
    stream_ended = true;
  }
  if (more) return;
  // This receive is over: forget its token; while the channel still reads
  // (out of buffers, or the kernel ended it), arm a new one next poll().
  recvs_.erase(token);
  std::erase(st.live_recvs, token);
  if (st.recv_token == token) {
    st.recv_token = 0;
    if (!stream_ended && wants_recv(channel)) {
      ++stats_.recv_rearms;
      queue(channel, &st);
    }
  }
}

// A multishot receive's completion; whether more are to come. A full
// provided buffer marks a bulk stream: this receive is cancelled (what it
// took is still delivered) and the next is one-shot into a room.
bool UringPoller::on_ring_recv(Channel* channel, State* state,
                               const ::io_uring_cqe* cqe, ChannelList* active) {
  const int res = cqe->res;
  if (cqe->flags & IORING_CQE_F_BUFFER) {
    const auto id =
        static_cast<std::uint16_t>(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
    buffers_->give_back(id);
    if (res > 0) {
      activate(channel, state, active);
      channel->add_received(
          std::string_view(buffers_->at(id), static_cast<std::size_t>(res)));
      const std::uint64_t token = io_uring_cqe_get_data64(cqe);
      if (static_cast<std::size_t>(res) == kBufferBytes && !state->bulk &&
          state->recv_token == token &&
          room_bytes_ + kRoomBytes <= room_budget_) {
        state->bulk = true;
        cancel_recv(state);
        queue(channel, state);
      }
    }
  }
  return (cqe->flags & IORING_CQE_F_MORE) != 0;
}

// A one-shot receive into `room`: its bytes go to the channel with their
// storage. A filled room doubles the next one; a small receive ends the
// bulk stream.
void UringPoller::on_room_recv(Channel* channel, State* state,
                               BufferStorage room, int res,
                               ChannelList* active) {
  if (res <= 0) {
    sends_->keep(std::move(room));
    return;
  }
  const auto n = static_cast<std::size_t>(res);
  if (n >= room.capacity) {
    state->room = std::min(2 * std::max(state->room, n), kMaxRoomBytes);
  } else if (n < kSmallBytes) {
    state->bulk = false;
    state->room = kRoomBytes;
  }
  room_receives_.store(room_receives_.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
  room.begin = 0;
  room.end = n;
  activate(channel, state, active);
  channel->add_received(std::move(room));
}

}  // namespace serverkit::reactor
