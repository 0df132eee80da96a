#include "reactor/poller/internal/uring_sends.h"

#include <liburing.h>
#include <sys/socket.h>

#include <cerrno>
#include <utility>

#include "reactor/poller/internal/uring_ring.h"

namespace serverkit::reactor_internal {

BufferStorage UringSends::spare_buffer() {
  if (spare_.empty()) return {};
  BufferStorage s = std::move(spare_.back());
  spare_bytes_ -= s.capacity;
  spare_.pop_back();
  return s;
}

// Bounded by bytes, not count: an echo of many connections cycles one
// storage per connection through receive, input and send.
void UringSends::keep(BufferStorage storage) {
  constexpr std::size_t kKeepBytes = 256 << 10, kKeepTotal = 32 << 20;
  if (storage.bytes != nullptr && storage.capacity <= kKeepBytes &&
      spare_bytes_ + storage.capacity <= kKeepTotal) {
    spare_bytes_ += storage.capacity;
    storage.begin = storage.end = 0;
    spare_.push_back(std::move(storage));
  }
}

void UringSends::start(std::uint64_t token, reactor::Channel* channel, int fd,
                       BufferStorage data) {
  auto [it, _] = sends_.emplace(token, Send{channel, fd, std::move(data), 0});
  queue(token, it->second);
  // The entries are made and handed over in one go, while every fd they
  // name is open (see the header); where the ring declines, they wait for
  // the poll as before.
  if (++since_submit_ >= flush_sends_ && ring_->may_submit_early()) {
    prep_waiting();
    ring_->submit_now();
    ++flushes_;
  }
}

// One that finds no entry waits for the next poll(), never dropped: the
// channel hears of a send only when it completes.
void UringSends::queue(std::uint64_t token, Send& send) {
  send.unsubmitted = true;
  unsubmitted_.push_back(token);
}

bool UringSends::prep(std::uint64_t token, const Send& send) {
  struct io_uring_sqe* s = ring_->sqe();
  if (s == nullptr) return false;
  io_uring_prep_send(s, send.fd, send.data.data() + send.offset,
                     send.data.size() - send.offset, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(s, token);
  return true;
}

// A token no longer in sends_ was a removed channel's: dropped.
void UringSends::prep_waiting() {
  since_submit_ = 0;
  ErasePrefixWhile(unsubmitted_, [this](std::uint64_t token) {
    auto it = sends_.find(token);
    if (it == sends_.end()) return true;
    if (!prep(token, it->second)) return false;
    it->second.unsubmitted = false;
    return true;
  });
}

UringSends::Done UringSends::complete(std::uint64_t token, int res) {
  auto it = sends_.find(token);
  Send& send = it->second;
  if (send.channel != nullptr && res > 0) {
    send.offset += static_cast<std::size_t>(res);
    if (send.offset < send.data.size()) {  // a short send: the rest
      queue(token, send);
      return {};
    }
  }
  Done done;
  if (send.channel != nullptr) {
    done.channel = send.channel;
    done.bytes = send.offset;
    // 0 bytes for a non-empty send cannot make progress: an error.
    done.error = res > 0 ? 0 : (res == 0 ? EPIPE : -res);
  }
  keep(std::move(send.data));
  sends_.erase(it);
  return done;
}

void UringSends::drop(std::uint64_t token) {
  Send& send = sends_.at(token);
  if (send.unsubmitted) {
    // Not given to the kernel yet: dropped with the channel (its fd number
    // is about to be closed and may be reused); prep_waiting() skips its
    // token.
    sends_.erase(token);
  } else {
    // The kernel took it in an earlier poll() and holds the file itself;
    // its bytes live in sends_ until it completes or is cancelled.
    send.channel = nullptr;
    ring_->cancel(token, /*poll=*/false);
  }
}

}  // namespace serverkit::reactor_internal
