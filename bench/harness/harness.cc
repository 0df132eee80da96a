#include "bench/harness/harness.h"

#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
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
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness/floor.h"
#include "bench/harness/rounds.h"

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

// RegisterSweepBenchmark's names, in registration order, once each.
std::vector<std::string>& SweepNames() {
  static std::vector<std::string> names;
  return names;
}

// The implementations whose traits say "reference": never a leader.
std::set<std::string> ReferenceImpls() {
  std::set<std::string> out;
  for (const auto& [impl, traits] : ImplTraits()) {
    for (const auto& [key, value] : traits) {
      if (key == "reference" && value.text() == "true") out.insert(impl);
    }
  }
  return out;
}

}  // namespace

namespace internal {
void NoteSweepBenchmark(const std::string& name) {
  auto& names = SweepNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    names.push_back(name);
  }
}
}  // namespace internal

bool PinToCore(int index) {
  const std::vector<int> cpus = AllowedCpus();
  if (cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus[static_cast<std::size_t>(index) % cpus.size()], &set);
  const bool ok =
      pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
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

double ProcessCpuNanos() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
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
  std::vector<double> values;  // every run's value, without aggregates
  RoundValues by_round;        // round -> value, in paired rounds
  bool oversubscribed = false;
  std::map<std::string, double> extra;  // also_show counters (median)
  bool error = false;
  std::string error_message;
};

constexpr std::string_view kFloorScenario = "floor";
constexpr std::string_view kFloorImpl = "cache-line";
// The counters a run of paired rounds is stamped with.
constexpr const char* kRoundCounter = "round";
constexpr const char* kRoundFloorCounter = "round_floor_ns";

using CellKey = std::tuple<std::string, std::string, std::string>;

// Sample standard deviation over the mean, as Google Benchmark's cv; NaN
// with fewer than two values.
double CvOf(const std::vector<double>& all) {
  std::vector<double> xs;
  for (double x : all) {
    if (!std::isnan(x)) xs.push_back(x);
  }
  if (xs.size() < 2) return NAN;
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= static_cast<double>(xs.size());
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return mean != 0 ? std::sqrt(ss / static_cast<double>(xs.size() - 1)) / mean
                   : NAN;
}

// Collects every run for the ranking tables, and passes it on to Google
// Benchmark's console reporter unchanged.
class RankingReporter : public benchmark::ConsoleReporter {
 public:
  RankingReporter(const std::string& family,
                  const std::vector<RankBy>& rankings, OutputOptions options)
      : ConsoleReporter(options), family_(family), rankings_(rankings) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) Collect(run);
  }

  int errors() const { return errors_; }

  // Every implementation's value by round in one group (paired rounds).
  std::map<std::string, RoundValues> GroupRounds(
      const std::string& scenario, const std::string& params) const {
    std::map<std::string, RoundValues> out;
    for (const auto& [key, cell] : cells_) {
      const auto& [s, p, impl] = key;
      if (s == scenario && p == params && !cell.error)
        out[impl] = cell.by_round;
    }
    return out;
  }

  const RankBy* RankFor(const std::string& scenario) const {
    for (const RankBy& r : rankings_) {
      if (r.scenario == scenario) return &r;
    }
    return nullptr;
  }

  // The floor row's cell (its ranking counter is p50_ns), if it ran.
  const Cell* FloorCell() const {
    auto it =
        cells_.find({std::string(kFloorScenario), "", std::string(kFloorImpl)});
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
    const char* pinning = !pins_threads  ? "none"
                          : g_pin_failed ? "refused by the system"
                                         : "yes";
    std::fprintf(out,
                 "cores: %d, pinning: %s. '*' marks oversubscribed runs (more "
                 "threads than cores).\n",
                 Cores(), pinning);
  }

 private:
  void Collect(const Run& run) {
    const ParsedName name = Parse(run.run_name.str());
    const RankBy* rank = RankFor(name.scenario);
    if (rank == nullptr) return;
    const CellKey key{name.scenario, name.params, name.impl};
    Cell& cell = cells_[key];
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
    } else if (!is_aggregate) {
      const double v = value_of(rank->counter);
      cell.values.push_back(v);
      if (auto it = run.counters.find(kRoundCounter);
          it != run.counters.end()) {
        cell.by_round[static_cast<int>(it->second.value)] = v;
      }
      if (!cell.from_aggregate) {
        // Without aggregates (one repetition, or paired rounds) the median
        // of the runs so far is the result.
        cell.median = Median(cell.values);
        cell.cv = CvOf(cell.values);
        for (const auto& c : rank->also_show)
          extra_values_[key][c].push_back(value_of(c));
        for (const auto& [c, xs] : extra_values_[key])
          cell.extra[c] = Median(xs);
      }
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
      const double ratio =
          rank.higher_is_better ? cell.median / best : best / cell.median;
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
    if (!reference) PrintPaired(out, rank, rows);
    std::fprintf(out, "\n");
  }

  // The leading pair's median ratio over the rounds both ran, with its 95%
  // interval: the figure pick decides from (in paired rounds only).
  static void PrintPaired(
      std::FILE* out, const RankBy& rank,
      const std::vector<std::pair<std::string, Cell>>& rows) {
    std::map<std::string, RoundValues> by_impl;
    for (const auto& [impl, cell] : rows) {
      if (!cell.error && !cell.by_round.empty()) by_impl[impl] = cell.by_round;
    }
    if (by_impl.empty()) return;
    const auto pair = Leading(by_impl, rank.higher_is_better, ReferenceImpls());
    if (!pair) return;
    if (!pair->ratio) {
      std::fprintf(out,
                   "  paired: %s over %s: too few rounds for a 95%% "
                   "interval (6 needed)\n",
                   pair->first.c_str(), pair->second.c_str());
      return;
    }
    const RatioInterval& r = *pair->ratio;
    std::fprintf(
        out, "  paired: %s over %s: %.3fx [%.3f, %.3f] (95%%, %d rounds)\n",
        pair->first.c_str(), pair->second.c_str(), r.median, r.lo, r.hi, r.n);
  }

  std::string family_;
  std::vector<RankBy> rankings_;
  int errors_ = 0;
  std::map<CellKey, Cell> cells_;
  std::map<CellKey, std::map<std::string, std::vector<double>>> extra_values_;
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
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * round_trips));
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
  std::sort(parts.begin(), parts.end(),
            [](const auto& a, const auto& b) { return a.p50_ns < b.p50_ns; });
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
  std::printf(
      "floor %s: round trip p50 %.0f ns, p99 %.0f ns (CPUs %d and %d, "
      "middle of %d runs of %llu round trips)\n",
      when, f->p50_ns, f->p99_ns, f->cpu_a, f->cpu_b, kEdgeParts,
      static_cast<unsigned long long>(f->round_trips / kEdgeParts));
}

