#include "bench/common/harness.h"

#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/floor.h"

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

namespace {

bool g_pin_failed = false;

// What DescribeImpl and DescribeScenario recorded, by name.
std::map<std::string, JsonFields>& ImplTraits() {
  static std::map<std::string, JsonFields> m;
  return m;
}
std::map<std::string, JsonFields>& ScenarioSizes() {
  static std::map<std::string, JsonFields> m;
  return m;
}

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

void DescribeImpl(std::string_view impl, JsonFields traits) {
  ImplTraits()[std::string(impl)] = std::move(traits);
}

void DescribeScenario(std::string_view scenario, JsonFields sizes) {
  JsonFields& fields = ScenarioSizes()[std::string(scenario)];
  for (auto& [key, value] : sizes) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const auto& f) { return f.first == key; });
    if (it != fields.end()) {
      it->second = std::move(value);
    } else {
      fields.emplace_back(std::move(key), std::move(value));
    }
  }
}

void ThreadCounters(benchmark::State& state, int threads) {
  state.counters["threads"] = threads;
  state.counters["oversubscribed"] = threads > Cores() ? 1 : 0;
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

constexpr std::string_view kFloorScenario = "floor";
constexpr std::string_view kFloorImpl = "cache-line";

// Collects every run for the ranking tables, and passes it on to Google
// Benchmark's console reporter unchanged.
class RankingReporter : public benchmark::ConsoleReporter {
 public:
  RankingReporter(const std::string& family, const std::vector<RankBy>& rankings,
                  OutputOptions options)
      : ConsoleReporter(options), family_(family), rankings_(rankings) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) Collect(run);
  }

  int errors() const { return errors_; }

  // The floor row's cell (its ranking counter is p50_ns), if it ran.
  const Cell* FloorCell() const {
    auto it = cells_.find({std::string(kFloorScenario), "", std::string(kFloorImpl)});
    return it == cells_.end() || it->second.error ? nullptr : &it->second;
  }

  void PrintRankings(bool pins_threads) const {
    std::FILE* out = stdout;
    std::fprintf(out, "\n");
    for (const RankBy& rank : rankings_) {
      // group key (params) -> impl -> cell
      std::map<std::string, std::vector<std::pair<std::string, Cell>>> groups;
      for (const auto& [key, cell] : cells_) {
        const auto& [scenario, params, impl] = key;
        if (scenario != rank.scenario) continue;
        groups[params].push_back({impl, cell});
      }
      for (auto& [params, rows] : groups) {
        PrintGroup(out, family_, rank, params, rows);
      }
    }
    const char* pinning = !pins_threads   ? "none"
                          : g_pin_failed ? "refused by the system"
                                         : "yes";
    std::fprintf(out,
                 "cores: %d, pinning: %s. '*' marks oversubscribed runs (more "
                 "threads than cores).\n",
                 Cores(), pinning);
  }

 private:
  const RankBy* RankFor(const std::string& scenario) const {
    for (const RankBy& r : rankings_) {
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
                         const RankBy& rank, const std::string& params,
                         std::vector<std::pair<std::string, Cell>>& rows) {
    std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
      const double x = a.second.median, y = b.second.median;
      if (std::isnan(x) != std::isnan(y)) return std::isnan(y);
      return rank.higher_is_better ? x > y : x < y;
    });
    const double best = rows.empty() ? NAN : rows.front().second.median;
    const bool reference = rank.scenario == kFloorScenario;
    std::fprintf(out, "%s: %s/%s%s%s (by %s %s, %s is better%s)\n",
                 reference ? "Reference" : "Ranking", family.c_str(),
                 rank.scenario.c_str(), params.empty() ? "" : "/",
                 params.c_str(),
                 rank.counter.empty() ? "real_time" : rank.counter.c_str(),
                 rank.unit.c_str(), rank.higher_is_better ? "higher" : "lower",
                 reference ? "; two pinned threads bounce cache lines, "
                             "never a winner"
                           : "");
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

  std::string family_;
  std::vector<RankBy> rankings_;
  int errors_ = 0;
  std::map<std::tuple<std::string, std::string, std::string>, Cell> cells_;
};

// The value of the last `--flag=value` in args, if any.
std::optional<std::string> FlagValue(const std::vector<std::string>& args,
                                     std::string_view flag) {
  std::optional<std::string> value;
  const std::string prefix = std::string(flag) + "=";
  for (const auto& a : args) {
    if (a.rfind(prefix, 0) == 0) value = a.substr(prefix.size());
  }
  return value;
}

