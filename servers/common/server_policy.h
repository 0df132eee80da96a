// -----------------------------------------------------------------------------
// servers/common/server_policy.h
// -----------------------------------------------------------------------------
//
// What every one of our benchmark servers (ping-pong, chat, HTTP) shares to
// choose its components by name on the command line:
//
//   --buffer=NAME       a buffer of buffer/all_buffers.h (default linear)
//   --task_queue=NAME   a multi-producer queue of queues/all_queues.h for
//                       every loop's cross-thread task queue (default
//                       swap-vector)
//   --coalesce=0|1      share eventfd wake-ups between posts (default 1)
//   --backend=epoll|uring  every loop's poller (default epoll, or the
//                       environment's SERVERKIT_REACTOR_BACKEND; io_uring
//                       falls back to epoll, saying so, where not permitted)
//   --logger=NAME       a logger of logger/all_loggers.h, or none (default)
//   --log_file=PATH     where the logger writes (default /dev/null)
//   --log_flush_every_line  flush every record (slow on purpose: the
//                       validation's positive control for the logger)
//   --task_queue_slowdown_ns=N  every task popped costs N ns more of CPU
//                       time (slow on purpose: the task queue's control)
//   --log_slowdown_ns=N  every log call costs N ns more of CPU time on the
//                       calling thread (slow on purpose: the logger's
//                       control, sized in ns per line)
//
// An unknown name exits with status 2 and the list of valid names. A server
// adds its own flags through `extra_flag`. The stop signals and the order in
// which a server's Main uses all this are server_main.h's.
//
// Thread-safety: call from main() before any thread starts.

#ifndef SERVERKIT_SERVERS_COMMON_SERVER_POLICY_H_
#define SERVERKIT_SERVERS_COMMON_SERVER_POLICY_H_

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/type_list.h"
#include "buffer/all_buffers.h"
#include "logger/all_loggers.h"
#include "queues/all_queues.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"

namespace serverkit::servers {

struct PolicyOptions {
  std::string buffer = "linear";
  std::string task_queue = "swap-vector";
  bool coalesce = true;
  std::string logger = "none";
  std::string log_file = "/dev/null";
  // Flush every record (one write(2) per line): the validation's slowed
  // logger control. Default: the logger's own policy.
  bool log_flush_every_line = false;
  // Each task popped from a loop's task queue costs this much more CPU
  // time (SpinCpuNs): the validation's slowed task-queue control. 0: off.
  std::uint32_t task_queue_slowdown_ns = 0;
  // Each call of the logger MakeLogger returns costs this much more CPU
  // time on the calling thread (SpinCpuNs): the validation's slowed logger
  // control. 0: off.
  std::uint32_t log_slowdown_ns = 0;
  // Every loop's poller (reactor/poller.h): epoll or io_uring; without the
  // flag, SERVERKIT_REACTOR_BACKEND or epoll (reactor::DefaultPollerBackend).
  reactor::PollerBackend backend = reactor::DefaultPollerBackend();
};

// The usage lines of the flags above.
extern const char* const kPolicyHelp;

// Prints "<program>: <message>" to stderr and exits with status 2.
[[noreturn]] void Fail(std::string_view program, const std::string& message);

// "a, b, c".
std::string Join(const std::vector<std::string>& names);

// Busy-waits `ns` nanoseconds of this thread's CPU time: a slowed-on-purpose
// control then costs its stated CPU. From kCpuClockFromNs on it counts
// CLOCK_THREAD_CPUTIME_ID, so a spin preempted midway still costs all of it;
// below, the steady clock alone (reading the CPU clock costs a system call).
inline constexpr std::uint64_t kCpuClockFromNs = 20'000;
void SpinCpuNs(std::uint64_t ns);

// The value of a slowdown flag (`--flag=value`): 0 to 1000000000 ns; fails
// (exit 2) naming `flag` on anything else.
std::uint32_t ParseSlowdownNs(std::string_view program, std::string_view flag,
                              const std::string& value);

// Takes the policy flags out of argv into `po` and returns the rest (argv[0]
// first). `extra_flag` sees every other argument first and returns true when
// it consumed it. A bad value of a known flag fails (exit 2).
std::vector<char*> TakePolicyFlags(
    int argc, char** argv, std::string_view program, PolicyOptions* po,
    const std::function<bool(std::string_view arg)>& extra_flag = {});

// `--flag=value` → value; nullopt when `arg` is not that flag.
std::optional<std::string> FlagValue(std::string_view arg,
                                     std::string_view flag);

// The task queue factory named by po.task_queue (an MPMC or MPSC queue of
// AllQueues), slowed by po.task_queue_slowdown_ns when that is set; fails
// with the valid names when there is none.
using TaskQueueFactory = std::function<std::unique_ptr<reactor::TaskQueue>()>;
TaskQueueFactory MakeTaskQueueFactory(std::string_view program,
                                      const PolicyOptions& po);

// A task queue whose every successful try_pop costs `ns` more CPU time
// (SpinCpuNs): a component slowed on purpose, named "<queue>+slowed-<ns>ns".
class SlowedTaskQueue final : public reactor::TaskQueue {
 public:
  SlowedTaskQueue(std::unique_ptr<reactor::TaskQueue> inner, std::uint32_t ns);
  std::string_view name() const override { return name_; }
  void push(reactor::Functor&& task) override { inner_->push(std::move(task)); }
  bool try_pop(reactor::Functor& out) override;

