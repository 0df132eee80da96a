// -----------------------------------------------------------------------------
// servers/common/server_policy.cc
// -----------------------------------------------------------------------------
//
// The policy flags, the slowed-on-purpose controls and the task-queue
// factory (server_policy.h).

#include "servers/common/server_policy.h"

#include <time.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace serverkit::servers {

const char* const kPolicyHelp =
    "  --buffer=NAME       connection buffer (default linear)\n"
    "  --task_queue=NAME   every loop's cross-thread task queue (default "
    "swap-vector)\n"
    "  --coalesce=0|1      share eventfd wake-ups (default 1)\n"
    "  --backend=epoll|uring  every loop's poller (default epoll)\n"
    "  --logger=NAME       a logger of logger/all_loggers.h (default none)\n"
    "  --log_file=PATH     where the logger writes (default /dev/null)\n"
    "  --log_flush_every_line  flush every line (slow on purpose)\n"
    "  --task_queue_slowdown_ns=N  every task popped costs N ns more CPU (slow "
    "on purpose)\n"
    "  --log_slowdown_ns=N  every log line costs N ns more CPU (slow on "
    "purpose)\n";

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

namespace {

std::uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace

void SpinCpuNs(std::uint64_t ns) {
  if (ns == 0) return;
  const auto spin_wall = [](std::uint64_t wall_ns) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::nanoseconds(wall_ns);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  // Reading the thread's CPU clock is a system call (about 0.6 us in a VM,
  // more in some): under kCpuClockFromNs that would dwarf the cost itself,
  // and so short a spin is rarely preempted, so the steady clock alone.
  if (ns < kCpuClockFromNs) {
    spin_wall(ns);
    return;
  }
  // Longer: spin on the steady clock for what is left, then read the CPU
  // clock again; a thread's CPU time never runs ahead of the wall clock, so
  // this overshoots by at most one read, and a thread preempted mid-spin
  // goes round again for what it missed.
  const std::uint64_t start = ThreadCpuNs();
  for (std::uint64_t used = 0; used < ns; used = ThreadCpuNs() - start)
    spin_wall(ns - used);
}

std::uint32_t ParseSlowdownNs(std::string_view program, std::string_view flag,
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

std::optional<std::string> FlagValue(std::string_view arg,
                                     std::string_view flag) {
  if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag &&
      arg[flag.size()] == '=') {
    return std::string(arg.substr(flag.size() + 1));
  }
  return std::nullopt;
}

std::vector<char*> TakePolicyFlags(
    int argc, char** argv, std::string_view program, PolicyOptions* po,
    const std::function<bool(std::string_view)>& extra_flag) {
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (extra_flag && extra_flag(a)) continue;
    if (auto v = FlagValue(a, "--buffer")) {
      po->buffer = *v;
    } else if (auto v = FlagValue(a, "--task_queue")) {
      po->task_queue = *v;
    } else if (auto v = FlagValue(a, "--coalesce")) {
      if (*v != "0" && *v != "1")
        Fail(program, "--coalesce takes 0 or 1, not '" + *v + "'");
      po->coalesce = *v == "1";
    } else if (auto v = FlagValue(a, "--backend")) {
      const auto b = reactor::ParsePollerBackend(*v);
      if (!b) Fail(program, "--backend takes epoll or uring, not '" + *v + "'");
      po->backend = *b;
    } else if (auto v = FlagValue(a, "--logger")) {
      po->logger = *v;
    } else if (auto v = FlagValue(a, "--log_file")) {
      po->log_file = *v;
    } else if (a == "--log_flush_every_line") {
      po->log_flush_every_line = true;
    } else if (auto v = FlagValue(a, "--task_queue_slowdown_ns")) {
      po->task_queue_slowdown_ns =
          ParseSlowdownNs(program, "--task_queue_slowdown_ns", *v);
    } else if (auto v = FlagValue(a, "--log_slowdown_ns")) {
      po->log_slowdown_ns = ParseSlowdownNs(program, "--log_slowdown_ns", *v);
    } else {
      rest.push_back(argv[i]);
    }
  }
  return rest;
}

TaskQueueFactory MakeTaskQueueFactory(std::string_view program,
                                      const PolicyOptions& po) {
  TaskQueueFactory factory;
  std::vector<std::string> names;
  [&]<typename... Fs>(TypeList<Fs...>) {
    (
        [&] {
          using Q = typename Fs::template Of<reactor::Functor>;
          if constexpr (Q::kTopology != Topology::kSpsc) {
            names.emplace_back(Q::kName);
            if (!factory && po.task_queue == Q::kName) {
              factory = [] {
                return reactor::MakeTaskQueue<Fs::template Of>();
              };
            }
          }
        }(),
        ...);
  }(AllQueues{});
  if (!factory) {
    Fail(program, "unknown --task_queue '" + po.task_queue +
                      "'; multi-producer queues: " + Join(names));
  }
  if (po.task_queue_slowdown_ns > 0) {
    return [inner = std::move(factory), ns = po.task_queue_slowdown_ns]()
               -> std::unique_ptr<reactor::TaskQueue> {
      return std::make_unique<SlowedTaskQueue>(inner(), ns);
    };
  }
  return factory;
}

SlowedTaskQueue::SlowedTaskQueue(std::unique_ptr<reactor::TaskQueue> inner,
                                 std::uint32_t ns)
    : inner_(std::move(inner)),
      ns_(ns),
      name_(std::string(inner_->name()) + "+slowed-" + std::to_string(ns) +
            "ns") {}

bool SlowedTaskQueue::try_pop(reactor::Functor& out) {
  if (!inner_->try_pop(out)) return false;
  SpinCpuNs(ns_);
  return true;
}

reactor::EventLoopOptions LoopOptions(const TaskQueueFactory& make_queue,
                                      const PolicyOptions& po) {
  reactor::EventLoopOptions o;
  o.task_queue = make_queue();
  o.coalesce_wakeups = po.coalesce;
  o.backend = po.backend;
  return o;
}

}  // namespace serverkit::servers