bool HasFlag(const std::vector<std::string>& args, std::string_view flag) {
  for (const auto& a : args) {
    if (a.rfind(std::string(flag), 0) == 0) return true;
  }
  return false;
}

// Google Benchmark's spelling of booleans; nullopt when it is none of them.
std::optional<bool> ParseBool(std::string_view v) {
  if (v.empty() || v == "true" || v == "yes" || v == "1" || v == "on" ||
      v == "t" || v == "y") {
    return true;
  }
  if (v == "false" || v == "no" || v == "0" || v == "off" || v == "f" ||
      v == "n") {
    return false;
  }
  return std::nullopt;
}

}  // namespace

std::optional<SweepPart> ParsePart(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view digits) -> std::optional<int> {
    if (digits.empty() || digits.size() > 2) return std::nullopt;
    int v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  const auto k = number(text.substr(0, slash));
  const auto n = number(text.substr(slash + 1));
  if (!k || !n || *k < 1 || *n < 1 || *k > *n || *n > 64) return std::nullopt;
  return SweepPart{*k, *n};
}

long PartRepetitions(long total, int parts) {
  if (parts < 1) parts = 1;
  return std::max(1L, (total + parts - 1) / parts);
}

namespace {

std::string ResultsDir() {
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    return std::string(ws) + "/results";
  }
  if (const char* tmp = std::getenv("TEST_TMPDIR")) {
    return std::string(tmp) + "/results";
  }
  return "results";
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "unknown";
}

void BM_Floor(benchmark::State& state, std::uint64_t round_trips) {
  std::vector<double> samples;
  std::optional<FloorSample> last;
  for (auto _ : state) {
    last = MeasureFloor(round_trips, &samples);
    if (!last) {
      state.SkipWithError("the floor needs two cores it may pin to");
      return;
    }
    double total_ns = 0;
    for (double s : samples) total_ns += s;
    state.SetIterationTime(total_ns * 1e-9);
  }
  state.counters["p50_ns"] = last->p50_ns;
  state.counters["p99_ns"] = last->p99_ns;
  state.counters["p999_ns"] = last->p999_ns;
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * round_trips));
  ThreadCounters(state, 2);
}

// The floor at one end of the sweep: the middle (by p50) of kEdgeParts short
// measurements 20 ms apart, so one preempted moment does not pass for a
// host that moved.
constexpr int kEdgeParts = 5;

std::optional<FloorSample> MeasureFloorEdge(std::uint64_t round_trips) {
  std::vector<FloorSample> parts;
  for (int i = 0; i < kEdgeParts; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (auto f = MeasureFloor(round_trips / kEdgeParts)) parts.push_back(*f);
  }
  if (parts.empty()) return std::nullopt;
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) {
    return a.p50_ns < b.p50_ns;
  });
  FloorSample mid = parts[parts.size() / 2];
  mid.round_trips = round_trips;
  return mid;
}

JsonValue FloorJson(const std::optional<FloorSample>& f) {
  if (!f) return JsonValue();
  return JsonValue::Object({{"p50_ns", f->p50_ns}, {"p99_ns", f->p99_ns}});
}

void PrintFloorSample(const char* when, const std::optional<FloorSample>& f) {
  if (!f) {
    std::printf("floor %s: not measured (it needs two cores it may pin to)\n",
                when);
    return;
  }
  std::printf("floor %s: round trip p50 %.0f ns, p99 %.0f ns (CPUs %d and %d, "
              "middle of %d runs of %llu round trips)\n",
              when, f->p50_ns, f->p99_ns, f->cpu_a, f->cpu_b, kEdgeParts,
              static_cast<unsigned long long>(f->round_trips / kEdgeParts));
}

// The ranking rules as bench/pick reads them (the floor's is the reference).
JsonValue RulesJson(const std::vector<RankBy>& rankings) {
  std::vector<JsonValue> rules;
  for (const RankBy& r : rankings) {
    const bool reference = r.scenario == kFloorScenario;
    rules.push_back(JsonValue::Object({
        {"scenario", r.scenario},
        {"metric", r.counter.empty() ? "real_time" : r.counter},
        {"direction", r.higher_is_better ? "higher" : "lower"},
        {"unit", r.unit},
        {"baseline", reference || r.baseline.empty() ? JsonValue()
                                                     : JsonValue(r.baseline)},
        {"show", JsonValue::Array({r.also_show.begin(), r.also_show.end()})},
        {"vs_floor", r.vs_floor},
        {"reference", reference},
    }));
  }
  return JsonValue::Array(rules);
}