// The ranking rules as pick reads them (the floor's is the reference).
JsonValue RulesJson(const std::vector<RankBy>& rankings) {
  std::vector<JsonValue> rules;
  for (const RankBy& r : rankings) {
    const bool reference = r.scenario == kFloorScenario;
    rules.push_back(JsonValue::Object({
        {"scenario", r.scenario},
        {"metric", r.counter.empty() ? "real_time" : r.counter},
        {"direction", r.higher_is_better ? "higher" : "lower"},
        {"unit", r.unit},
        {"baseline",
         reference || r.baseline.empty() ? JsonValue() : JsonValue(r.baseline)},
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

// Google Benchmark's filter for exactly one of our names, with its own
// suffixes (/iterations:1, /manual_time, ...) allowed after it.
std::string ExactFilter(const std::string& name) {
  std::string re = "^";
  for (char c : name) {
    if (std::strchr(".[]()*+?{}|^$\\", c) != nullptr) re += '\\';
    re += c;
  }
  return re +
         "(/(manual_time|real_time|process_time|iterations:[0-9]+|"
         "repeats:[0-9]+|min_time:[^/]+|min_warmup_time:[^/]+|"
         "threads:[0-9]+))*$";
}

// Whether `name` passes a --benchmark_filter as Google Benchmark reads it
// (a regular expression searched for; a leading '-' negates it).
bool PassesFilter(const std::string& name, const std::string& filter) {
  if (filter.empty() || filter == "all") return true;
  const bool negative = filter[0] == '-';
  const std::regex re(negative ? filter.substr(1) : filter,
                      std::regex::extended);
  // Google Benchmark's names go on with its own suffixes ("/iterations:1"):
  // a filter that expects a "/" after ours matches as it would there.
  const bool found =
      std::regex_search(name, re) || std::regex_search(name + "/", re);
  return found != negative;
}

// Paired rounds' reporter: stamps every run with its round and the floor
// measured before its group's round, hands it to the console's ranking
// reporter and to the file's reporter, and lets each see the context once
// and finish once, although Google Benchmark runs one benchmark a call.
class RoundsReporter : public benchmark::BenchmarkReporter {
 public:
  RoundsReporter(RankingReporter& console, benchmark::BenchmarkReporter* file)
      : console_(console), file_(file) {}

  void Stamp(int round, double floor_ns) {
    round_ = round;
    floor_ns_ = floor_ns;
  }

  bool ReportContext(const Context& context) override {
    if (!context_done_) {
      context_done_ = true;
      console_.ReportContext(context);
      if (file_ != nullptr) file_->ReportContext(context);
    }
    return true;
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> stamped = runs;
    for (Run& run : stamped) {
      run.counters[kRoundCounter] = benchmark::Counter(round_);
      if (!std::isnan(floor_ns_)) {
        run.counters[kRoundFloorCounter] = benchmark::Counter(floor_ns_);
      }
    }
    console_.ReportRuns(stamped);
    if (file_ != nullptr) file_->ReportRuns(stamped);
  }

  void Finalize() override {}  // one call of many: FinishAll() ends it

  void FinishAll() {
    console_.Finalize();
    if (file_ != nullptr) file_->Finalize();
  }

 private:
  RankingReporter& console_;
  benchmark::BenchmarkReporter* file_;
  bool context_done_ = false;
  int round_ = 0;
  double floor_ns_ = NAN;
};

// Round trips of the floor measured before each group's round: a few ms.
constexpr std::uint64_t kRoundFloorTrips = 20'000;

// One round unit of the schedule: its scenarios and groups (each group's
// names, one per implementation).
struct ScheduleUnit {
  std::string name;
  std::vector<std::string> scenarios;
  std::vector<std::pair<std::string, std::string>>
      group_keys;  // scenario, params
  std::vector<std::vector<std::string>> group_names;
};

std::vector<ScheduleUnit> BuildSchedule(const std::vector<RankBy>& rankings,
                                        const std::string& filter) {
  std::vector<ScheduleUnit> units;
  for (const std::string& name : SweepNames()) {
    if (!PassesFilter(name, filter)) continue;
    const ParsedName p = Parse(name);
    std::string unit_name = p.scenario;
    for (const RankBy& r : rankings) {
      if (r.scenario == p.scenario && !r.round_unit.empty())
        unit_name = r.round_unit;
    }
    auto u = std::find_if(
        units.begin(), units.end(),
        [&](const ScheduleUnit& x) { return x.name == unit_name; });
    if (u == units.end()) {
      units.push_back({unit_name, {}, {}, {}});
      u = units.end() - 1;
    }
    if (std::find(u->scenarios.begin(), u->scenarios.end(), p.scenario) ==
        u->scenarios.end()) {
      u->scenarios.push_back(p.scenario);
    }
    const std::pair<std::string, std::string> key{p.scenario, p.params};
    auto g = std::find(u->group_keys.begin(), u->group_keys.end(), key);
    if (g == u->group_keys.end()) {
      u->group_keys.push_back(key);
      u->group_names.push_back({name});
    } else {
      u->group_names[static_cast<std::size_t>(g - u->group_keys.begin())]
          .push_back(name);
    }
  }
  return units;
}

// The widest leading-pair interval over a unit's groups (a fraction):
// nullopt while a group has too few rounds for one, 0 when no group has
// two contenders.
std::optional<double> UnitHalfWidth(const ScheduleUnit& unit,
                                    const RankingReporter& reporter) {
  double widest = 0;
  const std::set<std::string> references = ReferenceImpls();
  for (const auto& [scenario, params] : unit.group_keys) {
    const RankBy* rank = reporter.RankFor(scenario);
    if (rank == nullptr) continue;
    const auto pair = Leading(reporter.GroupRounds(scenario, params),
                              rank->higher_is_better, references);
    if (!pair) continue;
    if (!pair->ratio) return std::nullopt;
    widest = std::max(widest, HalfWidth(*pair->ratio));
  }
  return widest;
}

std::unique_ptr<benchmark::BenchmarkReporter> FileReporter(
    const std::string& format) {
  if (format == "console") {
    return std::make_unique<benchmark::ConsoleReporter>(
        benchmark::ConsoleReporter::OO_None);
  }
  return std::make_unique<benchmark::JSONReporter>();
}

std::optional<double> ParseNumber(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

// The sweep's own flags, taken out of argv before Google Benchmark sees it.
struct SweepFlags {
  Profile profile = Profile::kDefault;
  SweepPart part;
  bool rounds_mode = true;
  std::optional<double> budget, target;
  std::optional<int> min_rounds, max_rounds;
  bool help = false;                   // --help: ours, then Google Benchmark's
  std::vector<std::string> user_args;  // the rest, for Google Benchmark
};

enum class FlagMatch { kNotOurs, kTaken, kBad };

// --part, --profile and --rounds; kBad after saying what is wrong.
FlagMatch ParseModeFlag(const std::string& arg, const char* argv0,
                        SweepFlags* f) {
  if (arg.rfind("--part=", 0) == 0) {
    const auto p = ParsePart(std::string_view(arg).substr(7));
    if (!p) {
      std::fprintf(stderr, "%s: bad %s (want --part=K/N, 1 <= K <= N <= 64)\n",
                   argv0, arg.c_str());
      return FlagMatch::kBad;
    }
    f->part = *p;
    return FlagMatch::kTaken;
  }
  if (arg.rfind("--profile=", 0) == 0) {
    const std::string value = arg.substr(10);
    if (value == "default") {
      f->profile = Profile::kDefault;
    } else if (value == "full") {
      f->profile = Profile::kFull;
    } else if (value == "smoke") {
      f->profile = Profile::kSmoke;
    } else {
      std::fprintf(stderr,
                   "%s: unknown --profile=%s (use default, full or smoke)\n",
                   argv0, value.c_str());
      return FlagMatch::kBad;
    }
    return FlagMatch::kTaken;
  }
  if (arg.rfind("--rounds=", 0) == 0) {
    const auto b = ParseBool(arg.substr(9));
    if (!b) {
      std::fprintf(stderr, "%s: %s: use --rounds=on or --rounds=off\n", argv0,
                   arg.c_str());
      return FlagMatch::kBad;
    }
    f->rounds_mode = *b;
    return FlagMatch::kTaken;
  }
  return FlagMatch::kNotOurs;
}

// --round_budget_s, --round_target, --min_rounds and --max_rounds; kBad
// after saying what is wrong.
FlagMatch ParseRoundsNumberFlag(const std::string& arg, const char* argv0,
                                SweepFlags* f) {
  const std::pair<const char*, std::optional<double>*> number_flags[] = {
      {"--round_budget_s=", &f->budget}, {"--round_target=", &f->target}};
  bool matched = false;
  for (const auto& [flag, dest] : number_flags) {
    if (arg.rfind(flag, 0) != 0) continue;
    const auto v = ParseNumber(arg.substr(std::strlen(flag)));
    if (!v || *v < 0) {
      std::fprintf(stderr, "%s: %s: want a number >= 0\n", argv0, arg.c_str());
      return FlagMatch::kBad;
    }
    *dest = *v;
    matched = true;
  }
  const std::pair<const char*, std::optional<int>*> count_flags[] = {
      {"--min_rounds=", &f->min_rounds}, {"--max_rounds=", &f->max_rounds}};
  for (const auto& [flag, dest] : count_flags) {
    if (arg.rfind(flag, 0) != 0) continue;
    const auto v = ParseNumber(arg.substr(std::strlen(flag)));
    if (!v || *v < 1 || *v > 100000 || *v != std::floor(*v)) {
      std::fprintf(stderr, "%s: %s: want a whole number from 1 to 100000\n",
                   argv0, arg.c_str());
      return FlagMatch::kBad;
    }
    *dest = static_cast<int>(*v);
    matched = true;
  }
  return matched ? FlagMatch::kTaken : FlagMatch::kNotOurs;
}

// False after saying what is wrong with a flag.
bool ParseSweepFlags(int argc, char** argv, SweepFlags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      f->help = true;
      continue;
    }
    FlagMatch m = ParseModeFlag(arg, argv[0], f);
    if (m == FlagMatch::kNotOurs) m = ParseRoundsNumberFlag(arg, argv[0], f);
    if (m == FlagMatch::kBad) return false;
    if (m == FlagMatch::kNotOurs) f->user_args.push_back(arg);
  }
  return true;
}

// The console's colour and layout. False after saying what is wrong.
bool ParseConsoleFlags(const std::vector<std::string>& user_args,
                       const char* argv0, bool* color, bool* tabular) {
  // Colour only on a terminal, unless the user says otherwise. Google
  // Benchmark applies --benchmark_color only to the reporter it makes
  // itself; this sweep brings its own, so it reads the flag here.
  *color = ::isatty(STDOUT_FILENO) == 1;
  if (const char* term = std::getenv("TERM");
      term == nullptr || std::string_view(term) == "dumb") {
    *color = false;
  }
  if (auto v = FlagValue(user_args, "--benchmark_color"); v && *v != "auto") {
    const auto b = ParseBool(*v);
    if (!b) {
      std::fprintf(stderr,
                   "%s: --benchmark_color=%s: use true, false or auto\n", argv0,
                   v->c_str());
      return false;
    }
    *color = *b;
  }
  // Counters inline by default: with interleaved repetitions, rows of
  // different scenarios alternate, and a tabular console would print a new
  // header at every change of counters.
  *tabular = false;
  if (auto v = FlagValue(user_args, "--benchmark_counters_tabular")) {
    *tabular = ParseBool(*v).value_or(false);
  }
  return true;
}

// Repetitions and random interleaving belong to --rounds=off. False after
// saying so.
bool RepetitionFlagsFit(const SweepFlags& flags, const char* argv0) {
  if (flags.rounds_mode &&
      (HasFlag(flags.user_args, "--benchmark_repetitions") ||
       HasFlag(flags.user_args, "--benchmark_enable_random_interleaving"))) {
    std::fprintf(
        stderr,
        "%s: --benchmark_repetitions and random interleaving apply to "
        "--rounds=off; paired rounds run each benchmark once a round\n",
        argv0);
    return false;
  }
  return true;
}

// The rounds' schedule for this process: the profile's, this process's
// share of it, then the user's flags.
RoundsConfig RoundsFor(const SweepSpec& spec, const SweepFlags& f) {
  const SweepPart& part = f.part;
  RoundsConfig rounds;
  rounds.min_rounds =
      ByProfile(f.profile, 1, kDefaultMinRounds, kFullMinRounds);
  rounds.max_rounds = ByProfile(f.profile, 1, 60, 200);
  rounds.budget_s = ByProfile(f.profile, 0.0, spec.round_budget_s,
                              spec.round_budget_s * kFullBudgetFactor);
  rounds.target = kRoundTarget;
  if (part.of > 1) {
    // Each process runs its share; the merged file pairs rounds by process,
    // and an interval over N times the rounds is about sqrt(N) narrower.
    rounds.budget_s /= part.of;
    rounds.min_rounds =
        std::max(1, (rounds.min_rounds + part.of - 1) / part.of);
    rounds.target *= std::sqrt(static_cast<double>(part.of));
  }
  if (f.budget) rounds.budget_s = *f.budget;
  if (f.target) rounds.target = *f.target;
  if (f.min_rounds) rounds.min_rounds = *f.min_rounds;
  if (f.max_rounds) rounds.max_rounds = *f.max_rounds;
  rounds.max_rounds = std::max(rounds.max_rounds, rounds.min_rounds);
  return rounds;
}

// Google Benchmark's command line, and what the sweep reads of it.
struct BenchArgs {
  std::vector<std::string> args;
  long repetitions = 1;
  bool interleaved = false;
  std::string out_path;    // empty: no file
  std::string write_path;  // written there, renamed to out_path when done
  std::string out_format;
  bool out_is_json = true;
  std::string filter;
};

// The defaults come first; the user's flags come later and win.
void AddRunDefaults(const SweepFlags& f, BenchArgs* b) {
  b->repetitions = f.rounds_mode ? 1
                                 : PartRepetitions(f.profile == Profile::kSmoke
                                                       ? 1
                                                       : kDefaultRepetitions,
                                                   f.part.of);
  if (auto v = FlagValue(f.user_args, "--benchmark_repetitions")) {
    b->repetitions = std::strtol(v->c_str(), nullptr, 10);
  } else {
    b->args.push_back("--benchmark_repetitions=" +
                      std::to_string(b->repetitions));
  }
  b->interleaved = !f.rounds_mode;
  if (auto v =
          FlagValue(f.user_args, "--benchmark_enable_random_interleaving")) {
    b->interleaved = ParseBool(*v).value_or(true);
  } else {
    b->args.push_back(std::string("--benchmark_enable_random_interleaving=") +
                      (b->interleaved ? "true" : "false"));
  }
  if (!HasFlag(f.user_args, "--benchmark_display_aggregates_only") &&
      !HasFlag(f.user_args, "--benchmark_report_aggregates_only")) {
    b->args.push_back("--benchmark_display_aggregates_only=true");
  }
}

// The output file: the user's, or results/<family>.json. False after saying
// why the results folder cannot be made.
bool ChooseOutput(const SweepSpec& spec, const SweepFlags& f, const char* argv0,
                  BenchArgs* b) {
  b->out_format =
      FlagValue(f.user_args, "--benchmark_out_format").value_or("json");
  b->out_is_json = b->out_format == "json";
  if (auto v = FlagValue(f.user_args, "--benchmark_out")) {
    b->out_path = *v;
    return true;
  }
  const std::string dir = ResultsDir();
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "%s: cannot create %s: %s\n", argv0, dir.c_str(),
                 std::strerror(errno));
    return false;
  }
  b->out_path = dir + "/" + spec.family + ".json";
  b->args.push_back("--benchmark_out=" + b->out_path);
  b->args.push_back("--benchmark_out_format=json");
  return true;
}

// Google Benchmark would reopen (truncate) its output file at every call,
// and its filter would replace the one each round passes: in paired rounds
// this sweep writes the file and applies the filter itself. False after
// saying what it cannot take.
bool TakeOverFileAndFilter(const char* argv0, BenchArgs* b) {
  std::erase_if(b->args, [](const std::string& a) {
    return a.rfind("--benchmark_out=", 0) == 0 ||
           a.rfind("--benchmark_out_format=", 0) == 0 ||
           a.rfind("--benchmark_filter=", 0) == 0;
  });
  if (b->out_format != "json" && b->out_format != "console") {
    std::fprintf(stderr,
                 "%s: --benchmark_out_format=%s: paired rounds write "
                 "json or console\n",
                 argv0, b->out_format.c_str());
    return false;
  }
  try {
    PassesFilter("", b->filter);
  } catch (const std::regex_error& e) {
    std::fprintf(stderr,
                 "%s: --benchmark_filter=%s: not a regular expression (%s)\n",
                 argv0, b->filter.c_str(), e.what());
    return false;
  }
  return true;
}

// Google Benchmark's command line for this sweep. Returns 0, or the exit
// code after saying what is wrong.
int BuildBenchArgs(const SweepSpec& spec, const SweepFlags& f,
                   const char* argv0, BenchArgs* b) {
  b->args = {argv0};
  AddRunDefaults(f, b);
  if (!ChooseOutput(spec, f, argv0, b)) return 1;
  b->args.insert(b->args.end(), f.user_args.begin(), f.user_args.end());
  // Results go to a file beside the old one, renamed over it only once
  // the run has measured something: a failed or interrupted run leaves
  // the old file as it was.
  if (!b->out_path.empty()) {
    b->write_path = b->out_path + ".partial";
    for (std::string& a : b->args) {
      if (a.rfind("--benchmark_out=", 0) == 0) {
        a = "--benchmark_out=" + b->write_path;
      }
    }
  }
  b->filter = FlagValue(f.user_args, "--benchmark_filter").value_or("");
  if (f.rounds_mode && !TakeOverFileAndFilter(argv0, b)) return 2;
  return 0;
}

// False when Google Benchmark was given a flag it does not know (it says
// which).
bool InitializeBenchmark(std::vector<std::string>& args) {
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  int cargc = static_cast<int>(cargs.size());
  benchmark::Initialize(&cargc, cargs.data());
  return !benchmark::ReportUnrecognizedArguments(cargc, cargs.data());
}

const char* ProfileName(Profile profile) {
  return profile == Profile::kFull    ? "full"
         : profile == Profile::kSmoke ? "smoke"
                                      : "default";
}

// The context lines of Google Benchmark's output, and this process's share
// of a sweep run as several.
void AddSweepContext(const SweepSpec& spec, const SweepFlags& f,
                     const RoundsConfig& rounds, long repetitions) {
  benchmark::AddCustomContext("profile", ProfileName(f.profile));
  if (f.part.of > 1) {
    if (f.rounds_mode) {
      std::printf(
          "part %d of %d: %.0f s of rounds, at least %d a unit, in this "
          "process\n",
          f.part.index, f.part.of, rounds.budget_s, rounds.min_rounds);
    } else {
      std::printf("part %d of %d: %ld repetition(s) in this process\n",
                  f.part.index, f.part.of, repetitions);
    }
  }
  benchmark::AddCustomContext("cores", std::to_string(Cores()));
  benchmark::AddCustomContext(
      "pinning", spec.pins_threads
                     ? "workers pinned round-robin to the allowed cores"
                     : "none (the components under test own their threads)");
  benchmark::AddCustomContext(
      "note",
      "Debian's libbenchmark is built without NDEBUG, hence its "
      "'Library was built as DEBUG' line; our code is built with -c opt");
}

// The family's rankings, each with a baseline, and the floor's.
std::vector<RankBy> SweepRankings(const SweepSpec& spec) {
  std::vector<RankBy> rankings = spec.rankings;
  for (RankBy& r : rankings) {
    if (r.baseline.empty()) r.baseline = spec.baseline;
  }
  rankings.push_back({std::string(kFloorScenario),
                      "p50_ns",
                      false,
                      "ns",
                      {"p99_ns", "p999_ns"}});
  return rankings;
}

// The floor at both ends of the sweep, and the cores it runs on.
struct FloorEnds {
  std::uint64_t edge_trips = 0;
  std::optional<std::pair<int, int>> cpus;
  std::optional<FloorSample> before, after;
};

// What the paired rounds did.
struct RoundsOutcome {
  std::size_t ran = 0;  // benchmark runs
  JsonFields units;     // each unit's rounds, for the JSON
  double elapsed_s = 0;
};

// One round of one unit: the floor's row (when `floor_name` is not null),
// then the unit's groups in random order, each after a short floor
// measurement, its implementations in random order. Returns the runs.
std::size_t RunUnitRound(const ScheduleUnit& unit, int round,
                         const std::string* floor_name, RoundsReporter& both,
                         std::mt19937_64& rng) {
  std::size_t ran = 0;
  if (floor_name != nullptr) {
    both.Stamp(round, NAN);
    ran += benchmark::RunSpecifiedBenchmarks(&both, ExactFilter(*floor_name));
  }
  std::vector<std::size_t> order(unit.group_names.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (std::size_t g : order) {
    const auto f = MeasureFloor(kRoundFloorTrips);
    both.Stamp(round, f ? f->p50_ns : NAN);
    std::vector<std::string> names = unit.group_names[g];
    std::shuffle(names.begin(), names.end(), rng);
    for (const std::string& name : names) {
      ran += benchmark::RunSpecifiedBenchmarks(&both, ExactFilter(name));
    }
  }
  return ran;
}

// Prints how each unit's rounds ended; returns them for the JSON.
JsonFields UnitsSummary(const std::string& family,
                        const std::vector<ScheduleUnit>& units,
                        const std::vector<UnitState>& state) {
  JsonFields out;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const UnitState& st = state[i];
    std::vector<JsonValue> scenarios(units[i].scenarios.begin(),
                                     units[i].scenarios.end());
    out.emplace_back(
        units[i].name,
        JsonValue::Object(
            {{"scenarios", JsonValue::Array(scenarios)},
             {"rounds", st.rounds},
             {"stop", st.stop},
             {"seconds", st.seconds},
             {"half_width",
              st.half_width ? JsonValue(*st.half_width) : JsonValue()}}));
    std::printf("rounds: %s/%s ran %d round(s) in %.0f s, ended by %s\n",
                family.c_str(), units[i].name.c_str(), st.rounds, st.seconds,
                st.stop == "target"
                    ? "its target (leading pairs within the target)"
                : st.stop == "budget" ? "the time budget"
                                      : "the round limit");
  }
  return out;
}

// Runs the units' rounds until NextUnit says every unit is done.
void RunSchedule(const SweepSpec& spec, const RoundsConfig& rounds,
                 std::vector<ScheduleUnit>& units,
                 std::vector<UnitState>& state, const std::string* floor_name,
                 RankingReporter& reporter, RoundsReporter& both,
                 RoundsOutcome* out) {
  std::mt19937_64 rng(std::random_device{}());
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  std::printf(
      "paired rounds: %zu unit(s) sharing one budget of %.0f s; at least "
      "%d round(s) each, then more, where a round narrows an interval "
      "most per second, until each unit's leading pairs are within "
      "±%.1f%% or the budget is spent (at most %d rounds a unit)\n",
      units.size(), rounds.budget_s, rounds.min_rounds, 100 * rounds.target,
      rounds.max_rounds);
  std::fflush(stdout);
  for (int u; (u = NextUnit(state, rounds, seconds_since(start))) >= 0;) {
    ScheduleUnit& unit = units[static_cast<std::size_t>(u)];
    UnitState& st = state[static_cast<std::size_t>(u)];
    const int round = st.rounds + 1;
    const auto unit_start = Clock::now();
    out->ran += RunUnitRound(unit, round, floor_name, both, rng);
    st.rounds = round;
    st.seconds += seconds_since(unit_start);
    st.half_width = UnitHalfWidth(unit, reporter);
    char width[48] = "no interval yet";
    if (st.half_width) {
      std::snprintf(width, sizeof(width), "leading pairs within ±%.1f%%",
                    100 * *st.half_width);
    }
    std::printf("[round %d of %s/%s: %.1f s; %s; %.0f s of %.0f s]\n", round,
                spec.family.c_str(), unit.name.c_str(),
                seconds_since(unit_start), width, seconds_since(start),
                rounds.budget_s);
    std::fflush(stdout);
  }
  out->elapsed_s = seconds_since(start);
}

// The sweep in paired rounds, written to `b.write_path` as well as the
// console. Returns 0, or the exit code after saying why the file cannot be
// written.
int RunPairedRounds(const SweepSpec& spec, const RoundsConfig& rounds,
                    const BenchArgs& b, const std::vector<RankBy>& rankings,
                    const std::string* floor_name, const char* argv0,
                    RankingReporter& reporter, RoundsOutcome* out) {
  std::ofstream file;
  std::unique_ptr<benchmark::BenchmarkReporter> file_reporter;
  if (!b.write_path.empty()) {
    file.open(b.write_path, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::fprintf(stderr, "%s: cannot write %s: %s\n", argv0,
                   b.write_path.c_str(), std::strerror(errno));
      return 1;
    }
    file_reporter = FileReporter(b.out_format);
    file_reporter->SetOutputStream(&file);
    file_reporter->SetErrorStream(&file);
  }
  RoundsReporter both(reporter, file_reporter.get());
  std::vector<ScheduleUnit> units = BuildSchedule(rankings, b.filter);
  std::vector<UnitState> state(units.size());
  RunSchedule(spec, rounds, units, state, floor_name, reporter, both, out);
  both.FinishAll();
  file.close();
  out->units = UnitsSummary(spec.family, units, state);
  return 0;
}

// Prints the floor at both ends and the interleaved row's, and says when
// the host drifted (a warning, or in paired rounds a note). Returns why it
// drifted, if it did.
std::vector<std::string> ReportFloor(const FloorEnds& floor,
                                     const Cell* floor_row, bool rounds_mode,
                                     const char* argv0) {
  PrintFloorSample("before", floor.before);
  PrintFloorSample("after", floor.after);
  std::optional<double> row_cv;
  if (floor_row != nullptr) {
    char cv[16] = "n/a";
    if (!std::isnan(floor_row->cv)) {
      std::snprintf(cv, sizeof(cv), "%.1f%%", floor_row->cv * 100);
      row_cv = floor_row->cv;
    }
    std::printf(
        "floor interleaved: median p50 %.0f ns, CV %s over %zu "
        "run(s)\n",
        floor_row->median, cv, floor_row->values.size());
  }
  const std::vector<std::string> drift = FloorDrift(
      floor.before ? std::optional<double>(floor.before->p50_ns) : std::nullopt,
      floor.after ? std::optional<double>(floor.after->p50_ns) : std::nullopt,
      row_cv);
  std::fflush(stdout);  // the warnings on stderr come after the tables
  for (const std::string& reason : drift) {
    if (rounds_mode) {
      std::printf("note: host drifted: %s\n", reason.c_str());
    } else {
      std::printf("WARNING: host drifted: %s\n", reason.c_str());
      std::fprintf(stderr, "%s: WARNING: host drifted: %s\n", argv0,
                   reason.c_str());
    }
  }
  if (!drift.empty()) {
    if (rounds_mode) {
      std::printf(
          "note: paired rounds cancel a host state that lasts longer "
          "than a round; bench:pick checks whether the ratios differ "
          "between the host's states\n");
    } else {
      std::printf(
          "WARNING: bench:pick will name no winner from this file "
          "(\"host drifted: rerun\"); run the sweep again\n");
    }
  }
  return drift;
}

// The floor's part of the "serverkit" context object.
JsonValue FloorContextJson(const FloorEnds& floor,
                           const std::vector<std::string>& drift) {
  std::vector<JsonValue> reasons(drift.begin(), drift.end());
  return JsonValue::Object({
      {"core_pair",
       floor.cpus ? JsonValue::Array({floor.cpus->first, floor.cpus->second})
                  : JsonValue()},
      {"round_trips", floor.edge_trips},
      {"edge_runs", kEdgeParts},
      {"threshold", kDriftThreshold},
      {"before", FloorJson(floor.before)},
      {"after", FloorJson(floor.after)},
      {"drifted", !drift.empty()},
      {"drift_reasons", JsonValue::Array(reasons)},
  });
}

// The "serverkit" object of the JSON file's context: the vocabulary, the
// floor and, in paired rounds, the schedule pick reads.
JsonValue SweepContextJson(const SweepSpec& spec, const SweepFlags& f,
                           const BenchArgs& b, const RoundsConfig& rounds,
                           const std::vector<RankBy>& rankings,
                           const FloorEnds& floor,
                           const std::vector<std::string>& drift,
                           const RoundsOutcome& outcome) {
  JsonFields impls, scenarios;
  for (const auto& [name, traits] : ImplTraits()) {
    impls.emplace_back(name, JsonValue::Object(traits));
  }
  for (const auto& [name, sizes] : ScenarioSizes()) {
    scenarios.emplace_back(name, JsonValue::Object(sizes));
  }
  JsonFields doc_fields = {
      {"schema", 1},
      {"family", spec.family},
      {"profile", ProfileName(f.profile)},
      {"repetitions", b.repetitions},
      {"interleaved", b.interleaved},
      {"part", JsonValue::Object({{"index", f.part.index}, {"of", f.part.of}})},
      {"machine",
       JsonValue::Object({{"cpu_model", CpuModel()}, {"cores", Cores()}})},
      {"floor", FloorContextJson(floor, drift)},
      {"rankings", RulesJson(rankings)},
      {"impls", JsonValue::Object(impls)},
      {"scenarios", JsonValue::Object(scenarios)},
  };
  if (f.rounds_mode) {
    doc_fields.emplace_back(
        "rounds",
        JsonValue::Object({{"target", rounds.target},
                           {"budget_s", rounds.budget_s},
                           {"min_rounds", rounds.min_rounds},
                           {"max_rounds", rounds.max_rounds},
                           {"elapsed_s", outcome.elapsed_s},
                           {"floor_round_trips", kRoundFloorTrips},
                           {"units", JsonValue::Object(outcome.units)}}));
  }
  return JsonValue::Object(doc_fields);
}

// Registers the floor's reference row, interleaved with the family's.
void RegisterFloorRow(const std::string& floor_name, std::uint64_t row_trips) {
  benchmark::RegisterBenchmark(
      floor_name.c_str(), [=](benchmark::State& s) { BM_Floor(s, row_trips); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  DescribeScenario(kFloorScenario, {{"round_trips", row_trips}});
}

// The floor before the sweep, printed, and its row registered to run
// among the family's when there are two cores to pin it to.
FloorEnds StartFloor(Profile profile, const std::string& floor_name) {
  FloorEnds floor;
  floor.edge_trips = ByProfile<std::uint64_t>(profile, 2'000, 50'000, 100'000);
  const std::uint64_t row_trips =
      ByProfile<std::uint64_t>(profile, 2'000, 100'000, 1'000'000);
  floor.cpus = FloorCpus();
  floor.before = MeasureFloorEdge(floor.edge_trips);
  PrintFloorSample("before", floor.before);
  if (floor.cpus) RegisterFloorRow(floor_name, row_trips);
  return floor;
}

}  // namespace

// --help: the sweep's own flags with their defaults for this family, then
// Google Benchmark's.
void PrintSweepHelp(const SweepSpec& spec, const char* argv0) {
  const double budget = spec.round_budget_s;
  std::printf(
      "usage: %s [sweep flags] [Google Benchmark flags]\n"
      "The %s sweep in paired rounds (docs/methods.md, \"Paired rounds\").\n"
      "\n"
      "sweep flags (the defaults per --profile: smoke / default / full):\n"
      "  --profile=default|full|smoke  sizes, rounds and budget (default:\n"
      "                       default)\n"
      "  --rounds=on|off      paired rounds, or Google Benchmark's own\n"
      "                       repetitions (off: %ld of them, interleaved)\n"
      "                       (default: on)\n"
      "  --round_budget_s=S   seconds of rounds for the whole sweep, shared\n"
      "                       by all its units; the minimum rounds run\n"
      "                       anyway (default: 0 / %.0f / %.0f)\n"
      "  --round_target=F     a unit stops once its leading pairs' interval\n"
      "                       is within +-F (default: %g)\n"
      "  --min_rounds=N       rounds every unit runs first (default: 1 / %d "
      "/ %d)\n"
      "  --max_rounds=N       the most rounds of one unit (default: 1 / 60 /\n"
      "                       200)\n"
      "  --part=K/N           run process K's share of N (bench/sweep.sh\n"
      "                       merges them; default: 1/1)\n"
      "  --benchmark_out=PATH the results file (default:\n"
      "                       $BUILD_WORKSPACE_DIRECTORY/results/%s.json);\n"
      "                       written beside it and renamed over it only\n"
      "                       when the run has measured\n"
      "  --benchmark_list_tests=true  the benchmarks' names, once; nothing\n"
      "                       measured, no file written\n"
      "\n"
      "Google Benchmark's flags:\n",
      argv0, spec.family.c_str(), kDefaultRepetitions, budget,
      budget * kFullBudgetFactor, kRoundTarget, kDefaultMinRounds,
      kFullMinRounds, spec.family.c_str());
  std::fflush(stdout);
  benchmark::PrintDefaultHelp();
}

// --benchmark_list_tests=true: the names once, through Google Benchmark,
// with no floor measured and no file opened.
int ListBenchmarks(const SweepSpec& spec, const SweepFlags& flags) {
  std::vector<std::string> args = {"list"};
  for (const std::string& a : flags.user_args) {
    if (a.rfind("--benchmark_out", 0) != 0) args.push_back(a);
  }
  if (!InitializeBenchmark(args)) return 2;
  spec.register_benchmarks(flags.profile);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Moves the finished results file into place; false after saying why not.
bool PublishResults(const BenchArgs& b, const char* argv0) {
  if (b.write_path.empty()) return true;
  if (std::rename(b.write_path.c_str(), b.out_path.c_str()) != 0) {
    std::fprintf(stderr, "%s: cannot move %s to %s: %s\n", argv0,
                 b.write_path.c_str(), b.out_path.c_str(),
                 std::strerror(errno));
    return false;
  }
  return true;
}

int RunSweep(const SweepSpec& spec, int argc, char** argv) {
  const char* argv0 = argv[0];
  SweepFlags flags;
  if (!ParseSweepFlags(argc, argv, &flags)) return 2;
  if (flags.help) {
    PrintSweepHelp(spec, argv0);
    return 0;
  }
  if (auto v = FlagValue(flags.user_args, "--benchmark_list_tests");
      v && ParseBool(*v).value_or(false)) {
    return ListBenchmarks(spec, flags);
  }
  bool color = false;
  bool tabular = false;
  if (!ParseConsoleFlags(flags.user_args, argv0, &color, &tabular)) return 2;
  if (!RepetitionFlagsFit(flags, argv0)) return 2;
  const RoundsConfig rounds = RoundsFor(spec, flags);
  BenchArgs b;
  if (const int rc = BuildBenchArgs(spec, flags, argv0, &b); rc != 0) return rc;
  if (!InitializeBenchmark(b.args)) return 2;
  AddSweepContext(spec, flags, rounds, b.repetitions);
  const std::vector<RankBy> rankings = SweepRankings(spec);

  // The floor: before, interleaved with the family's rows, after.
  const std::string floor_name =
      BenchName(spec.family, kFloorScenario, kFloorImpl);
  FloorEnds floor = StartFloor(flags.profile, floor_name);
  spec.register_benchmarks(flags.profile);

  RankingReporter reporter(
      spec.family, rankings,
      static_cast<benchmark::ConsoleReporter::OutputOptions>(
          (color ? benchmark::ConsoleReporter::OO_Color : 0) |
          (tabular ? benchmark::ConsoleReporter::OO_Tabular : 0)));
  RoundsOutcome outcome;
  if (!flags.rounds_mode) {
    outcome.ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  } else if (const int rc = RunPairedRounds(spec, rounds, b, rankings,
                                            floor.cpus ? &floor_name : nullptr,
                                            argv0, reporter, &outcome);
             rc != 0) {
    return rc;
  }
  benchmark::Shutdown();
  if (outcome.ran == 0) {
    std::fprintf(stderr, "%s: no benchmark matched the filter\n", argv0);
    if (!b.write_path.empty()) std::remove(b.write_path.c_str());
    return 1;
  }
  floor.after = MeasureFloorEdge(floor.edge_trips);

  const Cell* floor_row = reporter.FloorCell();
  reporter.PrintRankings(spec.pins_threads);
  const std::vector<std::string> drift =
      ReportFloor(floor, floor_row, flags.rounds_mode, argv0);

  if (!b.out_path.empty() && b.out_is_json) {
    const JsonValue doc = SweepContextJson(spec, flags, b, rounds, rankings,
                                           floor, drift, outcome);
    if (const std::string error = AddToContext(b.write_path, "serverkit", doc);
        !error.empty()) {
      std::fprintf(stderr,
                   "%s: could not add the ranking rules and the floor to %s "
                   "(%s); %s is unchanged\n",
                   argv0, b.write_path.c_str(), error.c_str(),
                   b.out_path.c_str());
      std::remove(b.write_path.c_str());
      return 1;
    }
  }
  if (!PublishResults(b, argv0)) return 1;
  if (!b.out_path.empty()) {
    std::printf("Google Benchmark %s: %s\n", b.out_is_json ? "JSON" : "output",
                b.out_path.c_str());
  }
  if (reporter.errors() > 0) {
    std::fprintf(stderr, "%s: %d benchmark run(s) failed (see ERROR above)\n",
                 argv0, reporter.errors());
    return 1;
  }
  return 0;
}

}  // namespace serverkit::bench
