// -----------------------------------------------------------------------------
// bench/harness/internal/benchmark_args.h
// -----------------------------------------------------------------------------
//
// Google Benchmark's command line for a sweep: the profile's defaults
// (repetitions, interleaving, aggregates) before the user's flags, which
// win; the results file (results/<family>.json unless the user names one),
// written beside its place and moved there only once the run measured
// something; and, in paired rounds, the file and the filter taken over
// from Google Benchmark.
//
// Thread-safety: none; the main thread builds it once.

#ifndef SERVERKIT_BENCH_HARNESS_INTERNAL_BENCHMARK_ARGS_H_
#define SERVERKIT_BENCH_HARNESS_INTERNAL_BENCHMARK_ARGS_H_

#include <string>
#include <vector>

#include "bench/harness/harness.h"
#include "bench/harness/internal/flags.h"

namespace serverkit::bench::internal {

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

// Google Benchmark's command line for this sweep. Returns 0, or the exit
// code after saying what is wrong.
int BuildBenchArgs(const SweepSpec& spec, const SweepFlags& f,
                   const char* argv0, BenchArgs* b);

// False when Google Benchmark was given a flag it does not know (it says
// which).
bool InitializeBenchmark(std::vector<std::string>& args);

// Moves the finished results file into place; false after saying why not.
bool PublishResults(const BenchArgs& b, const char* argv0);

}  // namespace serverkit::bench::internal

#endif  // SERVERKIT_BENCH_HARNESS_INTERNAL_BENCHMARK_ARGS_H_
