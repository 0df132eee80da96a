// -----------------------------------------------------------------------------
// bench/harness/flags.cc
// -----------------------------------------------------------------------------
//
// The sweep's own flags, the `--benchmark_*` flags it reads for itself, and
// its --help (internal/flags.h); `--part=K/N` (harness.h).

#include "bench/harness/internal/flags.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/parse_number.h"

namespace serverkit::bench {

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

namespace internal {

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

std::optional<double> ParseNumber(const std::string& text) {
  return serverkit::ParseNumber<double>(text);
}

const char* ProfileName(Profile profile) {
  return profile == Profile::kFull    ? "full"
         : profile == Profile::kSmoke ? "smoke"
                                      : "default";
}

namespace {

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

}  // namespace

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

}  // namespace internal
}  // namespace serverkit::bench
