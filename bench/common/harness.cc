#include "bench/common/harness.h"

#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace serverkit::bench {

int Cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

namespace {

std::vector<int> AllowedCpus() {
  static const std::vector<int> cpus = [] {
    std::vector<int> out;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
      for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &set)) out.push_back(c);
      }
    }
    return out;
  }();
  return cpus;
}

bool g_pin_failed = false;

}  // namespace

bool PinToCore(int index) {
  const std::vector<int> cpus = AllowedCpus();
  if (cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus[static_cast<std::size_t>(index) % cpus.size()], &set);
  const bool ok = pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
  if (!ok) g_pin_failed = true;
  return ok;
}

void UnpinThread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : AllowedCpus()) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

std::string BenchName(
    std::string_view family, std::string_view scenario, std::string_view impl,
    std::initializer_list<std::pair<std::string_view, long>> params) {
  std::string name;
  name.append(family).append("/").append(scenario).append("/").append(impl);
  for (const auto& [key, value] : params) {
    name.append("/").append(key).append(":").append(std::to_string(value));
  }
  return name;
}

void ThreadCounters(benchmark::State& state, int threads) {
  state.counters["threads"] = threads;
  state.counters["oversubscribed"] = threads > Cores() ? 1 : 0;
}

double Percentile(std::vector<double>& samples, double q, bool sorted) {
  if (samples.empty()) return 0;
  if (!sorted) std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(q * static_cast<double>(samples.size()));
  std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  if (index >= samples.size()) index = samples.size() - 1;
  return samples[index];
}

namespace {

// Parts of a run name: the family/scenario/impl/params of our contract, with
// Google Benchmark's own suffixes (/iterations:N, /repeats:N, /manual_time,
// /real_time, /threads:N, _median ...) set aside.
struct ParsedName {
  std::string scenario;
  std::string impl;
  std::string params;  // "producers:2/consumers:2"
};

ParsedName Parse(const std::string& run_name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= run_name.size()) {
    const std::size_t slash = run_name.find('/', start);
    parts.push_back(run_name.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  ParsedName p;
  if (parts.size() >= 2) p.scenario = parts[1];
  if (parts.size() >= 3) p.impl = parts[2];
  // Google Benchmark appends its own segments after ours; `threads:` is one
  // of them only once another of them has appeared (a family may use
  // `threads:` as its own parameter).
  bool in_suffix = false;
  for (std::size_t i = 3; i < parts.size(); ++i) {
    const std::string& s = parts[i];
    const bool gb_suffix =
        s == "manual_time" || s == "real_time" || s == "process_time" ||
        s.rfind("iterations:", 0) == 0 || s.rfind("repeats:", 0) == 0 ||
        s.rfind("min_time:", 0) == 0 || s.rfind("min_warmup_time:", 0) == 0 ||
        (in_suffix && s.rfind("threads:", 0) == 0);
    if (gb_suffix) {
      in_suffix = true;
      continue;
    }
    if (!p.params.empty()) p.params += "/";
    p.params += s;
  }
  return p;
}

struct Cell {
  double median = NAN;
  bool from_aggregate = false;  // median is Google Benchmark's median aggregate
  double cv = NAN;
  bool oversubscribed = false;
  std::map<std::string, double> extra;  // also_show counters (median)
  bool error = false;
  std::string error_message;
};

// Collects every run for the ranking tables, and passes it on to Google
// Benchmark's console reporter unchanged.
class RankingReporter : public benchmark::ConsoleReporter {
 public:
  explicit RankingReporter(const SweepSpec& spec) : spec_(spec) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) Collect(run);
  }

  int errors() const { return errors_; }

  void PrintRankings() const {
    std::FILE* out = stdout;
    std::fprintf(out, "\n");
    for (const RankBy& rank : spec_.rankings) {
      // group key (params) -> impl -> cell
      std::map<std::string, std::vector<std::pair<std::string, Cell>>> groups;
      for (const auto& [key, cell] : cells_) {
        const auto& [scenario, params, impl] = key;
        if (scenario != rank.scenario) continue;
        groups[params].push_back({impl, cell});
      }
      for (auto& [params, rows] : groups) {
        PrintGroup(out, spec_.family, rank, params, rows);
      }
    }
    const char* pinning = !spec_.pins_threads ? "none"
                          : g_pin_failed    ? "refused by the system"
                                            : "yes";
    std::fprintf(out,
                 "cores: %d, pinning: %s. '*' marks oversubscribed runs (more "
                 "threads than cores).\n",
                 Cores(), pinning);
  }

