// -----------------------------------------------------------------------------
// components/by_name.cc
// -----------------------------------------------------------------------------
//
// The flags and variables, the controls, and the factories that need every
// queue and pool instantiated once (by_name.h).

#include "components/by_name.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "base/thread_cpu.h"
#include "queues/all_queues.h"
#include "threadpool/all_pools.h"

namespace serverkit::components {
namespace {

// Where a value came from, for its error: "--logger" or "SERVERKIT_LOGGER".
using Setter = void (*)(std::string_view program, std::string_view source,
                        const std::string& value, Options* o);

struct Flag {
  const char* name;  // without the leading "--"
  unsigned family;
  bool boolean;       // may stand alone ("--log_flush_every_line")
  const char* value;  // for the usage: "=NAME", "=N"
  Setter set;
  const char* help;
};

void CheckName(std::string_view program, std::string_view source,
               const std::string& value, const char* what,
               const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), value) == names.end()) {
    Fail(program, "unknown " + std::string(source) + " '" + value + "'; " +
                      what + ": " + Join(names));
  }
}

bool ParseBool(std::string_view program, std::string_view source,
               const std::string& value) {
  if (value != "0" && value != "1") {
    Fail(program, std::string(source) + " takes 0 or 1, not '" + value + "'");
  }
  return value == "1";
}

const Flag kFlags[] = {
    {"task_queue", kTaskQueue, false, "=NAME",
     [](auto program, auto source, const auto& v, Options* o) {
       CheckName(program, source, v, "multi-producer queues", TaskQueueNames());
       o->task_queue = v;
     },
     "every loop's cross-thread task queue (default swap-vector)"},
    {"task_queue_slowdown_ns", kTaskQueue, false, "=N",
     [](auto program, auto source, const auto& v, Options* o) {
       o->task_queue_slowdown_ns = ParseNs(program, source, v);
     },
     "every task popped costs N ns more CPU (slow on purpose)"},
    {"coalesce", kTaskQueue, false, "=0|1",
     [](auto program, auto source, const auto& v, Options* o) {
       o->coalesce = ParseBool(program, source, v);
     },
     "share eventfd wake-ups between posts (default 1)"},
    {"backend", kTaskQueue, false, "=epoll|uring",
     [](auto program, auto source, const auto& v, Options* o) {
       const auto b = reactor::ParsePollerBackend(v);
       if (!b) {
         Fail(program,
              std::string(source) + " takes epoll or uring, not '" + v + "'");
       }
       o->backend = *b;
     },
     "every loop's poller (default epoll)"},
    {"uring_io", kTaskQueue, false, "=readiness|completion",
     [](auto program, auto source, const auto& v, Options* o) {
       const auto io = reactor::ParseUringIo(v);
       if (!io) {
         Fail(program, std::string(source) +
                           " takes readiness or completion, not '" + v + "'");
       }
       o->uring_io = *io;
     },
     "how io_uring loops read and write (default readiness)"},
    {"buffer", kBuffer, false, "=NAME",
     [](auto program, auto source, const auto& v, Options* o) {
       CheckName(program, source, v, "buffers", BufferNames());
       o->buffer = v;
     },
     "the connections' buffer (default linear)"},
    {"buffer_slowdown_ns_per_kib", kBufferControl, false, "=N",
     [](auto program, auto source, const auto& v, Options* o) {
       o->buffer_slowdown_ns_per_kib = ParseNs(program, source, v);
     },
     "every KiB consumed costs N ns more CPU (slow on purpose)"},
    {"logger", kLogger, false, "=NAME",
     [](auto program, auto source, const auto& v, Options* o) {
       CheckName(program, source, v, "loggers", LoggerNames());
       o->logger = v;
     },
     "a logger of logger/all_loggers.h, or none (default none)"},
    {"log_file", kLogger, false, "=PATH",
     [](auto, auto, const auto& v, Options* o) { o->log_file = v; },
     "where the logger writes (default /dev/null)"},
    {"log_flush_every_line", kLogger, true, "",
     [](auto program, auto source, const auto& v, Options* o) {
       o->log_flush_every_line = ParseBool(program, source, v);
     },
     "flush every line (slow on purpose)"},
    {"log_slowdown_ns", kLogger, false, "=N",
     [](auto program, auto source, const auto& v, Options* o) {
       o->log_slowdown_ns = ParseNs(program, source, v);
     },
     "every log call costs N ns more CPU (slow on purpose)"},
    {"pool", kPool, false, "=NAME",
     [](auto program, auto source, const auto& v, Options* o) {
       CheckName(program, source, v, "pools", PoolNames());
       o->pool = v;
     },
     "a pool of threadpool/all_pools.h, or none (default none)"},
    {"pool_threads", kPool, false, "=N",
     [](auto program, auto source, const auto& v, Options* o) {
       const bool digits =
           !v.empty() && v.size() <= 3 &&
           std::all_of(v.begin(), v.end(), [](char c) {
             return std::isdigit(static_cast<unsigned char>(c)) != 0;
           });
       const int n = digits ? std::atoi(v.c_str()) : 0;
       if (n < 1 || n > 256) {
         Fail(program,
              std::string(source) + " takes 1 to 256, not '" + v + "'");
       }
       o->pool_threads = static_cast<std::size_t>(n);
     },
     "the pool's workers, 1 to 256 (default 1)"},
    {"pool_slowdown_ns", kPool, false, "=N",
     [](auto program, auto source, const auto& v, Options* o) {
       o->pool_slowdown_ns = ParseNs(program, source, v);
     },
     "every submit costs N ns more CPU (slow on purpose)"},
};

