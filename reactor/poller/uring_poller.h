// -----------------------------------------------------------------------------
// reactor/poller/uring_poller.h
// -----------------------------------------------------------------------------
//
// `UringPoller`: the reactor over io_uring (liburing 2.3, Debian's
// liburing-dev), behind the same `Poller` interface as `EpollPoller`, so the
// loop and its users are unchanged. Two ways to read and write (`UringIo`,
// reactor/poller.h):
//
//   - readiness (the default): every interest is a poll through the ring
//     (below), and connections read and write with read(2) and write(2)
//     as over epoll, so a reply leaves in its callback;
//   - completion: the receives and sends below, the loop's `CompletionIo`
//     (reactor/completion_io.h). They batch: a wake-up's receives all run
//     in the kernel before the first callback, and sends go out with the
//     next poll or every kFlushSends. On 2 cores that cost p50 and p99 at
//     set rates and CPU per MiB at 64 KiB, against epoll and readiness
//     (docs/servers.md, "io_uring's tail").
//
// Completion reads, where the channel allows it. A channel with a
// receive callback (a TcpConnection's; reactor/channel.h) gets, while
// reading is enabled, one multishot IORING_OP_RECV that picks its buffers
// from a ring of provided buffers (kBuffers x kBufferBytes per loop,
// registered once). Every completion is bytes the kernel already copied
// into one of them: the poller hands the view to the channel, and the
// buffer goes back to the ring at the next `poll()`, once the channel's
// callback has copied it. No read system call at all: the arming, the
// waiting and every completion of an iteration share one
// io_uring_submit_and_wait_timeout. A multishot receive that ends (out of
// buffers, ENOBUFS, or the kernel ends it) is re-armed at the next poll
// while the channel still reads; the peer's EOF or an error ends the stream
// and is handed over after the bytes before it. Disabling reading cancels
// the receive; bytes it had already taken from the socket are delivered
// all the same, never dropped.
//
// A bulk stream (a receive that fills a whole provided buffer) reads
// otherwise: one-shot IORING_OP_RECVs, each into storage of its own that
// the poller holds until the completion, even past the channel's removal.
// The channel gets that storage with the bytes (reactor/channel.h), and a
// connection whose input buffer is empty and can adopt it (LinearBuffer)
// takes it uncopied, then sends it on as it is: an echo makes no copy of
// its own. A small receive returns the channel to the ring.
//
// Writes are completion-based too, for channels with a send callback: a
// send (`send(channel, data)`) is one IORING_OP_SEND that the poller owns,
// with its bytes, until it completes; a short send continues where it
// stopped, and the channel hears once, when all was sent or it failed.
// Sends queued in an iteration go to the kernel in the same
// submit-and-wait as everything else, or, every UringSends::kFlushSends
// sends, in an io_uring_submit of their own made there and then (so a
// reply waits behind at most that many callbacks, not the whole
// iteration's): a loop that echoes to many connections makes one system
// call per that many messages, not one per message. A send's submission
// entry, which names the socket by number, is made just before its
// submit, never earlier, so no entry can outlive its fd. A
// removed channel's send is dropped if the kernel has not taken it yet,
// else cancelled; its bytes live until the kernel is done with them.
//
// Everything else is readiness: each other interest (writing; reading for
// channels without a receive callback, such as the acceptor, the eventfd
// and the timerfd) is one one-shot IORING_OP_POLL_ADD for its mask; its
// completion is the channel's revents, and it is re-armed at the next
// `poll()` (after the callbacks ran), so a channel still ready completes
// again at once: level-triggered, as the reactor expects. A change of
// interest cancels the armed poll and arms the new mask.
//
// Except reads that drain (reactor/channel.h; a TcpConnection's, under
// readiness I/O): a read-only interest of such a channel is one multishot
// poll that stays armed, so a message costs no re-arm in the kernel
// (docs/servers.md, "Two pollers"). It is edge-triggered, which the
// owner answers: a read that may have left bytes calls `more_to_read()`,
// and the next poll is a one-shot look (level) before the multishot one
// returns. It also asks for RDHUP: the peer's FIN may come in one wake-up
// with the last bytes, and a read that takes them leaves the EOF behind
// with no wake-up after it, so a completion with RDHUP, HUP or ERR ends
// the multishot poll and looks once. It is cancelled with ASYNC_CANCEL:
// POLL_REMOVE answers -EALREADY when the poll's wake-up is being handled and
// leaves it armed, holding the socket open past its close.
// SERVERKIT_URING_MULTISHOT_POLL=0 keeps every poll one-shot, as before (for
// comparisons).
//
// io_uring reports RDHUP to every poll, whatever its mask. Once the peer
// has half-closed, a one-shot write poll would complete at once, socket
// writable or not, and be re-armed at once: a loop spinning for as long as
// the peer does not read. So such a channel's write-only interest is a
// multishot poll too, which completes on the socket's wake-ups only (its
// owner writes until the socket is full, and the ACK that frees room wakes
// it).
//
// Completions carry a token, never a pointer: a token whose channel was
// removed or re-armed since finds nothing and is dropped (its buffer, if it
// holds one, goes back to the ring), so a late completion cannot touch a
// destroyed channel.
//
// A full submission queue is handed to the kernel and the entry taken
// again. Where the kernel does not take it (io_uring_submit failing with
// EBUSY or EAGAIN), an operation that finds no entry is kept, in order,
// and submitted by the next `poll()`, which then does not sleep: a send, a
// cancel, a poll or receive to arm is late, never dropped (said once per
// process on stderr). A removed channel's send that never reached the
// kernel is dropped with the channel, its fd number unused.
// SERVERKIT_URING_TEST_SQE_FAIL_EVERY=N makes every Nth entry asked for
// missing, for the tests (reactor/BUILD: *_uring_sq_full_test).
//
// Where provided-buffer rings cannot be registered (kernels before 5.19),
// completion I/O falls back to readiness, saying so in one line.
//
// The parts, one seam each: reactor/poller/internal/uring_ring.h (the ring, its
// submission entries and cancels), reactor/poller/internal/uring_buffers.h (the
// provided-buffer ring), reactor/poller/internal/uring_sends.h (the send path);
// the poll-and-receive path is reactor/poller/uring_poller_reads.cc.
//
// Counts (reactor/poller_stats.h, stats()): the busy time per iteration,
// io_uring_enter calls and their time, completions per enter, sends per
// submit and the oldest's wait to its submit, early submits, ENOBUFS,
// receive re-arms, full and refused submission queues. Plain integers and
// a few clock reads a poll; SERVERKIT_URING_FLUSH_SENDS=N changes the
// early submit's count (0: never, for comparisons).
//
// Loop thread only.

