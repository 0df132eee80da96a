#include "servers/loadgen/worker.h"

#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <thread>
#include <utility>

namespace serverkit::loadgen {
namespace {

constexpr std::size_t kReadSize = 64 * 1024;
constexpr std::size_t kMaxUnsent = 64 << 20;
// Requests sent per loop turn before replies are read again.
constexpr int kSendBatch = 256;
constexpr std::int64_t kMinGraceNs = 1'000'000'000;
constexpr std::int64_t kMaxGraceNs = 10'000'000'000;
// The longest sleep, so that an abort is seen.
constexpr std::int64_t kMaxWaitNs = 100'000'000;

using HeapEntry = std::pair<std::int64_t, std::size_t>;
constexpr auto kLater = std::greater<HeapEntry>();

std::int64_t Ns(const timespec& ts) {
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// How long ago the kernel received the bytes of the last read: its
// SO_TIMESTAMPNS stamp (CLOCK_REALTIME) against the real clock now; 0
// without a stamp.
std::int64_t ReceivedAgo(msghdr* msg) {
  for (cmsghdr* c = CMSG_FIRSTHDR(msg); c != nullptr; c = CMSG_NXTHDR(msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) {
      continue;
    }
    timespec stamp{};
    std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return std::max<std::int64_t>(Ns(now) - Ns(stamp), 0);
  }
  return 0;
}

}  // namespace

Worker::Worker(const RunPlan* plan, std::vector<int> fds,
               std::vector<int> connection_indices)
    : plan_(*plan) {
  const Options& o = plan_.options;
  const double per_connection = o.rate / o.connections;
  conns_.reserve(fds.size());
  for (std::size_t i = 0; i < fds.size(); ++i) {
    const auto index = static_cast<std::uint64_t>(connection_indices[i]);
    conns_.emplace_back(fds[i], connection_indices[i],
                        Schedule(o.arrivals, per_connection, o.seed, index),
                        ReplyReader(o.protocol, o.size));
  }
}

Worker::~Worker() {
  for (Connection& c : conns_) {
    if (c.open) ::close(c.fd);
  }
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

std::int64_t Worker::Now() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                              plan_.start)
      .count();
}

void Worker::Fatal(std::string why) {
  if (result_.fatal.empty()) result_.fatal = std::move(why);
  plan_.abort->store(true, std::memory_order_relaxed);
}

void Worker::SetWriteInterest(Connection& c, bool on) {
  if (c.want_write == on) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
  ev.data.u64 = static_cast<std::uint64_t>(&c - conns_.data());
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
  c.want_write = on;
}

void Worker::Close(Connection& c, const std::string& why) {
  std::uint64_t measured = 0;
  for (const Pending& p : c.pending) measured += p.measured ? 1 : 0;
  result_.errors += measured;
  if (result_.first_error.empty() && (sending_ || !c.pending.empty())) {
    result_.first_error = "connection " + std::to_string(c.index) + ": " + why +
                          " (" + std::to_string(c.pending.size()) +
                          " requests outstanding)";
  }
  outstanding_ -= c.pending.size();
  c.pending.clear();
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  c.open = false;
  c.out.clear();
  c.out_off = 0;
  // Back on the heap: its requests count as errors as they come due.
  if (c.held) Release(c);
}

void Worker::Release(Connection& c) {
  c.held = false;
  --held_;
  // It was on the heap with this request, so the request is in the window.
  heap_.emplace_back(c.schedule.next(),
                     static_cast<std::size_t>(&c - conns_.data()));
  std::push_heap(heap_.begin(), heap_.end(), kLater);
}

std::uint64_t Worker::DropRest(Connection& c, std::uint64_t* bucket) {
  std::uint64_t n = 0;
  for (; c.schedule.next() < plan_.end_ns; c.schedule.Advance()) {
    n += c.schedule.next() >= plan_.warmup_ns ? 1 : 0;
  }
  result_.scheduled += n;
  *bucket += n;
  return n;
}

void Worker::Flush(Connection& c) {
  while (c.out_off < c.out.size()) {
    const ssize_t w = ::send(c.fd, c.out.data() + c.out_off,
                             c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (w > 0) {
      c.out_off += static_cast<std::size_t>(w);
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      break;
    } else {
      Close(c, std::string("write: ") + std::strerror(errno));
      return;
    }
  }
  if (c.out_off == c.out.size()) {
    c.out.clear();
    c.out_off = 0;
    SetWriteInterest(c, false);
    return;
  }
  SetWriteInterest(c, true);
  if (c.out_off >= (1u << 20)) {  // keep the buffer from creeping
    c.out.erase(0, c.out_off);
    c.out_off = 0;
  }
}

void Worker::SendDue(std::int64_t now) {
  has_due_ = false;
  for (int budget = kSendBatch; !heap_.empty(); --budget) {
    const auto [intended, ci] = heap_.front();
    if (intended > now) break;
    if (budget == 0) {
      has_due_ = true;
      break;
    }
    Connection& c = conns_[ci];
    if (c.open && c.out.size() - c.out_off >= kMaxUnsent) {
      Fatal("connection " + std::to_string(c.index) +
            ": over 64 MiB of requests the server did not read; stopped "
            "rather than buffer without bound (lower --rate)");
      break;
    }
    std::pop_heap(heap_.begin(), heap_.end(), kLater);
    heap_.pop_back();
    const bool measured = intended >= plan_.warmup_ns;
    const Mode mode = plan_.options.mode;
    if (mode == Mode::kSerial && c.open && !c.pending.empty()) {
      // A reply is out: this request waits for it (Release), off the heap.
      c.held = true;
      ++held_;
      continue;
    }
    result_.scheduled += measured ? 1 : 0;
    if (c.open) {
      const std::int64_t got = Now();
      const std::int64_t lag =
          SendLag(mode, intended, got, c.previous_reply, c.previous_lag);
      if (measured) {
        result_.lag.Record(static_cast<std::uint64_t>(lag));
        ++result_.sent;
        // The previous reply came after this request was due: it was held.
        result_.held +=
            ReleaseTime(mode, intended, c.previous_reply) > intended ? 1 : 0;
      }
      if (c.out.size() == c.out_off) dirty_.push_back(ci);
      c.out.append(plan_.request);
      c.pending.push_back({intended, got, lag, measured});
      ++outstanding_;
    } else if (measured) {
      ++result_.errors;  // its connection was closed earlier
    }
    c.schedule.Advance();
    if (c.schedule.next() < plan_.end_ns) {
      heap_.emplace_back(c.schedule.next(), ci);
      std::push_heap(heap_.begin(), heap_.end(), kLater);
    }
  }
  for (const std::size_t ci : dirty_) {
    if (conns_[ci].open) Flush(conns_[ci]);
  }
  dirty_.clear();
}

void Worker::StopSending() {
  // What is left on the heap was never sent: the generator fell behind.
  // Held requests wait for their replies and go on in the grace.
  for (const auto& [intended, ci] : heap_) {
    Connection& c = conns_[ci];
    DropRest(c, c.open ? &result_.unsent : &result_.errors);
  }
  heap_.clear();
  sending_ = false;
}

void Worker::Complete(Connection& c, std::size_t n, std::int64_t t) {
  for (; n > 0; --n) {
    if (c.pending.empty()) {
      Close(c, "a reply to no request");
      return;
    }
    const Pending p = c.pending.front();
    c.pending.pop_front();
    --outstanding_;
    // Never before its own send: the two clocks' mapping may err by a few
    // microseconds.
    const std::int64_t done = std::max(t, p.sent);
    if (p.measured) {
      result_.latency.Record(static_cast<std::uint64_t>(done - p.intended));
      result_.uncorrected.Record(
          static_cast<std::uint64_t>(done - std::max(p.sent, c.last_reply)));
      ++result_.completed;
    }
    c.last_reply = done;
    c.previous_reply = done;
    c.previous_lag = p.lag;
  }
  if (c.held && c.pending.empty()) Release(c);
}

void Worker::OnReadable(Connection& c) {
  static thread_local char buf[kReadSize];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  for (int reads = 0; reads < 4 && c.open; ++reads) {
    iovec iov{buf, sizeof buf};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t r = ::recvmsg(c.fd, &msg, 0);
    if (r > 0) {
      // A reply is timed when the kernel received it, not when this thread
      // got to it: a generator that was not running reads late, and that
      // wait is its own (in serial mode it shows as send lag instead).
      const std::int64_t now = Now();
      std::int64_t ago = ReceivedAgo(&msg);
      // A stamp from before the oldest outstanding request was sent is not
      // this reply's (a clock other than CLOCK_REALTIME): time it as read.
      if (c.pending.empty() || ago > now - c.pending.front().sent) ago = 0;
      result_.read_lag.Record(static_cast<std::uint64_t>(ago));
      const std::int64_t t = now - ago;
      const auto n = static_cast<std::size_t>(r);
      FeedResult f = c.reader.Feed(std::string_view(buf, n));
      Complete(c, f.completed, t);
      if (!f.error.empty() && c.open) {
        Close(c, f.error);
        return;
      }
      if (n < sizeof buf) return;
    } else if (r == 0) {
      Close(c, "closed by the server");
      return;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return;
    } else {
      Close(c, std::string("read: ") + std::strerror(errno));
      return;
    }
  }
}

void Worker::Run() {
  // Timer wake-ups to the nanosecond rather than the default 50 us slack.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) {
    Fatal(std::string("epoll_create1: ") + std::strerror(errno));
    return;
  }
  for (std::size_t i = 0; i < conns_.size(); ++i) {
    // Replies stamped with the kernel's receive time (OnReadable); without
    // it they are timed when read.
    const int one = 1;
    ::setsockopt(conns_[i].fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, conns_[i].fd, &ev);
    heap_.emplace_back(conns_[i].schedule.next(), i);
  }
  std::make_heap(heap_.begin(), heap_.end(), kLater);
  std::this_thread::sleep_until(plan_.start);

  const std::int64_t stop_ns = plan_.end_ns + plan_.max_lag_ns;
  std::int64_t grace_end = 0;
  std::vector<epoll_event> events(std::max<std::size_t>(conns_.size(), 1));
  while (!plan_.abort->load(std::memory_order_relaxed)) {
    const std::int64_t now = Now();
    // After the window too: requests released by late replies go at once.
    if (!heap_.empty()) SendDue(now);
    if (sending_) {
      if (heap_.empty() && held_ == 0) {
        sending_ = false;
      } else if (now >= stop_ns) {
        StopSending();
      }
      if (!sending_) {
        const auto p99 =
            static_cast<std::int64_t>(result_.latency.Percentile(0.99));
        grace_end = now + std::clamp(10 * p99, kMinGraceNs, kMaxGraceNs);
      }
    }
    if (!sending_ &&
        ((outstanding_ == 0 && heap_.empty()) || now >= grace_end)) {
      break;
    }
    std::int64_t wait_ns = 0;
    if (!has_due_) {
      std::int64_t until = sending_ ? stop_ns : grace_end;
      if (!heap_.empty()) until = std::min(until, heap_.front().first);
      wait_ns = std::min(until - now, kMaxWaitNs);
    }
    wait_ns = std::max<std::int64_t>(wait_ns, 0);
    const timespec timeout{static_cast<time_t>(wait_ns / 1'000'000'000),
                           static_cast<long>(wait_ns % 1'000'000'000)};
    const int n =
        ::epoll_pwait2(epoll_fd_, events.data(),
                       static_cast<int>(events.size()), &timeout, nullptr);
    if (n < 0 && errno != EINTR) {
      Fatal(std::string("epoll_pwait2: ") + std::strerror(errno));
      break;
    }
    for (int i = 0; i < n; ++i) {
      Connection& c = conns_[events[i].data.u64];
      if (!c.open) continue;
      if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) OnReadable(c);
      if (c.open && (events[i].events & EPOLLOUT)) Flush(c);
    }
  }
  if (sending_) StopSending();
  // Released at the very end and not sent: the generator's shortfall.
  for (const auto& [intended, ci] : heap_) {
    Connection& c = conns_[ci];
    DropRest(c, c.open ? &result_.unsent : &result_.errors);
  }
  heap_.clear();
  for (Connection& c : conns_) {
    for (const Pending& p : c.pending) result_.unanswered += p.measured;
    // Held behind a reply that never came: the server's, not ours.
    if (c.held) result_.held += DropRest(c, &result_.unanswered);
  }
}

}  // namespace serverkit::loadgen