 private:
  const RankBy* RankFor(const std::string& scenario) const {
    for (const RankBy& r : spec_.rankings) {
      if (r.scenario == scenario) return &r;
    }
    return nullptr;
  }

  void Collect(const Run& run) {
    const ParsedName name = Parse(run.run_name.str());
    const RankBy* rank = RankFor(name.scenario);
    if (rank == nullptr) return;
    Cell& cell = cells_[{name.scenario, name.params, name.impl}];
    if (run.error_occurred) {
      ++errors_;
      cell.error = true;
      cell.error_message = run.error_message;
      return;
    }
    auto value_of = [&](const std::string& counter) -> double {
      if (counter.empty() || counter == "real_time") {
        return run.GetAdjustedRealTime();
      }
      auto it = run.counters.find(counter);
      return it == run.counters.end() ? NAN : it->second.value;
    };
    if (auto it = run.counters.find("oversubscribed");
        it != run.counters.end() && it->second.value > 0) {
      cell.oversubscribed = true;
    }
    const bool is_aggregate = run.run_type == Run::RT_Aggregate;
    if (is_aggregate && run.aggregate_name == "median") {
      cell.from_aggregate = true;
      cell.median = value_of(rank->counter);
      for (const auto& c : rank->also_show) cell.extra[c] = value_of(c);
    } else if (is_aggregate && run.aggregate_name == "cv") {
      cell.cv = value_of(rank->counter);
    } else if (!is_aggregate && !cell.from_aggregate) {
      // A repetition stands in until the median aggregate (which Google
      // Benchmark reports after the repetitions) arrives; with a single
      // repetition there is none, and this value is the result.
      cell.median = value_of(rank->counter);
      for (const auto& c : rank->also_show) cell.extra[c] = value_of(c);
    }
  }

  static void PrintGroup(std::FILE* out, const std::string& family,
                         const RankBy& rank,
                         const std::string& params,
                         std::vector<std::pair<std::string, Cell>>& rows) {
    std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
      const double x = a.second.median, y = b.second.median;
      if (std::isnan(x) != std::isnan(y)) return std::isnan(y);
      return rank.higher_is_better ? x > y : x < y;
    });
    const double best = rows.empty() ? NAN : rows.front().second.median;
    std::fprintf(out, "Ranking: %s/%s%s%s (by %s %s, %s is better)\n",
                 family.c_str(), rank.scenario.c_str(), params.empty() ? "" : "/",
                 params.c_str(), rank.counter.empty() ? "real_time" : rank.counter.c_str(),
                 rank.unit.c_str(), rank.higher_is_better ? "higher" : "lower");
    std::fprintf(out, "  %-4s %-24s %14s %9s %7s", "rank", "implementation",
                 "median", "vs best", "CV");
    for (const auto& c : rank.also_show) std::fprintf(out, " %12s", c.c_str());
    std::fprintf(out, "\n");
    int place = 0;
    for (const auto& [impl, cell] : rows) {
      ++place;
      if (cell.error || std::isnan(cell.median)) {
        std::fprintf(out, "  %-4d %-24s %s\n", place, impl.c_str(),
                     cell.error ? ("ERROR: " + cell.error_message).c_str()
                                : "no result");
        continue;
      }
      const double ratio = rank.higher_is_better ? cell.median / best
                                                 : best / cell.median;
      char cv[16];
      if (std::isnan(cell.cv)) {
        std::snprintf(cv, sizeof(cv), "n/a");
      } else {
        std::snprintf(cv, sizeof(cv), "%.1f%%", cell.cv * 100);
      }
      std::fprintf(out, "  %-4d %-24s %14.4g %8.2fx %7s", place,
                   (impl + (cell.oversubscribed ? " *" : "")).c_str(),
                   cell.median, ratio, cv);
      for (const auto& c : rank.also_show) {
        auto it = cell.extra.find(c);
        std::fprintf(out, " %12.4g", it == cell.extra.end() ? NAN : it->second);
      }
      std::fprintf(out, "\n");
    }
    std::fprintf(out, "\n");
  }

  const SweepSpec& spec_;
  int errors_ = 0;
  std::map<std::tuple<std::string, std::string, std::string>, Cell> cells_;
};