#ifndef SERVERKIT_REACTOR_POLLER_URING_POLLER_H_
#define SERVERKIT_REACTOR_POLLER_URING_POLLER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "reactor/completion_io.h"
#include "reactor/poller.h"

struct io_uring_cqe;

namespace serverkit::reactor_internal {
class ProvidedBuffers;
class UringRing;
class UringSends;
}  // namespace serverkit::reactor_internal

namespace serverkit::reactor {

// CompletionIo first, as the primary base: its calls come once per message,
// the Poller's once per loop iteration, and a secondary base's calls go
// through a this-adjusting thunk.
class UringPoller final : public CompletionIo, public Poller {
 public:
  // The provided-buffer ring of each loop: 512 buffers of 8 KiB (4 MiB of
  // address space, touched as data arrives). A receive takes one buffer
  // per completion; more data than the free buffers hold waits in the
  // socket until the next poll() recycles them.
  static constexpr unsigned kBuffers = 512;
  static constexpr unsigned kBufferBytes = 8192;
  // A channel whose receive fills a whole provided buffer is a bulk
  // stream: its next receives are one-shot, each into storage of its own
  // (kRoomBytes, doubling while filled, up to kMaxRoomBytes) that the
  // connection adopts as its input buffer, uncopied (reactor/channel.h).
  // One that receives under kSmallBytes goes back to the ring.
  static constexpr std::size_t kRoomBytes = 16384;
  static constexpr std::size_t kMaxRoomBytes = 256 << 10;
  static constexpr std::size_t kSmallBytes = 2048;
  // Rooms in flight per loop, at most (about): past it, bulk streams read
  // through the ring, so idle peers that once sent a burst cannot pin
  // memory without bound. SERVERKIT_URING_ROOM_BUDGET=BYTES (tests) sets it.
  static constexpr std::size_t kRoomBudgetBytes = 64 << 20;

  // Null, with the reason in *why, when io_uring cannot be set up here (an
  // old kernel, seccomp, kernel.io_uring_disabled).
  static std::unique_ptr<UringPoller> Create(EventLoop* loop, std::string* why,
                                             UringIo io = DefaultUringIo());
  ~UringPoller() override;

  Clock::time_point poll(int timeout_ms, ChannelList* active) override;
  void update_channel(Channel* channel) override;
  void remove_channel(Channel* channel) override;
  bool has_channel(Channel* channel) const override;
  PollerBackend backend() const override { return PollerBackend::kUring; }
  PollerStats stats() const override;

