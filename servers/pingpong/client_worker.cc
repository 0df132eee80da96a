// -----------------------------------------------------------------------------
// servers/pingpong/client_worker.cc
// -----------------------------------------------------------------------------
//
// The sessions' state machine: connects, reads, checks and sends
// (client_worker.h).

#include "servers/pingpong/client_worker.h"

#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace serverkit::pingpong::client {

Worker::~Worker() {
  for (Session& s : sessions_) {
    if (s.fd >= 0) ::close(s.fd);
  }
  if (ep_ >= 0) ::close(ep_);
}

void Worker::Run() {
  ep_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (ep_ < 0) {
    std::perror("client: epoll_create1");
    connect_failures.store(static_cast<int>(sessions_.size()));
    sh_->connected->count_down();
    return;
  }
  ConnectAll();
  connect_failures.store(connect_failures_local_, std::memory_order_relaxed);
  connected.store(connected_local_, std::memory_order_relaxed);
  sh_->connected->count_down();
  sh_->go.wait(false, std::memory_order_acquire);
  if (sh_->stop.load(std::memory_order_acquire)) return;
  for (Session& s : sessions_) {
    if (s.state != Session::State::kConnected) continue;
    if (sh_->opt->protocol == Protocol::kEcho) {
      Send(s, sh_->echo_block2.data(), sh_->opt->blocksize);
    } else {
      SendMessage(s, Header{kFirstBodySize, 1});
    }
  }
  Loop();
}

void Worker::ConnectAll() {
  std::size_t next = 0;
  int inflight = 0;
  epoll_event events[256];
  auto last_scan = Clock::now();
  while (next < sessions_.size() || inflight > 0) {
    while (inflight < kConnectWindow && next < sessions_.size()) {
      if (StartConnect(sessions_[next++])) ++inflight;
    }
    if (inflight == 0) continue;
    const int n = ::epoll_wait(ep_, events, 256, 20);
    for (int i = 0; i < n; ++i) {
      Session& s = *static_cast<Session*>(events[i].data.ptr);
      if (s.state != Session::State::kConnecting) continue;
      --inflight;
      int err = 0;
      socklen_t len = sizeof(err);
      if (::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
      }
      if (err == 0 && (events[i].events & (EPOLLERR | EPOLLHUP)) == 0) {
        s.state = Session::State::kConnected;
        ++connected_local_;
        Watch(s, EPOLLIN);
      } else {
        FailConnect(s, err != 0 ? err : ECONNRESET);
      }
    }
    const auto now = Clock::now();
    if (now >= sh_->connect_deadline ||
        now - last_scan >= std::chrono::milliseconds(100)) {
      last_scan = now;
      if (now >= sh_->connect_deadline) {
        for (std::size_t i = 0; i < next; ++i) {
          if (sessions_[i].state == Session::State::kConnecting) {
            FailConnect(sessions_[i], ETIMEDOUT);
            --inflight;
          }
        }
        for (; next < sessions_.size(); ++next) {
          ++connect_failures_local_;
          sessions_[next].state = Session::State::kClosed;
        }
      }
    }
  }
}

bool Worker::StartConnect(Session& s) {
  if (Clock::now() >= sh_->connect_deadline) {
    FailConnect(s, ETIMEDOUT);
    return false;
  }
  s.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s.fd < 0) {
    FailConnect(s, errno);
    return false;
  }
  const int one = 1;
  ::setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  const int rc = ::connect(s.fd, reinterpret_cast<const sockaddr*>(&sh_->addr),
                           sizeof(sh_->addr));
  if (rc == 0) {
    s.state = Session::State::kConnected;
    ++connected_local_;
    Add(s, EPOLLIN);
    return false;
  }
  if (errno != EINPROGRESS) {
    FailConnect(s, errno);
    return false;
  }
  s.state = Session::State::kConnecting;
  Add(s, EPOLLOUT);
  return true;
}

void Worker::FailConnect(Session& s, int err) {
  ++connect_failures_local_;
  if (first_errno == 0) first_errno = err;
  if (s.fd >= 0) ::close(s.fd);  // also leaves the epoll set
  s.fd = -1;
  s.state = Session::State::kClosed;
}

void Worker::Add(Session& s, std::uint32_t ev) {
  epoll_event e{};
  e.events = ev;
  e.data.ptr = &s;
  ::epoll_ctl(ep_, EPOLL_CTL_ADD, s.fd, &e);
}

void Worker::Watch(Session& s, std::uint32_t ev) {
  epoll_event e{};
  e.events = ev;
  e.data.ptr = &s;
  ::epoll_ctl(ep_, EPOLL_CTL_MOD, s.fd, &e);
  s.want_write = (ev & EPOLLOUT) != 0;
}

void Worker::Close(Session& s, bool finished_ok) {
  if (s.fd >= 0) ::close(s.fd);
  s.fd = -1;
  s.state = finished_ok ? Session::State::kDone : Session::State::kClosed;
  finished.store(finished.load(std::memory_order_relaxed) + 1,
                 std::memory_order_relaxed);
}

void Worker::Fail(Session& s) {
  ++errors;
  Close(s, false);
}

