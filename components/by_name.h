// -----------------------------------------------------------------------------
// components/by_name.h
// -----------------------------------------------------------------------------
//
// serverkit's components chosen by name at run time, for any server: the
// task queue of every event loop, the connection buffer, the logger and the
// thread pool, each family's slowed-on-purpose control (a stated CPU cost
// per operation, which measures what one nanosecond of that component costs
// the whole server), and the flags and environment variables that choose
// them. `bazel run //bench:whatif` fills a server's `{policy}` with these
// flags.
//
//   family      flag (environment variable)         default   control
//   task queue  --task_queue=NAME (SERVERKIT_TASK_QUEUE)  swap-vector
//                                   --task_queue_slowdown_ns=N: every task
//                                   popped costs N ns more CPU
//               --coalesce=0|1, --backend=epoll|uring: every loop's wake-ups
//                                   and poller (SERVERKIT_BACKEND, or
//                                   reactor's SERVERKIT_REACTOR_BACKEND)
//               --uring_io=readiness|completion: how io_uring loops read
//                                   and write (SERVERKIT_URING_IO)
//   buffer      --buffer=NAME (SERVERKIT_BUFFER)       linear
//                                   --buffer_slowdown_ns_per_kib=N: every
//                                   KiB the server consumes costs N ns more
//                                   (the server calls ChargeConsumed)
//   logger      --logger=NAME (SERVERKIT_LOGGER)       none
//               --log_file=PATH                        /dev/null
//               --log_flush_every_line[=0|1]: one write(2) per line
//                                   --log_slowdown_ns=N: every log call
//                                   costs N ns more CPU on the caller
//   pool        --pool=NAME (SERVERKIT_POOL)           none
//               --pool_threads=N (1 to 256)            1
//                                   --pool_slowdown_ns=N: every submit
//                                   costs N ns more CPU on the submitter
//
// Every flag has its environment variable, SERVERKIT_ and the flag's name in
// capitals (SERVERKIT_LOG_SLOWDOWN_NS=2000), for a server that cannot take
// flags. A flag on the command line wins over its variable; a variable wins
// over the program's default (the Options it passes in). A program takes the
// flags of the families it uses (`families`); the others stay in argv for
// it to refuse, and their variables are not read.
//
// Names are the implementations' kName: queues/all_queues.h (multi-producer
// queues only), buffer/all_buffers.h, logger/all_loggers.h ("none": no
// logger), threadpool/all_pools.h ("none": no pool). A control's ns are
// spun on the thread's CPU clock (SpinCpuNs), so a preempted spin still
// costs all of it; 0 turns it off.
//
// Errors: an unknown name exits with status 2 and prints
// "<program>: unknown --logger 'x'; loggers: none, sync, ..." (the flag, or
// the variable it came from, and every valid name); a bad number exits 2
// naming the flag or variable and its range; so does a control that could
// never act (--pool_slowdown_ns with --pool=none) and a log file that
// cannot be opened. Nothing here throws.
//
// Thread-safety: TakeFlags and the Make* factories are called from main()
// before the server's threads start (they read the environment and may exit).
// What they return is as thread-safe as its family's contract: a task queue
// as reactor::TaskQueue, a logger call as the logger's, a Pool as
// threadpool/executor.h's Executor. SpinCpuNs and ChargeConsumed are
// thread-safe.

#ifndef SERVERKIT_COMPONENTS_BY_NAME_H_
#define SERVERKIT_COMPONENTS_BY_NAME_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
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
#include "reactor/event_loop.h"
#include "reactor/task_queue.h"
#include "threadpool/executor.h"
#include "threadpool/task.h"