  // Itself where reads and sends are completion-based here (completion I/O
  // asked for and buffers registered), else null: readiness, as over epoll.
  CompletionIo* completion_io() override {
    return buffers_ != nullptr ? this : nullptr;
  }

  // CompletionIo. receive_limit(): the provided-buffer ring's bytes plus
  // two of the largest rooms: buffers come back to the ring only at the
  // next poll(), and a channel has at most two rooms live (one armed, one
  // cancelled and not yet completed), so it receives at most this much
  // between two polls, even after it stopped reading.
  std::size_t receive_limit() const override {
    return std::size_t{kBuffers} * kBufferBytes + 2 * kMaxRoomBytes;
  }
  std::uint64_t room_receives() const override {
    return room_receives_.load(std::memory_order_relaxed);
  }
  BufferStorage send_buffer() override;
  void recycle(BufferStorage storage) override;
  void send(Channel* channel, BufferStorage data) override;

 private:
  struct State {
    std::uint64_t token = 0;       // the armed poll's; 0: not armed
    int mask = 0;                  // what it was armed for
    bool multishot = false;        // the armed poll stays armed
    bool look_once = false;        // the next poll one-shot: the owner asked
    bool peer_hup = false;         // a poll saw the peer's FIN (RDHUP)
    bool queued = false;           // in to_arm_
    std::uint64_t recv_token = 0;  // the armed receive's; 0: none
    std::vector<std::uint64_t> live_recvs;  // receives not yet ended
    std::uint64_t seen = 0;        // the iteration it was last made active
    std::uint64_t send_token = 0;  // the send in flight; 0: none
    // A bulk stream: receives go into storage of their own (rooms_), of
    // `room` bytes, instead of the provided-buffer ring.
    bool bulk = false;
    std::size_t room = kRoomBytes;
  };

  UringPoller(EventLoop* loop,
              std::unique_ptr<reactor_internal::UringRing> ring);
  State* state_of(Channel* channel);
  void reap(ChannelList* active);
  void activate(Channel* channel, State* state, ChannelList* active);
  void on_send(std::uint64_t token, int res, ChannelList* active);

  // The poll-and-receive path (uring_poller_reads.cc).
  bool receives_for(const Channel* channel) const;
  int poll_mask(const Channel* channel) const;
  bool wants_recv(const Channel* channel) const;
  void cancel(State* state);
  void cancel_recv(State* state);
  void queue(Channel* channel, State* state);
  void arm_queued();
  bool arm(Channel* channel, State* state);
  void on_poll(const ::io_uring_cqe* cqe, ChannelList* active);
  void on_recv(Channel* channel, const ::io_uring_cqe* cqe,
               ChannelList* active);
  bool on_ring_recv(Channel* channel, State* state, const ::io_uring_cqe* cqe,
                    ChannelList* active);
  void on_room_recv(Channel* channel, State* state, BufferStorage room, int res,
                    ChannelList* active);

  EventLoop* const loop_;
  // Declared first, so that it is built before the paths that use it; the
  // destructor exits it before the buffers and the sends' bytes go.
  std::unique_ptr<reactor_internal::UringRing> ring_;
  std::unique_ptr<reactor_internal::ProvidedBuffers> buffers_;
  std::unique_ptr<reactor_internal::UringSends> sends_;
  std::uint64_t next_token_ = 0;
  std::uint64_t iteration_ = 0;
  // Each channel's State, in the slot its index() names (-1: none yet);
  // a deque, so a State stays put while others are added.
  std::deque<State> slots_;
  std::vector<int> free_slots_;
  std::unordered_map<int, Channel*> channels_;         // by fd
  std::unordered_map<std::uint64_t, Channel*> armed_;  // polls, by token
  std::unordered_map<std::uint64_t, Channel*> recvs_;  // receives, by token
  // The storage of one-shot receives in flight, by token, kept until their
  // completion even when the channel is gone: the kernel writes into it.
  std::unordered_map<std::uint64_t, BufferStorage> rooms_;
  std::size_t room_bytes_ = 0;  // their capacity, summed
  std::size_t room_budget_ = kRoomBudgetBytes;
  std::vector<Channel*> to_arm_;
  std::atomic<std::uint64_t> room_receives_{0};  // written by the loop only

  // The counts of stats() (reactor/poller_stats.h), in the loop thread.
  PollerStats stats_;
  Clock::time_point last_return_{};       // of the last poll(); epoch: none yet
  Clock::time_point first_send_{};        // the oldest send() not submitted
  std::uint64_t sends_since_submit_ = 0;  // send()s since the last submit
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_POLLER_URING_POLLER_H_