// Adds `"key": value` to the context of the Google Benchmark JSON file at
// `path` (rewritten through a temporary file and a rename). Returns what went
// wrong, or an empty string.
std::string AddToContext(const std::string& path, std::string_view key,
                         const JsonValue& value) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::strerror(errno);
  std::stringstream text;
  text << in.rdbuf();
  const auto patched = InsertIntoContext(text.str(), key, value);
  if (!patched) return "no \"context\" object";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << *patched;
    if (!out.flush()) return std::strerror(errno);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return std::strerror(errno);
  return "";
}

}  // namespace

int RunSweep(const SweepSpec& spec, int argc, char** argv) {
  Profile profile = Profile::kDefault;
  SweepPart part;
  std::vector<std::string> user_args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--part=", 0) == 0) {
      const auto p = ParsePart(std::string_view(arg).substr(7));
      if (!p) {
        std::fprintf(stderr,
                     "%s: bad %s (want --part=K/N, 1 <= K <= N <= 64)\n",
                     argv[0], arg.c_str());
        return 2;
      }
      part = *p;
      continue;
    }
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

  // Colour only on a terminal, unless the user says otherwise. Google
  // Benchmark applies --benchmark_color only to the reporter it makes
  // itself; this sweep brings its own, so it reads the flag here.
  bool color = ::isatty(STDOUT_FILENO) == 1;
  if (const char* term = std::getenv("TERM");
      term == nullptr || std::string_view(term) == "dumb") {
    color = false;
  }
  if (auto v = FlagValue(user_args, "--benchmark_color"); v && *v != "auto") {
    const auto b = ParseBool(*v);
    if (!b) {
      std::fprintf(stderr, "%s: --benchmark_color=%s: use true, false or auto\n",
                   argv[0], v->c_str());
      return 2;
    }
    color = *b;
  }
  // Counters inline by default: with interleaved repetitions, rows of
  // different scenarios alternate, and a tabular console would print a new
  // header at every change of counters.
  bool tabular = false;
  if (auto v = FlagValue(user_args, "--benchmark_counters_tabular")) {
    tabular = ParseBool(*v).value_or(false);
  }

  // Defaults first; the user's flags come later and win.
  std::vector<std::string> args = {argv[0]};
  long repetitions = PartRepetitions(
      profile == Profile::kSmoke ? 1 : kDefaultRepetitions, part.of);
  if (auto v = FlagValue(user_args, "--benchmark_repetitions")) {
    repetitions = std::strtol(v->c_str(), nullptr, 10);
  } else {
    args.push_back("--benchmark_repetitions=" + std::to_string(repetitions));
  }
  bool interleaved = true;
  if (auto v = FlagValue(user_args, "--benchmark_enable_random_interleaving")) {
    interleaved = ParseBool(*v).value_or(true);
  } else {
    args.push_back("--benchmark_enable_random_interleaving=true");
  }
  if (!HasFlag(user_args, "--benchmark_display_aggregates_only") &&
      !HasFlag(user_args, "--benchmark_report_aggregates_only")) {
    args.push_back("--benchmark_display_aggregates_only=true");
  }
  std::string out_path;
  bool out_is_json = true;
  if (auto v = FlagValue(user_args, "--benchmark_out")) {
    out_path = *v;
    out_is_json = FlagValue(user_args, "--benchmark_out_format").value_or("json") == "json";
  } else {
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
  if (part.of > 1) {
    std::printf("part %d of %d: %ld repetition(s) in this process\n",
                part.index, part.of, repetitions);
  }
  benchmark::AddCustomContext("cores", std::to_string(Cores()));
  benchmark::AddCustomContext(
      "pinning", spec.pins_threads
                     ? "workers pinned round-robin to the allowed cores"
                     : "none (the components under test own their threads)");
  benchmark::AddCustomContext(
      "note", "Debian's libbenchmark is built without NDEBUG, hence its "
              "'Library was built as DEBUG' line; our code is built with -c opt");

  std::vector<RankBy> rankings = spec.rankings;
  for (RankBy& r : rankings) {
    if (r.baseline.empty()) r.baseline = spec.baseline;
  }
  rankings.push_back({std::string(kFloorScenario), "p50_ns", false, "ns",
                      {"p99_ns", "p999_ns"}});

  // The floor: before, interleaved with the family's rows, after.
  const std::uint64_t edge_trips =
      ByProfile<std::uint64_t>(profile, 2'000, 50'000, 100'000);
  const std::uint64_t row_trips =
      ByProfile<std::uint64_t>(profile, 2'000, 100'000, 1'000'000);
  const auto floor_cpus = FloorCpus();
  const std::optional<FloorSample> before = MeasureFloorEdge(edge_trips);
  PrintFloorSample("before", before);
  if (floor_cpus) {
    benchmark::RegisterBenchmark(
        BenchName(spec.family, kFloorScenario, kFloorImpl).c_str(),
        [=](benchmark::State& s) { BM_Floor(s, row_trips); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    DescribeScenario(kFloorScenario, {{"round_trips", row_trips}});
  }
  spec.register_benchmarks(profile);

  RankingReporter reporter(
      spec.family, rankings,
      static_cast<benchmark::ConsoleReporter::OutputOptions>(
          (color ? benchmark::ConsoleReporter::OO_Color : 0) |
          (tabular ? benchmark::ConsoleReporter::OO_Tabular : 0)));
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "%s: no benchmark matched the filter\n", argv[0]);
    return 1;
  }
  const std::optional<FloorSample> after = MeasureFloorEdge(edge_trips);

  const Cell* floor_row = reporter.FloorCell();
  reporter.PrintRankings(spec.pins_threads);

  PrintFloorSample("before", before);
  PrintFloorSample("after", after);
  std::optional<double> row_cv;
  if (floor_row != nullptr) {
    char cv[16] = "n/a";
    if (!std::isnan(floor_row->cv)) {
      std::snprintf(cv, sizeof(cv), "%.1f%%", floor_row->cv * 100);
      row_cv = floor_row->cv;
    }
    std::printf("floor interleaved: median p50 %.0f ns, CV %s over %ld "
                "repetition(s)\n",
                floor_row->median, cv, repetitions);
  }
  const std::vector<std::string> drift = FloorDrift(
      before ? std::optional<double>(before->p50_ns) : std::nullopt,
      after ? std::optional<double>(after->p50_ns) : std::nullopt, row_cv);
  std::fflush(stdout);  // the warnings on stderr come after the tables
  for (const std::string& reason : drift) {
    std::printf("WARNING: host drifted: %s\n", reason.c_str());
    std::fprintf(stderr, "%s: WARNING: host drifted: %s\n", argv[0],
                 reason.c_str());
  }
  if (!drift.empty()) {
    std::printf("WARNING: bench:pick will name no winner from this file "
                "(\"host drifted: rerun\"); run the sweep again\n");
  }

  if (!out_path.empty() && out_is_json) {
    std::vector<JsonValue> reasons(drift.begin(), drift.end());
    JsonFields impls, scenarios;
    for (const auto& [name, traits] : ImplTraits()) {
      impls.emplace_back(name, JsonValue::Object(traits));
    }
    for (const auto& [name, sizes] : ScenarioSizes()) {
      scenarios.emplace_back(name, JsonValue::Object(sizes));
    }
    const JsonValue doc = JsonValue::Object({
        {"schema", 1},
        {"family", spec.family},
        {"profile", profile_name},
        {"repetitions", repetitions},
        {"interleaved", interleaved},
        {"part", JsonValue::Object({{"index", part.index}, {"of", part.of}})},
        {"machine",
         JsonValue::Object({{"cpu_model", CpuModel()}, {"cores", Cores()}})},
        {"floor",
         JsonValue::Object({
             {"core_pair",
              floor_cpus ? JsonValue::Array({floor_cpus->first, floor_cpus->second})
                         : JsonValue()},
             {"round_trips", edge_trips},
             {"edge_runs", kEdgeParts},
             {"threshold", kDriftThreshold},
             {"before", FloorJson(before)},
             {"after", FloorJson(after)},
             {"drifted", !drift.empty()},
             {"drift_reasons", JsonValue::Array(reasons)},
         })},
        {"rankings", RulesJson(rankings)},
        {"impls", JsonValue::Object(impls)},
        {"scenarios", JsonValue::Object(scenarios)},
    });
    if (const std::string error = AddToContext(out_path, "serverkit", doc);
        !error.empty()) {
      std::fprintf(stderr,
                   "%s: could not add the ranking rules and the floor to %s "
                   "(%s)\n",
                   argv[0], out_path.c_str(), error.c_str());
      return 1;
    }
  }
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
