#include "reactor/uring_poller.h"

#include <liburing.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <vector>

#include "reactor/channel.h"
#include "reactor/internal/report_errno.h"

namespace serverkit::reactor {
namespace {

constexpr unsigned kEntries = 1024;
constexpr std::uint64_t kIgnore = 0;  // the user_data of cancels
constexpr unsigned short kGroup = 0;  // the provided buffers' group id
constexpr int kReadMask = EPOLLIN | EPOLLPRI;

bool RecvDisabledByEnvironment() {
  const char* v = std::getenv("SERVERKIT_URING_RECV");
  return v != nullptr && std::string_view(v) == "0";
}

// SERVERKIT_URING_TEST_SQE_FAIL_EVERY=N (tests only): every Nth request for
// a submission entry finds none, as when the kernel would not take the
// queue (io_uring_submit failing with EBUSY or EAGAIN). 0: never; 1 is
// refused (nothing could ever be submitted).
unsigned SqeFailEveryFromEnvironment() {
  const char* v = std::getenv("SERVERKIT_URING_TEST_SQE_FAIL_EVERY");
  if (v == nullptr || *v == '\0') return 0;
  char* end = nullptr;
  const unsigned long n = std::strtoul(v, &end, 10);
  if (*end != '\0' || n == 1 || n > 1000000) {
    std::fprintf(stderr,
                 "reactor: SERVERKIT_URING_TEST_SQE_FAIL_EVERY=%s is not 0 "
                 "or a count from 2 to 1000000; ignored\n", v);
    return 0;
  }
  return static_cast<unsigned>(n);
}

// Calls `done` on the elements of `v` in order until it refuses one, and
// erases those it accepted: the queues of operations waiting for a
// submission entry keep the rest, in order, for the next poll().
template <typename T, typename Done>
void ErasePrefixWhile(std::vector<T>& v, Done done) {
  std::size_t n = 0;
  while (n < v.size() && done(v[n])) ++n;
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace

struct UringPoller::Ring {
  struct io_uring ring;
  bool disabled = false;  // enabled by the first poll(), in the loop thread
};

// The provided-buffer ring: the kernel picks a buffer per receive
// completion; `add` gives one back.
struct UringPoller::Buffers {
  struct io_uring_buf_ring* ring = nullptr;  // kBuffers entries, page-aligned
  char* data = nullptr;                      // kBuffers x kBufferBytes
  unsigned pending = 0;                      // added since the last advance

  ~Buffers() {
    std::free(ring);
    std::free(data);
  }
  char* at(unsigned id) const {
    return data + static_cast<std::size_t>(id) * kBufferBytes;
  }
  void add(unsigned id) {
    io_uring_buf_ring_add(ring, at(id), kBufferBytes,
                          static_cast<unsigned short>(id),
                          io_uring_buf_ring_mask(kBuffers),
                          static_cast<int>(pending++));
  }
  void publish() {
    if (pending == 0) return;
    io_uring_buf_ring_advance(ring, static_cast<int>(pending));
    pending = 0;
  }
};

std::unique_ptr<UringPoller> UringPoller::Create(EventLoop* loop,
                                                 std::string* why) {
  auto ring = std::make_unique<Ring>();
  // Completions are produced only when the loop's thread waits for them
  // (DEFER_TASKRUN, kernel 6.1), so a receive never runs its work in
  // another thread's wake-up nor contends with the loop for the ring's
  // locks (measured: without it, over half of the loop's time went to
  // kernel spinlocks at 100 sessions). That needs one submitting thread
  // (SINGLE_ISSUER), the loop's: the ring starts disabled and is enabled
  // by the loop's first poll(). Older kernels get the plain ring.
  const unsigned kDeferred = IORING_SETUP_SINGLE_ISSUER |
                             IORING_SETUP_DEFER_TASKRUN |
                             IORING_SETUP_R_DISABLED;
  int rc = io_uring_queue_init(kEntries, &ring->ring, kDeferred);
  if (rc == -EINVAL) rc = io_uring_queue_init(kEntries, &ring->ring, 0);
  if (rc < 0) {
    if (why != nullptr) *why = std::strerror(-rc);
    return nullptr;
  }
  ring->disabled = (ring->ring.flags & IORING_SETUP_R_DISABLED) != 0;
  auto poller =
      std::unique_ptr<UringPoller>(new UringPoller(loop, std::move(ring)));
  if (RecvDisabledByEnvironment()) return poller;
  auto bufs = std::make_unique<Buffers>();
  void* mem = nullptr;
  const std::size_t ring_bytes = kBuffers * sizeof(struct io_uring_buf);
  if (posix_memalign(&mem, 4096, ring_bytes) != 0) return poller;
  bufs->ring = static_cast<struct io_uring_buf_ring*>(mem);
  bufs->data = static_cast<char*>(
      std::aligned_alloc(4096, std::size_t{kBuffers} * kBufferBytes));
  if (bufs->data == nullptr) return poller;
  io_uring_buf_ring_init(bufs->ring);
  struct io_uring_buf_reg reg {};
  reg.ring_addr = reinterpret_cast<std::uint64_t>(bufs->ring);
  reg.ring_entries = kBuffers;
  reg.bgid = kGroup;
  const int reg_rc = io_uring_register_buf_ring(&poller->ring_->ring, &reg, 0);
  if (reg_rc < 0) {
    static std::once_flag said;  // once per process, like the fallback line
    std::call_once(said, [reg_rc] {
      std::fprintf(stderr,
                   "reactor: io_uring provided buffers are not available "
                   "here (%s); reading and writing on readiness\n",
                   std::strerror(-reg_rc));
    });
    return poller;
  }
  for (unsigned id = 0; id < kBuffers; ++id) bufs->add(id);
  bufs->publish();
  poller->buffers_ = std::move(bufs);
  return poller;
}

UringPoller::UringPoller(EventLoop* loop, std::unique_ptr<Ring> ring)
    : loop_(loop),
      ring_(std::move(ring)),
      sqe_fail_every_(SqeFailEveryFromEnvironment()) {}

UringPoller::~UringPoller() {
  io_uring_queue_exit(&ring_->ring);  // unregisters the buffer ring too
}

::io_uring_sqe* UringPoller::sqe() {
  struct io_uring_sqe* s = nullptr;
  if (sqe_fail_every_ == 0 || ++sqe_requests_ % sqe_fail_every_ != 0) {
    s = io_uring_get_sqe(&ring_->ring);
    if (s == nullptr) {  // the submission queue is full: hand it over first
      io_uring_submit(&ring_->ring);
      s = io_uring_get_sqe(&ring_->ring);
    }
  }
  if (s == nullptr) {
    // The kernel did not take the queue (io_uring_submit failed: EBUSY,
    // EAGAIN). The caller keeps the operation for the next poll().
    static std::once_flag said;
    std::call_once(said, [] {
      std::fprintf(stderr,
                   "reactor: io_uring submission queue full; operations "
                   "wait for the next loop iteration\n");
    });
  }
  return s;
}

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
  cancel_token(Cancel{state->token, /*poll=*/true});
  state->token = 0;
}

// The receive stays in recvs_ until its last completion: what it took from
// the socket before the cancel is still delivered.
void UringPoller::cancel_recv(State* state) {
  if (state->recv_token == 0) return;
  cancel_token(Cancel{state->recv_token, /*poll=*/false});
  state->recv_token = 0;
}

// A cancel that finds no submission entry is kept for the next poll(): a
// receive left running would read for a channel that stopped reading, and
// a removed channel's would keep its socket open in the kernel.
void UringPoller::cancel_token(Cancel cancel) {
  if (!prep_cancel(cancel)) unsubmitted_cancels_.push_back(cancel);
}

bool UringPoller::prep_cancel(Cancel cancel) {
  struct io_uring_sqe* s = sqe();
  if (s == nullptr) return false;
  if (cancel.poll) {
    io_uring_prep_poll_remove(s, cancel.token);
  } else {
    io_uring_prep_cancel64(s, cancel.token, 0);
  }
  io_uring_sqe_set_data64(s, kIgnore);
  return true;
}

// Cancels that found no submission entry before (in their order, ahead of
// new arms for the same channel), then the sends queued since the last
// poll() (a token no longer in sends_ was a removed channel's: dropped).
void UringPoller::prep_waiting() {
  ErasePrefixWhile(unsubmitted_cancels_,
                   [this](Cancel cancel) { return prep_cancel(cancel); });
  ErasePrefixWhile(unsubmitted_sends_, [this](std::uint64_t token) {
    auto it = sends_.find(token);
    if (it == sends_.end()) return true;
    if (!prep_send(token, it->second)) return false;
    it->second.unsubmitted = false;
    return true;
  });
}

bool UringPoller::behind() const {
  return !unsubmitted_cancels_.empty() || !unsubmitted_sends_.empty() ||
         !to_arm_.empty();
}

void UringPoller::queue(Channel* channel, State* state) {
  if (state->queued) return;
  state->queued = true;
  to_arm_.push_back(channel);
}

// A channel whose poll or receive finds no submission entry stays queued,
// with those after it, for the next poll().
void UringPoller::arm_queued() {
  ErasePrefixWhile(to_arm_, [this](Channel* channel) {
    State& st = states_[channel];
    if (!arm(channel, &st)) return false;
    st.queued = false;
    return true;
  });
}

bool UringPoller::arm(Channel* channel, State* state) {
  State& st = *state;
  const int mask = poll_mask(channel);
  if (st.token == 0 && mask != 0) {
    struct io_uring_sqe* s = sqe();
    if (s == nullptr) return false;
    st.token = ++next_token_;
    st.mask = mask;
    io_uring_prep_poll_add(s, channel->fd(), static_cast<unsigned>(mask));
    io_uring_sqe_set_data64(s, st.token);
    armed_[st.token] = channel;
  }
  if (st.recv_token == 0 && wants_recv(channel)) {
    struct io_uring_sqe* s = sqe();
    if (s == nullptr) return false;
    st.recv_token = ++next_token_;
    io_uring_prep_recv_multishot(s, channel->fd(), nullptr, 0, 0);
    s->flags |= IOSQE_BUFFER_SELECT;
    s->buf_group = kGroup;
    io_uring_sqe_set_data64(s, st.recv_token);
    recvs_[st.recv_token] = channel;
    st.live_recvs.push_back(st.recv_token);
  }
  return true;
}

// Buffers handed out in the last iteration: their channels' callbacks have
// run (or the channels are gone), so the kernel may fill them again.
void UringPoller::recycle_buffers() {
  if (buffers_ == nullptr || to_recycle_.empty()) return;
  for (std::uint16_t id : to_recycle_) buffers_->add(id);
  buffers_->publish();
  to_recycle_.clear();
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
  if (ring_->disabled) {
    ring_->disabled = false;
    // Debian's liburing 2.3 declares io_uring_enable_rings but does not
    // export it: the register call itself.
    if (::syscall(__NR_io_uring_register, ring_->ring.ring_fd,
                  IORING_REGISTER_ENABLE_RINGS, nullptr, 0) < 0) {
      reactor_internal::ReportErrno("reactor: io_uring: enabling the ring failed");
    }
  }
  recycle_buffers();
  prep_waiting();
  // A channel's new poll or receive goes after the cancel of its old one:
  // while a cancel waits for an entry, so do the arms.
  if (unsubmitted_cancels_.empty()) arm_queued();
  // Operations still without a submission entry: look again at once.
  if (behind()) timeout_ms = 0;
  ++iteration_;
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
    if (auto it = recvs_.find(token); it != recvs_.end()) {
      on_recv(it->second, cqe, active);
    } else if (sends_.count(token) != 0) {
      on_send(token, cqe->res, active);
    } else if (armed_.count(token) != 0) {
      on_poll(cqe, active);
    } else if (cqe->flags & IORING_CQE_F_BUFFER) {
      // A receive of a removed channel: nobody to give the bytes to.
      to_recycle_.push_back(
          static_cast<std::uint16_t>(cqe->flags >> IORING_CQE_BUFFER_SHIFT));
    }
  }
  io_uring_cq_advance(&ring_->ring, seen);
  // Entries the kernel did not take (it stops early on EBUSY, EAGAIN or
  // ENOMEM) may name sockets by number, and the callbacks that run next may
  // close them: hand them over now that the completions are reaped.
  if (io_uring_sq_ready(&ring_->ring) > 0) {
    const int again = io_uring_submit(&ring_->ring);
    if (const unsigned left = io_uring_sq_ready(&ring_->ring); left > 0) {
      reactor_internal::ReportErrno(again < 0 ? -again : EBUSY,
                                    "reactor: io_uring: the kernel did not "
                                    "take %u submissions",
                                    left);
    }
  }
  return now;
}

void UringPoller::on_poll(const ::io_uring_cqe* cqe, ChannelList* active) {
  auto it = armed_.find(io_uring_cqe_get_data64(cqe));
  Channel* channel = it->second;
  armed_.erase(it);
  State& st = states_[channel];
  st.token = 0;
  activate(channel, &st, active);
  // A failed poll (the file went away under it) reads as an error.
  channel->set_revents(channel->revents() | (cqe->res >= 0 ? cqe->res : POLLERR));
  queue(channel, &st);  // re-armed at the next poll(), after its callbacks
}

void UringPoller::on_recv(Channel* channel, const ::io_uring_cqe* cqe,
                          ChannelList* active) {
  const std::uint64_t token = io_uring_cqe_get_data64(cqe);
  State& st = states_[channel];
  const int res = cqe->res;
  if (cqe->flags & IORING_CQE_F_BUFFER) {
    const auto id =
        static_cast<std::uint16_t>(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
    to_recycle_.push_back(id);
    if (res > 0) {
      activate(channel, &st, active);
      channel->add_received(
          std::string_view(buffers_->at(id), static_cast<std::size_t>(res)));
    }
  }
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
  if (cqe->flags & IORING_CQE_F_MORE) return;
  // This receive is over: forget its token; while the channel still reads
  // (out of buffers, or the kernel ended it), arm a new one next poll().
  recvs_.erase(token);
  std::erase(st.live_recvs, token);
  if (st.recv_token == token) {
    st.recv_token = 0;
    if (!stream_ended && wants_recv(channel)) queue(channel, &st);
  }
}

std::string UringPoller::send_buffer() {
  if (spare_.empty()) return {};
  std::string s = std::move(spare_.back());
  spare_.pop_back();
  return s;
}

void UringPoller::send(Channel* channel, std::string data) {
  const std::uint64_t token = ++next_token_;
  states_[channel].send_token = token;
  auto [it, _] = sends_.emplace(
      token, Send{channel, channel->fd(), std::move(data), 0});
  queue_send(token, it->second);
}

// Sends get their submission entry in poll(), just before the submit: an
// entry names the socket by number, and between poll()s the owner may
// close it (and a new connection may get the number). One that finds no
// entry waits for the next poll(), never dropped: the channel hears of a
// send only when it completes.
void UringPoller::queue_send(std::uint64_t token, Send& send) {
  send.unsubmitted = true;
  unsubmitted_sends_.push_back(token);
}

bool UringPoller::prep_send(std::uint64_t token, const Send& send) {
  struct io_uring_sqe* s = sqe();
  if (s == nullptr) return false;
  io_uring_prep_send(s, send.fd, send.data.data() + send.offset,
                     send.data.size() - send.offset, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(s, token);
  return true;
}

void UringPoller::on_send(std::uint64_t token, int res, ChannelList* active) {
  auto it = sends_.find(token);
  Send& send = it->second;
  if (send.channel != nullptr && res > 0) {
    send.offset += static_cast<std::size_t>(res);
    if (send.offset < send.data.size()) {  // a short send: the rest
      queue_send(token, send);
      return;
    }
  }
  if (send.channel != nullptr) {
    State& st = states_[send.channel];
    st.send_token = 0;
    activate(send.channel, &st, active);
    // 0 bytes for a non-empty send cannot make progress: an error.
    const int error = res > 0 ? 0 : (res == 0 ? EPIPE : -res);
    send.channel->add_sent(send.offset, error);
  }
  // Keep the string's capacity for the next send (not a huge one).
  constexpr std::size_t kKeepSpares = 256, kKeepBytes = 256 << 10;
  if (spare_.size() < kKeepSpares && send.data.capacity() <= kKeepBytes) {
    send.data.clear();
    spare_.push_back(std::move(send.data));
  }
  sends_.erase(it);
}

void UringPoller::update_channel(Channel* channel) {
  auto [it, inserted] = states_.try_emplace(channel);
  if (inserted) channels_[channel->fd()] = channel;
  State& st = it->second;
  const int mask = poll_mask(channel);
  if (st.token != 0 && st.mask != mask) cancel(&st);
  if (st.recv_token != 0 && !wants_recv(channel)) cancel_recv(&st);
  if ((st.token == 0 && mask != 0) ||
      (st.recv_token == 0 && wants_recv(channel))) {
    queue(channel, &st);
  }
}

void UringPoller::remove_channel(Channel* channel) {
  auto it = states_.find(channel);
  if (it != states_.end()) {
    State& st = it->second;
    cancel(&st);
    cancel_recv(&st);
    if (st.send_token != 0 && sends_.at(st.send_token).unsubmitted) {
      // Not given to the kernel yet: dropped with the channel (its fd
      // number is about to be closed and may be reused); prep_waiting()
      // skips its token.
      sends_.erase(st.send_token);
    } else if (st.send_token != 0) {
      // The kernel took it in an earlier poll() and holds the file itself;
      // its bytes live in sends_ until it completes or is cancelled.
      sends_.at(st.send_token).channel = nullptr;
      cancel_token(Cancel{st.send_token, /*poll=*/false});
    }
    // Late completions of its receives find no channel; their buffers are
    // recycled in poll().
    for (std::uint64_t token : st.live_recvs) recvs_.erase(token);
    if (st.queued) {
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
