// -----------------------------------------------------------------------------
// bench/harness/internal/flags.h
// -----------------------------------------------------------------------------
//
// The sweep's own command line (harness.h lists the flags): `--profile`,
// `--part`, `--rounds` and the rounds' numbers, taken out of argv before
// Google Benchmark sees it; the few `--benchmark_*` flags the sweep reads
// for itself (colour, layout, repetitions); and `--help`.
//
// Thread-safety: none; the main thread parses once.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_FLAGS_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_FLAGS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/harness/harness.h"

namespace serverkit::bench::internal {

// The value of the last `--flag=value` in args, if any.
std::optional<std::string> FlagValue(const std::vector<std::string>& args,
                                     std::string_view flag);

// Whether any argument starts with `flag`.
bool HasFlag(const std::vector<std::string>& args, std::string_view flag);

// Google Benchmark's spelling of booleans; nullopt when it is none of them.
std::optional<bool> ParseBool(std::string_view v);

// A whole finite number in `text`, nothing after it.
std::optional<double> ParseNumber(const std::string& text);

// "default", "full" or "smoke".
const char* ProfileName(Profile profile);

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

// False after saying on stderr what is wrong with a flag.
bool ParseSweepFlags(int argc, char** argv, SweepFlags* f);

// The console's colour and layout. False after saying what is wrong.
bool ParseConsoleFlags(const std::vector<std::string>& user_args,
                       const char* argv0, bool* color, bool* tabular);

// Repetitions and random interleaving belong to --rounds=off. False after
// saying so.
bool RepetitionFlagsFit(const SweepFlags& flags, const char* argv0);

// --help: the sweep's own flags with their defaults for this family, then
// Google Benchmark's.
void PrintSweepHelp(const SweepSpec& spec, const char* argv0);

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_FLAGS_H_