namespace serverkit::components {

// The families a program takes flags for (a bit set).
enum Family : unsigned {
  kTaskQueue = 1u << 0,  // --task_queue, --coalesce, --backend and control
  kBuffer = 1u << 1,     // --buffer
  kLogger = 1u << 2,     // --logger, --log_file, --log_flush_every_line, ...
  kPool = 1u << 3,       // --pool, --pool_threads and its control
  // --buffer_slowdown_ns_per_kib: only a program that calls ChargeConsumed
  // where it consumes its input takes it (the other controls act inside
  // the factories' products).
  kBufferControl = 1u << 4,
  kAllFamilies = kTaskQueue | kBuffer | kLogger | kPool | kBufferControl,
};

// The choice of every family; a program sets its own defaults before
// TakeFlags.
struct Options {
  std::string task_queue = "swap-vector";
  std::uint32_t task_queue_slowdown_ns = 0;
  bool coalesce = true;
  // Without the flag or SERVERKIT_BACKEND: SERVERKIT_REACTOR_BACKEND or epoll
  // (reactor::DefaultPollerBackend).
  reactor::PollerBackend backend = reactor::DefaultPollerBackend();
  // Without the flag: SERVERKIT_URING_IO or readiness.
  reactor::UringIo uring_io = reactor::DefaultUringIo();

  std::string buffer = "linear";
  std::uint32_t buffer_slowdown_ns_per_kib = 0;

  std::string logger = "none";
  std::string log_file = "/dev/null";
  bool log_flush_every_line = false;
  std::uint32_t log_slowdown_ns = 0;

