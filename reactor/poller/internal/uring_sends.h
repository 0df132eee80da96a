// -----------------------------------------------------------------------------
// reactor/poller/internal/uring_sends.h
// -----------------------------------------------------------------------------
//
// `UringSends`: the send path of `UringPoller` (reactor/poller/uring_poller.h).
// Each send is one IORING_OP_SEND that owns its bytes until it completes;
// a short send continues where it stopped, and the channel hears once,
// when all was sent or it failed. A send's submission entry is made only
// where it is handed to the kernel at once: by prep_waiting(), which poll()
// calls just before its submit, or by start() when kFlushSends sends wait
// (it then submits them): the entry names the socket by number, and
// between poll()s the owner may close it.
//
// Why the early submit: the sends an iteration's callbacks queue would
// otherwise all wait for the next poll(), so a reply waited behind every
// callback and task after its own (a whole batch at a high rate), where
// over epoll it leaves in its callback. Every kFlushSends sends, one
// io_uring_submit sends them: a reply waits behind at most that many
// callbacks, for one more system call per kFlushSends messages.
//
// Loop thread only.

#ifndef SERVERKIT_REACTOR_POLLER_INTERNAL_URING_SENDS_H_
#define SERVERKIT_REACTOR_POLLER_INTERNAL_URING_SENDS_H_

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "buffer/buffer.h"

namespace serverkit::reactor {
class Channel;
}  // namespace serverkit::reactor

namespace serverkit::reactor_internal {

class UringRing;

class UringSends {
 public:
  // What a finished send tells its channel.
  struct Done {
    reactor::Channel* channel = nullptr;  // null: nobody to tell
    std::size_t bytes = 0;                // sent
    int error = 0;                        // 0, or why the rest was not
  };

  // Sends queued since the last submit that make start() submit them.
  static constexpr std::size_t kFlushSends = 8;

  explicit UringSends(UringRing* ring, std::size_t flush_sends = kFlushSends)
      : ring_(ring), flush_sends_(flush_sends) {}

  // Storage for the next send's bytes (or for a buffer that gave its own
  // to a send): a finished send's where there is one.
  BufferStorage spare_buffer();

  // Keeps `storage` for a later spare_buffer() (up to 32 MiB in all; none
  // over 256 KiB).
  void keep(BufferStorage storage);

  // Queues `data`'s bytes for `channel`'s socket, `fd`, under `token`;
  // the flush_sends-th since the last submit submits every queued send
  // (as prep_waiting() then io_uring_submit). The channel is only named
  // back in Done, never called.
  void start(std::uint64_t token, reactor::Channel* channel, int fd,
             BufferStorage data);

  bool has(std::uint64_t token) const { return sends_.count(token) != 0; }

  // The kernel's completion of `token` with `res`: a short send is queued
  // for the rest (and Done names no channel); else the send is over.
  Done complete(std::uint64_t token, int res);

  // The channel of `token` is being removed: a send not given to the
  // kernel yet is dropped, else cancelled (its bytes live until the kernel
  // is done with them).
  void drop(std::uint64_t token);

  // Gives the queued sends their submission entries, in order, as far as
  // there are entries.
  void prep_waiting();
  bool waiting() const { return !unsubmitted_.empty(); }
  // Submits start() made early, in all.
  std::uint64_t flushes() const { return flushes_; }
  // Whether the next start() is due to submit (the ring may still decline).
  bool flush_due() const { return since_submit_ + 1 >= flush_sends_; }
  std::size_t waiting_count() const { return unsubmitted_.size(); }

 private:
  struct Send {
    reactor::Channel* channel;  // null once the channel was removed
    int fd;
    BufferStorage data;
    std::size_t offset = 0;    // sent so far
    bool unsubmitted = false;  // waiting in unsubmitted_
  };

  void queue(std::uint64_t token, Send& send);
  bool prep(std::uint64_t token, const Send& send);

  UringRing* const ring_;
  const std::size_t flush_sends_;
  std::size_t since_submit_ = 0;  // start()s since the last submit
  std::uint64_t flushes_ = 0;
  std::unordered_map<std::uint64_t, Send> sends_;  // in flight, by token
  std::vector<BufferStorage> spare_;               // finished sends' storage
  std::size_t spare_bytes_ = 0;                    // their capacity, summed
  // Every send since the last poll(), which gives them their entries.
  std::vector<std::uint64_t> unsubmitted_;
};

}  // namespace serverkit::reactor_internal

#endif  // SERVERKIT_REACTOR_POLLER_INTERNAL_URING_SENDS_H_