std::string EnvName(std::string_view flag) {
  std::string s = "SERVERKIT_";
  for (const char c : flag) {
    s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return s;
}

template <Executor E>
class AnyPool final : public Pool {
 public:
  AnyPool(std::size_t threads, std::uint32_t slowdown_ns)
      : Pool(slowdown_ns), pool_(threads) {}

  std::string_view name() const override { return E::kName; }
  std::size_t workers() const override { return pool_.workers(); }
  std::size_t shutdown(ShutdownMode mode) override {
    return pool_.shutdown(mode);
  }
  std::uint64_t task_exceptions() const override {
    return pool_.task_exceptions();
  }

 private:
  bool do_try_submit(Task&& task) override {
    return pool_.try_submit(std::move(task));
  }

  E pool_;
};

}  // namespace

std::string Help(unsigned families) {
  std::string s;
  for (const Flag& f : kFlags) {
    if ((f.family & families) == 0) continue;
    std::string left = "  --" + std::string(f.name) + f.value;
    left.resize(std::max<std::size_t>(left.size() + 1, 32), ' ');
    s += left + f.help + "\n";
  }
  s += "  (each also as SERVERKIT_<FLAG> in the environment; a flag wins)\n";
  return s;
}

void Fail(std::string_view program, const std::string& message) {
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(program.size()),
               program.data(), message.c_str());
  std::exit(2);
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::optional<std::string> FlagValue(std::string_view arg,
                                     std::string_view flag) {
  if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag &&
      arg[flag.size()] == '=') {
    return std::string(arg.substr(flag.size() + 1));
  }
  return std::nullopt;
}

std::uint32_t ParseNs(std::string_view program, std::string_view flag,
                      const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const unsigned long ns = std::strtoul(value.c_str(), &end, 10);
  // Digits only: strtoul alone would take " 5", "+5" and "-5" (wrapped).
  if (value.empty() || !std::isdigit(static_cast<unsigned char>(value[0])) ||
      *end != '\0' || errno != 0 || ns > 1'000'000'000UL) {
    Fail(program,
         std::string(flag) + " takes 0 to 1000000000, not '" + value + "'");
  }
  return static_cast<std::uint32_t>(ns);
}

void SpinCpuNs(std::uint64_t ns) {
  if (ns == 0) return;
  const auto spin_wall = [](std::uint64_t wall_ns) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::nanoseconds(wall_ns);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  // So short a spin is rarely preempted, and a CPU-clock read would dwarf it.
  if (ns < kCpuClockFromNs) {
    spin_wall(ns);
    return;
  }
  // A thread's CPU time never runs ahead of the wall clock: spin the rest on
  // the steady clock, then read the CPU clock again; a preempted thread goes
  // round again for what it missed.
  const std::uint64_t start = ThreadCpuNs();
  for (std::uint64_t used = 0; used < ns; used = ThreadCpuNs() - start) {
    spin_wall(ns - used);
  }
}

Counts ReadCounts() {
  const auto& c = internal::g_counters;
  return {c.tasks_run.load(std::memory_order_relaxed),
          c.bytes_in.load(std::memory_order_relaxed),
          c.log_lines.load(std::memory_order_relaxed),
          c.pool_tasks_run.load(std::memory_order_relaxed)};
}

void PrintCounts(std::FILE* out) {
  const Counts c = ReadCounts();
  std::fprintf(out,
               "serverkit components: tasks run %llu, bytes in %llu, log lines "
               "%llu, pool tasks run %llu\n",
               static_cast<unsigned long long>(c.tasks_run),
               static_cast<unsigned long long>(c.bytes_in),
               static_cast<unsigned long long>(c.log_lines),
               static_cast<unsigned long long>(c.pool_tasks_run));
  std::fflush(out);
}

