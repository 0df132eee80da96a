// -----------------------------------------------------------------------------
// servers/chat/loadtest_worker.cc
// -----------------------------------------------------------------------------
//
// Sending a round, and the receivers' checks (loadtest_worker.h).

#include "servers/chat/loadtest_worker.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

namespace serverkit::chat::loadtest {

std::int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

bool SendAll(int fd, const std::string& frame, double timeout) {
  std::size_t off = 0;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(timeout));
  while (off < frame.size()) {
    const ssize_t w =
        ::send(fd, frame.data() + off, frame.size() - off, MSG_NOSIGNAL);
    if (w > 0) {
      off += static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (Clock::now() >= deadline) return false;
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 10);
      continue;
    }
    return false;
  }
  return true;
}

std::string MakeFrame(const Options& opt, BodyKind kind, std::uint32_t seq) {
  return EncodeFrame(EncodeBody(Body{kind, seq, NowNs()}, opt.message_size));
}

void SendRound(Shared* sh, std::uint32_t r) {
  Client& c = (*sh->clients)[r % sh->clients->size()];
  if (!SendAll(c.fd, MakeFrame(*sh->opt, BodyKind::kRound, r),
               sh->opt->timeout)) {
    sh->Fail("round %u: client %d could not send: %s", r, c.id,
             std::strerror(errno));
  }
}

Worker::~Worker() {
  if (ep_ >= 0) ::close(ep_);
}

bool Worker::Init() {
  ep_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (ep_ < 0) return false;
  for (Client* c : clients_) {
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.ptr = c;
    if (::epoll_ctl(ep_, EPOLL_CTL_ADD, c->fd, &e) != 0) return false;
  }
  return true;
}

void Worker::Run() {
  epoll_event events[1024];
  while (!sh_->stop.load(std::memory_order_acquire)) {
    const int n = ::epoll_wait(ep_, events, 1024, 20);
    for (int i = 0; i < n; ++i) {
      HandleRead(*static_cast<Client*>(events[i].data.ptr));
    }
  }
}

void Worker::HandleRead(Client& c) {
  if (c.fd < 0) return;
  const ssize_t n = ::read(c.fd, scratch_.get(), kReadSize);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    if (!sh_->stop.load(std::memory_order_relaxed)) {
      sh_->Fail(
          "client %d: connection closed by the server (%s) after "
          "%u rounds",
          c.id, n == 0 ? "EOF" : std::strerror(errno), c.expected);
    }
    ::epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
    return;
  }
  const std::int64_t now = NowNs();
  std::string_view view(scratch_.get(), static_cast<std::size_t>(n));
  if (!c.in.empty()) {
    c.in.append(view);
    view = c.in;
  }
  std::size_t pos = 0;
  while (view.size() - pos >= kHeaderLen) {
    const std::uint32_t len = DecodeLength(view.data() + pos);
    if (len != sh_->opt->message_size) {
      sh_->Fail("client %d: frame of %u bytes, expected %zu", c.id, len,
                sh_->opt->message_size);
      return;
    }
    if (view.size() - pos < kHeaderLen + len) break;
    OnMessage(c, view.substr(pos + kHeaderLen, len), now);
    pos += kHeaderLen + len;
  }
  if (c.in.empty()) {
    if (pos < view.size()) c.in.assign(view.substr(pos));
  } else {
    c.in.erase(0, pos);
  }
}

void Worker::OnMessage(Client& c, std::string_view body, std::int64_t now) {
  const std::optional<Body> b = DecodeBody(body, sh_->opt->message_size);
  if (!b) {
    sh_->Fail("client %d: malformed message (after %u rounds)", c.id,
              c.expected);
    return;
  }
  if (b->kind == BodyKind::kProbe) {
    if (c.expected > 0 || (c.saw_probe && b->seq <= c.last_probe)) {
      sh_->Fail(
          "client %d: join probe %u out of order (last probe %u, "
          "%u rounds received)",
          c.id, b->seq, c.last_probe, c.expected);
      return;
    }
    c.saw_probe = true;
    c.last_probe = b->seq;
    std::uint64_t s = sh_->probe_state.load(std::memory_order_acquire);
    while ((s >> 32) == b->seq && !sh_->probe_state.compare_exchange_weak(
                                      s, s + 1, std::memory_order_acq_rel)) {
    }
    return;
  }
  const std::uint32_t r = b->seq;
  if (r != c.expected) {
    sh_->Fail("client %d: received round %u, expected round %u (%s)", c.id, r,
              c.expected,
              r < c.expected ? "a duplicate" : "a round lost or reordered");
    return;
  }
  if (r >= sh_->opt->rounds) {
    sh_->Fail("client %d: received round %u of %u", c.id, r, sh_->opt->rounds);
    return;
  }
  ++c.expected;
  const std::int64_t lat = now - b->sent_ns;
  samples_us.push_back(static_cast<double>(lat) / 1e3);
  round_max_ns_[r] = std::max(round_max_ns_[r], lat);
  if (sh_->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    sh_->rounds_done.store(r + 1, std::memory_order_release);
    if (r + 1 < sh_->opt->rounds) {
      sh_->remaining.store(static_cast<int>(sh_->clients->size()),
                           std::memory_order_release);
      SendRound(sh_, r + 1);
    } else {
      sh_->finish_ns = NowNs();
      sh_->finished.store(true, std::memory_order_release);
    }
  }
}

}  // namespace serverkit::chat::loadtest