  std::string pool = "none";
  std::size_t pool_threads = 1;
  std::uint32_t pool_slowdown_ns = 0;
};

// The usage lines of the flags of `families`.
std::string Help(unsigned families = kAllFamilies);

// Takes the flags of `families` out of argv into `o`, after their
// environment variables, and returns the rest (argv[0] first). `extra_flag`
// sees every argument first and returns true when it consumed it. Exits 2
// on an unknown name or a bad value, as the header says.
std::vector<char*> TakeFlags(
    int argc, char** argv, std::string_view program, Options* o,
    unsigned families = kAllFamilies,
    const std::function<bool(std::string_view arg)>& extra_flag = {});

// The valid names of each family, as the errors list them.
std::vector<std::string> TaskQueueNames();  // multi-producer queues
std::vector<std::string> BufferNames();
std::vector<std::string> LoggerNames();  // "none" first
std::vector<std::string> PoolNames();    // "none" first

// Prints "<program>: <message>" to stderr and exits with status 2.
[[noreturn]] void Fail(std::string_view program, const std::string& message);

// "a, b, c".
std::string Join(const std::vector<std::string>& names);

// `--flag=value` → value; nullopt when `arg` is not that flag.
std::optional<std::string> FlagValue(std::string_view arg,
                                     std::string_view flag);

// A control's or a cost's value: 0 to 1000000000 ns, digits only; exits 2
// naming `flag` (or the variable) on anything else.
std::uint32_t ParseNs(std::string_view program, std::string_view flag,
                      const std::string& value);

// Busy-waits `ns` nanoseconds of this thread's CPU time. From kCpuClockFromNs
// on it counts CLOCK_THREAD_CPUTIME_ID, so a spin preempted midway still
// costs all of it; below, the steady clock alone (reading the CPU clock is a
// system call, about 0.6 us in a VM).
inline constexpr std::uint64_t kCpuClockFromNs = 20'000;
void SpinCpuNs(std::uint64_t ns);

// ---- the stop line ----------------------------------------------------------

// What the components made here did, summed over the process: tasks popped
// from every task queue MakeTaskQueueFactory made, bytes passed to
// ChargeConsumed, calls of every logger MakeLogger bound, and tasks every
// Pool accepted (after shutdown(kDrain), all of them have run). Each is a
// relaxed increment of one shared counter per operation, controls off or on:
// the validation sizes a control from the baseline's CPU per operation.
struct Counts {
  std::uint64_t tasks_run, bytes_in, log_lines, pool_tasks_run;
};
Counts ReadCounts();

// Prints "serverkit components: tasks run N, bytes in N, log lines N, pool
// tasks run N", whatif's count of each family's operations. A server calls it
// once when it stops (after draining its pool), to stderr; not at exit by
// itself, so that a server's own stop line keeps the last word.
void PrintCounts(std::FILE* out);

// ---- task queue -------------------------------------------------------------

// A new task queue for one event loop.
using TaskQueueFactory = std::function<std::unique_ptr<reactor::TaskQueue>()>;

// The factory of o.task_queue, slowed by o.task_queue_slowdown_ns when set.
// Exits 2 with the names on an unknown name.
TaskQueueFactory MakeTaskQueueFactory(std::string_view program,
                                      const Options& o);

// reactor::EventLoopOptions for one loop: a queue from `make_queue`, and
// o's coalesce, backend and io_uring I/O.
reactor::EventLoopOptions LoopOptions(const TaskQueueFactory& make_queue,
                                      const Options& o);

// A task queue whose every successful try_pop is counted (tasks run) and
// costs `ns` more CPU time: the task queue's control, named
// "<queue>+slowed-<ns>ns" (the queue's own name when `ns` is 0).
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

// ---- buffer -----------------------------------------------------------------

// Calls `serve.template operator()<B>()` with the buffer type B named by
// o.buffer and returns its result (the server is instantiated once per
// buffer). Exits 2 with the names on an unknown name.
template <typename Serve>
int WithBuffer(std::string_view program, const Options& o, Serve&& serve);

// The buffer's control: a server calls this with the bytes it is about to
// take out of its input buffer; it counts them (bytes in) and spins bytes *
// o.buffer_slowdown_ns_per_kib / 1024 ns (nothing when the control is off).
namespace internal {
struct Counters {
  std::atomic<std::uint64_t> tasks_run{0}, bytes_in{0}, log_lines{0},
      pool_tasks_run{0};
};
// Memory ordering: relaxed; read for the stop line.
inline Counters g_counters;
}  // namespace internal

inline void ChargeConsumed(const Options& o, std::size_t bytes) {
  internal::g_counters.bytes_in.fetch_add(bytes, std::memory_order_relaxed);
  if (o.buffer_slowdown_ns_per_kib > 0) {
    SpinCpuNs(static_cast<std::uint64_t>(bytes) * o.buffer_slowdown_ns_per_kib /
              1024);
  }
}

// ---- logger -----------------------------------------------------------------

// The logger named by o.logger, writing to o.log_file, turned into a
// type-erased call by `bind(Logger*)`, a generic lambda returning
// std::function<Sig> (so the caller keeps the formatting, and is compiled
// once, not once per logger). Returns the owner of the logger (null for
// "none", and *out stays empty); keep it alive while *out is called. With
// o.log_slowdown_ns, every call of *out first spins that much CPU time on
// the calling thread. Exits 2 on an unknown name or a log that cannot be
// opened.
template <typename Sig, typename Bind>
std::shared_ptr<void> MakeLogger(std::string_view program, const Options& o,
                                 Bind bind, std::function<Sig>* out);

// ---- thread pool ------------------------------------------------------------

// One pool of threadpool/all_pools.h behind a small virtual interface (the
// server is compiled once, not once per pool). It counts the submits
// accepted and refused, and with a slowdown spins that many ns on the
// submitting thread before every submit (the pool's control).
class Pool {
 public:
  virtual ~Pool() = default;
  virtual std::string_view name() const = 0;
  virtual std::size_t workers() const = 0;
  // Executor::shutdown.
  virtual std::size_t shutdown(ShutdownMode mode) = 0;
  virtual std::uint64_t task_exceptions() const = 0;