 private:
  std::unique_ptr<reactor::TaskQueue> inner_;
  std::uint32_t ns_;
  std::string name_;
};

// reactor::EventLoopOptions for one loop of the policy.
reactor::EventLoopOptions LoopOptions(const TaskQueueFactory& make_queue,
                                      const PolicyOptions& po);

// A call of `inner` that first spins `ns` of CPU time (SpinCpuNs) on the
// calling thread: MakeLogger's slowed logger.
namespace internal {
template <typename R, typename... Args>
std::function<R(Args...)> Slowed(std::function<R(Args...)> inner,
                                 std::uint32_t ns) {
  return [inner = std::move(inner), ns](Args... args) -> R {
    SpinCpuNs(ns);
    return inner(std::forward<Args>(args)...);
  };
}
}  // namespace internal

// The logger named by po.logger, writing to po.log_file, turned into a
// type-erased call by `bind(Logger*)`, a generic lambda returning
// std::function<Sig> (so the caller keeps the formatting, and a server is
// instantiated once per buffer, not once per buffer and logger). Returns the
// owner of the logger (null for "none"; *out stays empty). With
// po.log_slowdown_ns, every call of *out first spins that much CPU time
// (SpinCpuNs) on the calling thread. Fails on an unknown name or a log that
// cannot be opened.
template <typename Sig, typename Bind>
std::shared_ptr<void> MakeLogger(std::string_view program,
                                 const PolicyOptions& po, Bind bind,
                                 std::function<Sig>* out) {
  if (po.logger == "none") return nullptr;
  std::shared_ptr<void> owner;
  std::vector<std::string> names = {"none"};
  [&]<typename... Ls>(TypeList<Ls...>) {
    (
        [&] {
          names.emplace_back(Ls::kName);
          if (owner || po.logger != Ls::kName) return;
          LoggerOptions lo;
          lo.sink.kind = SinkKind::kFile;
          lo.sink.path = po.log_file;
          if (po.log_flush_every_line) lo.flush_on = Level::kTrace;
          std::shared_ptr<Ls> logger;
          try {
            logger = std::make_shared<Ls>(lo);
          } catch (const std::exception& e) {
            Fail(program,
                 "cannot open the log '" + po.log_file + "': " + e.what());
          }
          *out = bind(logger.get());
          owner = logger;
        }(),
        ...);
  }(AllLoggers{});
  if (!owner)
    Fail(program,
         "unknown --logger '" + po.logger + "'; loggers: " + Join(names));
  if (po.log_slowdown_ns > 0)
    *out = internal::Slowed(std::move(*out), po.log_slowdown_ns);
  return owner;
}

// Calls `serve.template operator()<B>()` with the buffer B named by
// po.buffer and returns its result; fails with the valid names when none.
template <typename Serve>
int WithBuffer(std::string_view program, const PolicyOptions& po,
               Serve&& serve) {
  int rc = 0;
  bool found = false;
  std::vector<std::string> names;
  [&]<typename... Bs>(TypeList<Bs...>) {
    (
        [&] {
          names.emplace_back(Bs::kName);
          if (!found && po.buffer == Bs::kName) {
            found = true;
            rc = serve.template operator()<Bs>();
          }
        }(),
        ...);
  }(AllBuffers{});
  if (!found)
    Fail(program,
         "unknown --buffer '" + po.buffer + "'; buffers: " + Join(names));
  return rc;
}

// Our servers' shape, as the peers': `threads` 1 is one loop that accepts
// and serves; N > 1 an accepting loop (`base`) plus N I/O loops (muduo's
// setThreadNum(N)), each built from `loop_options`. Fails (exit 2) with the
// reason when `addr` is not an IPv4 address or the port cannot be bound.
template <typename B>
std::unique_ptr<reactor::TcpServer<B>> ListenOrFail(
    std::string_view program, reactor::EventLoop* base, const std::string& addr,
    int port, int threads, const std::string& name,
    const std::function<reactor::EventLoopOptions()>& loop_options) {
  reactor::InetAddress listen;
  try {
    listen = reactor::InetAddress(addr, static_cast<std::uint16_t>(port));
  } catch (const std::exception& e) {
    Fail(program, e.what());
  }
  try {
    return std::make_unique<reactor::TcpServer<B>>(
        base, listen, name, threads == 1 ? 0 : threads, loop_options);
  } catch (const std::exception& e) {
    Fail(program, std::string("cannot listen on ") + listen.to_string() + ": " +
                      e.what());
  }
}

}  // namespace serverkit::servers

#endif  // SERVERKIT_SERVERS_COMMON_SERVER_POLICY_H_