std::vector<char*> TakeFlags(
    int argc, char** argv, std::string_view program, Options* o,
    unsigned families,
    const std::function<bool(std::string_view)>& extra_flag) {
  // The environment first, so that a flag given as well overrides it.
  for (const Flag& f : kFlags) {
    if ((f.family & families) == 0) continue;
    const std::string env = EnvName(f.name);
    // An empty variable counts as unset, as in most shells' use.
    const char* v = std::getenv(env.c_str());
    if (v != nullptr && *v != '\0') f.set(program, env, v, o);
  }
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (extra_flag && extra_flag(a)) continue;
    bool taken = false;
    for (const Flag& f : kFlags) {
      if ((f.family & families) == 0) continue;
      const std::string flag = "--" + std::string(f.name);
      if (auto v = FlagValue(a, flag)) {
        f.set(program, flag, *v, o);
        taken = true;
      } else if (f.boolean && a == flag) {
        f.set(program, flag, "1", o);
        taken = true;
      }
      if (taken) break;
    }
    if (!taken) rest.push_back(argv[i]);
  }
  // A control that could never act would read as "no effect".
  if ((families & kPool) != 0 && o->pool == "none" && o->pool_slowdown_ns > 0) {
    Fail(program, "--pool_slowdown_ns slows submits to a pool: set --pool");
  }
  return rest;
}

std::vector<std::string> TaskQueueNames() {
  std::vector<std::string> names;
  [&]<typename... Fs>(TypeList<Fs...>) {
    (
        [&] {
          using Q = typename Fs::template Of<reactor::Functor>;
          if constexpr (Q::kTopology != Topology::kSpsc) {
            names.emplace_back(Q::kName);
          }
        }(),
        ...);
  }(AllQueues{});
  return names;
}

std::vector<std::string> BufferNames() {
  std::vector<std::string> names;
  [&]<typename... Bs>(TypeList<Bs...>) {
    (names.emplace_back(Bs::kName), ...);
  }(AllBuffers{});
  return names;
}

std::vector<std::string> LoggerNames() {
  std::vector<std::string> names = {"none"};
  [&]<typename... Ls>(TypeList<Ls...>) {
    (names.emplace_back(Ls::kName), ...);
  }(AllLoggers{});
  return names;
}

std::vector<std::string> PoolNames() {
  std::vector<std::string> names = {"none"};
  [&]<typename... Es>(TypeList<Es...>) {
    (names.emplace_back(Es::kName), ...);
  }(AllPools{});
  return names;
}

TaskQueueFactory MakeTaskQueueFactory(std::string_view program,
                                      const Options& o) {
  TaskQueueFactory factory;
  [&]<typename... Fs>(TypeList<Fs...>) {
    (
        [&] {
          using Q = typename Fs::template Of<reactor::Functor>;
          if constexpr (Q::kTopology != Topology::kSpsc) {
            if (!factory && o.task_queue == Q::kName) {
              factory = [] {
                return reactor::MakeTaskQueue<Fs::template Of>();
              };
            }
          }
        }(),
        ...);
  }(AllQueues{});
  if (!factory) {
    Fail(program, "unknown --task_queue '" + o.task_queue +
                      "'; multi-producer queues: " + Join(TaskQueueNames()));
  }
  // Wrapped even with the control off: every pop is counted.
  return
      [inner = std::move(factory),
       ns = o.task_queue_slowdown_ns]() -> std::unique_ptr<reactor::TaskQueue> {
        return std::make_unique<SlowedTaskQueue>(inner(), ns);
      };
}

reactor::EventLoopOptions LoopOptions(const TaskQueueFactory& make_queue,
                                      const Options& o) {
  reactor::EventLoopOptions lo;
  lo.task_queue = make_queue();
  lo.coalesce_wakeups = o.coalesce;
  lo.backend = o.backend;
  lo.uring_io = o.uring_io;
  return lo;
}

SlowedTaskQueue::SlowedTaskQueue(std::unique_ptr<reactor::TaskQueue> inner,
                                 std::uint32_t ns)
    : inner_(std::move(inner)),
      ns_(ns),
      name_(ns == 0 ? std::string(inner_->name())
                    : std::string(inner_->name()) + "+slowed-" +
                          std::to_string(ns) + "ns") {}

bool SlowedTaskQueue::try_pop(reactor::Functor& out) {
  if (!inner_->try_pop(out)) return false;
  internal::g_counters.tasks_run.fetch_add(1, std::memory_order_relaxed);
  SpinCpuNs(ns_);
  return true;
}

std::unique_ptr<Pool> FindPool(std::string_view name, std::size_t threads,
                               std::uint32_t slowdown_ns) {
  std::unique_ptr<Pool> pool;
  [&]<typename... Es>(TypeList<Es...>) {
    (
        [&] {
          if (!pool && name == Es::kName) {
            pool = std::make_unique<AnyPool<Es>>(threads, slowdown_ns);
          }
        }(),
        ...);
  }(AllPools{});
  return pool;
}

std::unique_ptr<Pool> MakePool(std::string_view program, const Options& o) {
  if (o.pool == "none") return nullptr;
  std::unique_ptr<Pool> pool =
      FindPool(o.pool, o.pool_threads, o.pool_slowdown_ns);
  if (!pool) {
    Fail(program,
         "unknown --pool '" + o.pool + "'; pools: " + Join(PoolNames()));
  }
  return pool;
}

}  // namespace serverkit::components