  // Executor::try_submit (false once shutdown has begun, `task` untouched),
  // after the control's spin, counted.
  bool try_submit(Task&& task) {
    SpinCpuNs(slowdown_ns_);
    if (do_try_submit(std::move(task))) {
      submitted_.fetch_add(1, std::memory_order_relaxed);
      internal::g_counters.pool_tasks_run.fetch_add(1,
                                                    std::memory_order_relaxed);
      return true;
    }
    failed_submits_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  // Tasks accepted; after shutdown(kDrain), every one of them has run.
  std::uint64_t submitted() const {
    return submitted_.load(std::memory_order_relaxed);
  }
  std::uint64_t failed_submits() const {
    return failed_submits_.load(std::memory_order_relaxed);
  }
  std::uint32_t slowdown_ns() const { return slowdown_ns_; }

 protected:
  explicit Pool(std::uint32_t slowdown_ns) : slowdown_ns_(slowdown_ns) {}

 private:
  virtual bool do_try_submit(Task&& task) = 0;

  const std::uint32_t slowdown_ns_;
  // Memory ordering: relaxed; counters read for a report.
  std::atomic<std::uint64_t> submitted_{0};
  std::atomic<std::uint64_t> failed_submits_{0};
};

// The pool of o.pool with o.pool_threads workers and o.pool_slowdown_ns;
// null for "none". Exits 2 with the names on an unknown name.
std::unique_ptr<Pool> MakePool(std::string_view program, const Options& o);

// The pool named `name`, or null when no pool has that name (no exit).
std::unique_ptr<Pool> FindPool(std::string_view name, std::size_t threads,
                               std::uint32_t slowdown_ns = 0);

// ---- templates --------------------------------------------------------------

namespace internal {
// A call of `inner`, counted (log lines), that first spins `ns` of CPU time
// on the calling thread.
template <typename R, typename... Args>
std::function<R(Args...)> Counted(std::function<R(Args...)> inner,
                                  std::uint32_t ns) {
  return [inner = std::move(inner), ns](Args... args) -> R {
    g_counters.log_lines.fetch_add(1, std::memory_order_relaxed);
    SpinCpuNs(ns);
    return inner(std::forward<Args>(args)...);
  };
}
}  // namespace internal

template <typename Serve>
int WithBuffer(std::string_view program, const Options& o, Serve&& serve) {
  int rc = 0;
  bool found = false;
  [&]<typename... Bs>(TypeList<Bs...>) {
    (
        [&] {
          if (!found && o.buffer == Bs::kName) {
            found = true;
            rc = serve.template operator()<Bs>();
          }
        }(),
        ...);
  }(AllBuffers{});
  if (!found) {
    Fail(program, "unknown --buffer '" + o.buffer +
                      "'; buffers: " + Join(BufferNames()));
  }
  return rc;
}

template <typename Sig, typename Bind>
std::shared_ptr<void> MakeLogger(std::string_view program, const Options& o,
                                 Bind bind, std::function<Sig>* out) {
  if (o.logger == "none") return nullptr;
  std::shared_ptr<void> owner;
  [&]<typename... Ls>(TypeList<Ls...>) {
    (
        [&] {
          if (owner || o.logger != Ls::kName) return;
          LoggerOptions lo;
          lo.sink.kind = SinkKind::kFile;
          lo.sink.path = o.log_file;
          if (o.log_flush_every_line) lo.flush_on = Level::kTrace;
          std::shared_ptr<Ls> logger;
          try {
            logger = std::make_shared<Ls>(lo);
          } catch (const std::exception& e) {
            Fail(program,
                 "cannot open the log '" + o.log_file + "': " + e.what());
          }
          *out = bind(logger.get());
          owner = logger;
        }(),
        ...);
  }(AllLoggers{});
  if (!owner) {
    Fail(program, "unknown --logger '" + o.logger +
                      "'; loggers: " + Join(LoggerNames()));
  }
  *out = internal::Counted(std::move(*out), o.log_slowdown_ns);
  return owner;
}

}  // namespace serverkit::components

#endif  // SERVERKIT_COMPONENTS_BY_NAME_H_
