// -----------------------------------------------------------------------------
// servers/common/process.h
// -----------------------------------------------------------------------------
//
// What every server, peer and load generator of servers/ sets up for its own
// process:
//
//   - `RaiseFdLimit()`: soft RLIMIT_NOFILE up to the hard limit;
//   - `StopSignalWatcher`: runs a callback when SIGINT or SIGTERM arrives.
//
// Thread-safety: RaiseFdLimit is thread-safe (no shared state); a
// StopSignalWatcher is owned by one thread.

#ifndef SERVERKIT_SERVERS_COMMON_PROCESS_H_
#define SERVERKIT_SERVERS_COMMON_PROCESS_H_

#include <atomic>
#include <functional>
#include <thread>

namespace serverkit::servers {

// Raises the soft RLIMIT_NOFILE to the hard limit; returns the new soft limit
// (-1 when it is unknown or unlimited).
long RaiseFdLimit();

// Blocks SIGINT and SIGTERM in the constructing thread, and so in every thread
// it starts later (construct it before any), and calls `on_stop` once, on a
// thread of its own, when either arrives. sigwait, not a handler: under TSan
// a handled SIGTERM (asio::signal_set) was lost once in 150 quick stops.
// The destructor stops the watching; `on_stop` is not called after it.
class StopSignalWatcher {
 public:
  explicit StopSignalWatcher(std::function<void()> on_stop);
  ~StopSignalWatcher();
  StopSignalWatcher(const StopSignalWatcher&) = delete;
  StopSignalWatcher& operator=(const StopSignalWatcher&) = delete;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace serverkit::servers

#endif  // SERVERKIT_SERVERS_COMMON_PROCESS_H_