bool HasFlag(const std::vector<std::string>& args, std::string_view flag) {
  for (const auto& a : args) {
    if (a.rfind(std::string(flag), 0) == 0) return true;
  }
  return false;
}

std::string ResultsDir() {
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    return std::string(ws) + "/results";
  }
  if (const char* tmp = std::getenv("TEST_TMPDIR")) {
    return std::string(tmp) + "/results";
  }
  return "results";
}

}  // namespace

int RunSweep(const SweepSpec& spec, int argc, char** argv) {
  Profile profile = Profile::kDefault;
  std::vector<std::string> user_args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--profile=", 0) == 0) {
      const std::string value = arg.substr(10);
      if (value == "default") {
        profile = Profile::kDefault;
      } else if (value == "full") {
        profile = Profile::kFull;
      } else if (value == "smoke") {
        profile = Profile::kSmoke;
      } else {
        std::fprintf(stderr,
                     "%s: unknown --profile=%s (use default, full or smoke)\n",
                     argv[0], value.c_str());
        return 2;
      }
      continue;
    }
    user_args.push_back(arg);
  }

  // Defaults first; the user's flags come later and win.
  std::vector<std::string> args = {argv[0]};
  if (!HasFlag(user_args, "--benchmark_repetitions")) {
    args.push_back(std::string("--benchmark_repetitions=") +
                   (profile == Profile::kSmoke ? "1" : "5"));
  }
  if (!HasFlag(user_args, "--benchmark_display_aggregates_only") &&
      !HasFlag(user_args, "--benchmark_report_aggregates_only")) {
    args.push_back("--benchmark_display_aggregates_only=true");
  }
  std::string out_path;
  if (!HasFlag(user_args, "--benchmark_out=")) {
    const std::string dir = ResultsDir();
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      std::fprintf(stderr, "%s: cannot create %s: %s\n", argv[0], dir.c_str(),
                   std::strerror(errno));
      return 1;
    }
    out_path = dir + "/" + spec.family + ".json";
    args.push_back("--benchmark_out=" + out_path);
    args.push_back("--benchmark_out_format=json");
  }
  args.insert(args.end(), user_args.begin(), user_args.end());

  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  int cargc = static_cast<int>(cargs.size());
  benchmark::Initialize(&cargc, cargs.data());
  if (benchmark::ReportUnrecognizedArguments(cargc, cargs.data())) return 2;

  const char* profile_name = profile == Profile::kFull    ? "full"
                             : profile == Profile::kSmoke ? "smoke"
                                                          : "default";
  benchmark::AddCustomContext("profile", profile_name);
  benchmark::AddCustomContext("cores", std::to_string(Cores()));
  benchmark::AddCustomContext(
      "pinning", spec.pins_threads
                     ? "workers pinned round-robin to the allowed cores"
                     : "none (the components under test own their threads)");
  benchmark::AddCustomContext(
      "note", "Debian's libbenchmark is built without NDEBUG, hence its "
              "'Library was built as DEBUG' line; our code is built with -c opt");

  spec.register_benchmarks(profile);

  RankingReporter reporter(spec);
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "%s: no benchmark matched the filter\n", argv[0]);
    return 1;
  }
  reporter.PrintRankings();
  if (!out_path.empty()) {
    std::printf("Google Benchmark JSON: %s\n", out_path.c_str());
  }
  if (reporter.errors() > 0) {
    std::fprintf(stderr, "%s: %d benchmark run(s) failed (see ERROR above)\n",
                 argv[0], reporter.errors());
    return 1;
  }
  return 0;
}

}  // namespace serverkit::bench
