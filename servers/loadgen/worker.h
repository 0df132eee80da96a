// -----------------------------------------------------------------------------
// servers/loadgen/worker.h
// -----------------------------------------------------------------------------
//
// `Worker`: one thread's epoll loop and the connections it owns. It sends
// each request at its intended time (Schedule) or, in serial mode, when the
// reply to the connection's previous request completes if that is later
// (ReleaseTime; pipelined sends whether or not earlier replies came back),
// and times every reply:
//
//   - latency     reply complete - intended send time (corrected); a reply
//                 completes when the kernel received its last bytes
//                 (SO_TIMESTAMPNS), not when this thread read them;
//   - uncorrected reply complete - max(actual send, previous reply on the
//                 connection): what a closed-loop client, which waits for
//                 each reply before sending the next, would have timed;
//   - lag         when the thread got to a request - its release time
//                 (ReleaseTime), read before the write (a socket buffer
//                 that is full, or a reply that is late, is the server's
//                 doing and shows in latency, not in lag). In serial mode
//                 a request held behind a reply carries the previous
//                 request's lag where it is larger (SendLag), so the
//                 generator's delay carries down a backlog it made instead
//                 of passing for the server's.
//
// Only requests whose intended time falls in the measured window
// [warmup, warmup + duration) are recorded and counted; warm-up requests
// are sent all the same. Sending on schedule stops once every request of
// the window is sent or held (serial: waiting for a reply), or at the
// window's end + max lag (those left are `unsent`: the generator fell
// behind). Then the worker waits for the replies still outstanding for a
// grace of 10x its p99 (1 s to 10 s), still sending the requests held
// behind them as they come; what never comes is `unanswered`, held
// requests included (the server did not answer the one before).
//
// A connection the server closes, or that gets a reply the reader rejects,
// is closed: its outstanding requests, and the ones that come due on it
// later, are `errors`. The other connections go on. A connection with more
// than 64 MiB of output the socket would not take fails the whole run.
//
// Thread-safety: Run() is called once, on the worker's own thread; the
// result is read after that thread is joined. `abort` is shared by all
// workers (memory ordering: relaxed; it carries no data, the text is in each
// worker's result, read after the join).

#ifndef SERVERKIT_SERVERS_LOADGEN_WORKER_H_
#define SERVERKIT_SERVERS_LOADGEN_WORKER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "servers/loadgen/flags.h"
#include "servers/loadgen/histogram.h"
#include "servers/loadgen/protocol.h"
#include "servers/loadgen/schedule.h"

namespace serverkit::loadgen {

using Clock = std::chrono::steady_clock;

// What every worker shares, read-only while they run.
struct RunPlan {
  Options options;
  std::string request;  // the bytes of one request
  Clock::time_point start;
  std::int64_t warmup_ns = 0;  // the measured window: [warmup_ns, end_ns)
  std::int64_t end_ns = 0;
  std::int64_t max_lag_ns = 0;
  std::atomic<bool>* abort = nullptr;  // a fatal error somewhere: stop
};

// One worker's counts and histograms; main merges them. The counts concern
// the measured window only:
//   scheduled = sent + unsent + (errors of requests never sent),
//   sent = completed + unanswered + (errors of requests sent).
struct WorkerResult {
  Histogram latency;
  Histogram uncorrected;
  Histogram lag;
  // How long after the kernel received a reply's bytes this thread read
  // them (SO_TIMESTAMPNS): the generator's own delay, kept out of latency.
  Histogram read_lag;
  std::uint64_t scheduled = 0;
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t errors = 0;
  std::uint64_t unanswered = 0;
  std::uint64_t unsent = 0;
  // Serial mode: requests that came due while the previous one was still
  // out, so went late (after that reply) or never, and were charged the
  // wait.
  std::uint64_t held = 0;
  std::string first_error;  // the first connection error, if any
  std::string fatal;        // why the run had to stop, if it did
};

class Worker {
 public:
  // Takes the connected, non-blocking sockets `fds`;
  // `connection_indices[i]` is fds[i]'s number in the run (seeds, messages).
  Worker(const RunPlan* plan, std::vector<int> fds,
         std::vector<int> connection_indices);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Run();
  WorkerResult& result() { return result_; }

 private:
  struct Pending {
    std::int64_t intended;
    std::int64_t sent;
    std::int64_t lag;  // the generator's delay of this send
    bool measured;
  };
  struct Connection {
    Connection(int fd_in, int index_in, Schedule schedule_in,
               ReplyReader reader_in)
        : fd(fd_in),
          index(index_in),
          schedule(schedule_in),
          reader(std::move(reader_in)) {}

    int fd;
    int index;
    bool open = true;
    bool want_write = false;  // EPOLLOUT registered
    // Serial mode: the next request is due but a reply is out; it is off
    // the heap until that reply completes.
    bool held = false;
    Schedule schedule;
    ReplyReader reader;
    std::string out;  // bytes the socket has not taken yet, from out_off
    std::size_t out_off = 0;
    std::deque<Pending> pending;  // sent, reply not complete, in order
    std::int64_t last_reply = 0;
    // The previous reply's time and its request's send lag: serial mode
    // releases the next request from the reply, and a held request carries
    // that lag where it is larger (SendLag), so a backlog the generator
    // made (it was not running) stays its lag, request after request.
    std::int64_t previous_reply = 0;
    std::int64_t previous_lag = 0;
  };

  std::int64_t Now() const;
  void SendDue(std::int64_t now);
  void StopSending();
  void Release(Connection& c);
  // Counts the rest of c's window, never sent, into *bucket; returns how
  // many of them were measured.
  std::uint64_t DropRest(Connection& c, std::uint64_t* bucket);
  void Flush(Connection& c);
  void OnReadable(Connection& c);
  void Complete(Connection& c, std::size_t n, std::int64_t t);
  void Close(Connection& c, const std::string& why);
  void SetWriteInterest(Connection& c, bool on);
  void Fatal(std::string why);

  const RunPlan& plan_;
  int epoll_fd_ = -1;
  std::vector<Connection> conns_;
  // (intended time, connection) of each connection's next request.
  std::vector<std::pair<std::int64_t, std::size_t>> heap_;
  std::vector<std::size_t> dirty_;  // connections with output to flush
  // Sending on schedule: until the heap and held_ are empty or the
  // window's end + max lag; then the grace.
  bool sending_ = true;
  bool has_due_ = false;           // SendDue stopped at its batch limit
  std::size_t held_ = 0;           // connections with held == true
  std::uint64_t outstanding_ = 0;  // pending requests, warm-up included
  WorkerResult result_;
};

}  // namespace serverkit::loadgen

#endif  // SERVERKIT_SERVERS_LOADGEN_WORKER_H_
