// -----------------------------------------------------------------------------
// bench/harness/benchmark_args.cc
// -----------------------------------------------------------------------------
//
// Google Benchmark's command line and the results file
// (internal/benchmark_args.h).

#include "bench/harness/internal/benchmark_args.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "bench/harness/internal/run_names.h"

namespace serverkit::bench::internal {
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

}  // namespace

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

bool InitializeBenchmark(std::vector<std::string>& args) {
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  int cargc = static_cast<int>(cargs.size());
  benchmark::Initialize(&cargc, cargs.data());
  return !benchmark::ReportUnrecognizedArguments(cargc, cargs.data());
}

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

}  // namespace serverkit::bench::internal