void Worker::Loop() {
  epoll_event events[1024];
  while (!sh_->stop.load(std::memory_order_acquire)) {
    const int n = ::epoll_wait(ep_, events, 1024, 50);
    for (int i = 0; i < n; ++i) {
      Session& s = *static_cast<Session*>(events[i].data.ptr);
      if (s.state != Session::State::kConnected) continue;
      const std::uint32_t ev = events[i].events;
      if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) HandleRead(s);
      if ((ev & EPOLLOUT) && s.state == Session::State::kConnected) {
        HandleWrite(s);
      }
    }
  }
}

void Worker::HandleRead(Session& s) {
  const ssize_t n = ::read(s.fd, scratch_.get(), kReadSize);
  if (n > 0) {
    if (sh_->opt->protocol == Protocol::kEcho) {
      OnEchoData(s, scratch_.get(), static_cast<std::size_t>(n));
    } else {
      OnHeaderData(s, scratch_.get(), static_cast<std::size_t>(n));
    }
    return;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (sh_->stop.load(std::memory_order_relaxed)) return;
  ++peer_closed;
  if (first_errno == 0) first_errno = n == 0 ? ECONNRESET : errno;
  Close(s, false);
}

void Worker::OnEchoData(Session& s, const char* data, std::size_t n) {
  bytes.store(bytes.load(std::memory_order_relaxed) + n,
              std::memory_order_relaxed);
  messages.store(messages.load(std::memory_order_relaxed) + 1,
                 std::memory_order_relaxed);
  if (sh_->opt->verify && !VerifyEcho(s, data, n)) {
    Fail(s);
    return;
  }
  Send(s, data, n);
}

bool Worker::VerifyEcho(Session& s, const char* data, std::size_t n) {
  const std::size_t block = sh_->opt->blocksize;
  std::size_t pos = s.stream_off % block;
  s.stream_off += n;
  while (n > 0) {
    const std::size_t m = std::min(n, block);
    if (std::memcmp(data, sh_->echo_block2.data() + pos, m) != 0) {
      return false;
    }
    data += m;
    n -= m;
    pos = (pos + m) % block;
  }
  return true;
}

void Worker::OnHeaderData(Session& s, const char* data, std::size_t n) {
  // Usually one read holds exactly one reply; buffer only partial ones.
  std::string_view view(data, n);
  if (!s.in.empty()) {
    s.in.append(data, n);
    view = s.in;
  }
  if (view.size() < kHeaderSize) {
    if (s.in.empty()) s.in.assign(data, n);
    return;
  }
  const Header h = DecodeHeader(view.data());
  if (h.body_size != s.sent.body_size ||
      h.packet_count != s.sent.packet_count) {
    Fail(s);
    return;
  }
  const std::size_t need = kHeaderSize + h.body_size;
  if (view.size() < need) {
    if (s.in.empty()) s.in.assign(data, n);
    return;
  }
  if (view.size() > need ||
      std::memcmp(view.data() + kHeaderSize,
                  BodyOf(sh_->body_pattern, h.packet_count),
                  h.body_size) != 0) {
    Fail(s);  // more than one reply, or a wrong body
    return;
  }
  s.in.clear();
  bytes.store(bytes.load(std::memory_order_relaxed) + need,
              std::memory_order_relaxed);
  messages.store(messages.load(std::memory_order_relaxed) + 1,
                 std::memory_order_relaxed);
  if (h.packet_count >= sh_->opt->count) {
    completion_seconds.push_back(
        std::chrono::duration<double>(Clock::now() - sh_->start).count());
    Close(s, true);
    return;
  }
  SendMessage(s, Header{h.body_size + 1, h.packet_count + 1});
}

void Worker::SendMessage(Session& s, Header h) {
  s.sent = h;
  const std::size_t size = kHeaderSize + h.body_size;
  if (msg_.size() < size) msg_.resize(size);
  EncodeHeader(h, msg_.data());
  std::memcpy(msg_.data() + kHeaderSize,
              BodyOf(sh_->body_pattern, h.packet_count), h.body_size);
  Send(s, msg_.data(), size);
}

void Worker::Send(Session& s, const char* data, std::size_t n) {
  if (s.out_off < s.out.size()) {  // earlier bytes still queued
    s.out.append(data, n);
    return;
  }
  const ssize_t w = ::send(s.fd, data, n, MSG_NOSIGNAL);
  if (w == static_cast<ssize_t>(n)) return;
  if (w < 0 && errno != EAGAIN && errno != EINTR) {
    if (!sh_->stop.load(std::memory_order_relaxed)) {
      ++peer_closed;
      if (first_errno == 0) first_errno = errno;
    }
    Close(s, false);
    return;
  }
  const std::size_t done = w > 0 ? static_cast<std::size_t>(w) : 0;
  s.out.assign(data + done, n - done);
  s.out_off = 0;
  Watch(s, EPOLLIN | EPOLLOUT);
}

void Worker::HandleWrite(Session& s) {
  while (s.out_off < s.out.size()) {
    const ssize_t w = ::send(s.fd, s.out.data() + s.out_off,
                             s.out.size() - s.out_off, MSG_NOSIGNAL);
    if (w > 0) {
      s.out_off += static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (!sh_->stop.load(std::memory_order_relaxed)) {
      ++peer_closed;
      if (first_errno == 0) first_errno = errno;
    }
    Close(s, false);
    return;
  }
  s.out.clear();
  s.out_off = 0;
  Watch(s, EPOLLIN);
}

}  // namespace serverkit::pingpong::client
