// The lost wake-up stress as a command (wakeup_stress.h says what it does):
//
//   bazel run -c opt //threadpool:wakeup_stress -- --seconds=60
//       --pools=queue-bounded-mpmc,work-stealing --signal=std-atomic-wait
//       --submitters=1,4   (one command line)
//
// One line per (pool, submitters, signal): round trips, hangs (and how many
// of them had their task run), stalls, rescues, the worst round trip.
// Exit status 1 when any hang or rescue was seen.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/parse_number.h"
#include "base/type_list.h"
#include "threadpool/all_pools.h"
#include "threadpool/stress/wakeup_stress.h"

namespace serverkit::threadpool_stress {
namespace {

struct Options {
  double seconds = 10;
  std::vector<std::string> pools = {"queue-bounded-mpmc"};
  std::vector<std::string> signals = {"futex-wait"};
  std::vector<int> submitters = {1, 4};
  bool neighbours = true;
  bool tbb_idle = true;
};

std::vector<std::string> Split(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const auto comma = s.find(',');
    out.emplace_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

[[noreturn]] void Usage(const char* why) {
  std::fprintf(
      stderr,
      "wakeup_stress: %s\n"
      "flags: --seconds=S (per line, default 10)\n"
      "       --pools=NAME,... (kNames of threadpool/all_pools.h's "
      "AllPools, or 'all'; default queue-bounded-mpmc)\n"
      "       --signal=futex-wait|std-atomic-wait|std-atomic-wait-seq-cst"
      "[,...]\n"
      "       --submitters=N,... (default 1,4)\n"
      "       --no-neighbours  --no-tbb\n",
      why);
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string_view> {
      if (a.substr(0, flag.size()) == flag) return a.substr(flag.size());
      return std::nullopt;
    };
    if (auto v = value("--seconds=")) {
      const auto x = ParseNumber<double>(*v);
      if (!x || *x <= 0 || *x > 86400) Usage("--seconds wants 0 < S <= 86400");
      o.seconds = *x;
    } else if (auto v = value("--pools=")) {
      o.pools = Split(*v);
    } else if (auto v = value("--signal=")) {
      o.signals = Split(*v);
    } else if (auto v = value("--submitters=")) {
      o.submitters.clear();
      for (const std::string& n : Split(*v)) {
        const auto x = ParseNumber<int>(n);
        if (!x || *x < 1 || *x > 64) Usage("--submitters wants 1..64 each");
        o.submitters.push_back(*x);
      }
    } else if (a == "--no-neighbours") {
      o.neighbours = false;
    } else if (a == "--no-tbb") {
      o.tbb_idle = false;
    } else {
      Usage(("unknown flag " + std::string(a)).c_str());
    }
  }
  for (const std::string& s : o.signals) {
    if (s != FutexSignal::kName && s != StdAtomicSignal::kName &&
        s != StdAtomicSeqCstSignal::kName) {
      Usage(("unknown --signal " + s).c_str());
    }
  }
  return o;
}

bool Wanted(const Options& o, std::string_view name) {
  for (const std::string& p : o.pools) {
    if (p == "all" || p == name) return true;
  }
  return false;
}

template <typename P, typename S>
bool RunOne(const Options& o, int submitters) {
  StressConfig c;
  c.seconds = o.seconds;
  c.submitters = submitters;
  c.neighbours = o.neighbours;
  c.tbb_idle = o.tbb_idle;
  const StressResult r = RunWakeupStress<P, S>(c);
  std::printf(
      "pool=%s signal=%s submitters=%d seconds=%.1f round_trips=%llu "
      "hangs=%llu hangs_task_ran=%llu stalls_over_50ms=%llu rescues=%llu "
      "max_round_trip_ms=%.3f\n",
      std::string(P::kName).c_str(), std::string(S::kName).c_str(), submitters,
      r.seconds, static_cast<unsigned long long>(r.round_trips),
      static_cast<unsigned long long>(r.hangs),
      static_cast<unsigned long long>(r.hangs_task_ran),
      static_cast<unsigned long long>(r.stalls),
      static_cast<unsigned long long>(r.rescues), r.max_round_trip_ms);
  std::fflush(stdout);
  return r.hangs == 0 && r.rescues == 0;
}

template <typename... Ps>
bool RunAll(const Options& o, TypeList<Ps...>, int* matched) {
  bool clean = true;
  (
      [&] {
        if (!Wanted(o, Ps::kName)) return;
        ++*matched;
        for (int sub : o.submitters) {
          for (const std::string& s : o.signals) {
            if (s == FutexSignal::kName) {
              clean &= RunOne<Ps, FutexSignal>(o, sub);
            } else if (s == StdAtomicSignal::kName) {
              clean &= RunOne<Ps, StdAtomicSignal>(o, sub);
            } else {
              clean &= RunOne<Ps, StdAtomicSeqCstSignal>(o, sub);
            }
          }
        }
      }(),
      ...);
  return clean;
}

}  // namespace
}  // namespace serverkit::threadpool_stress

int main(int argc, char** argv) {
  using namespace serverkit;
  const auto o = threadpool_stress::Parse(argc, argv);
  int matched = 0;
  const bool clean = threadpool_stress::RunAll(o, AllPools{}, &matched);
  if (matched == 0) threadpool_stress::Usage("--pools matched no pool");
  return clean ? 0 : 1;
}
