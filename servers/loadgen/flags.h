// -----------------------------------------------------------------------------
// servers/loadgen/flags.h
// -----------------------------------------------------------------------------
//
// The generator's command line, parsed strictly: only `--name=value` flags,
// each at most once, every value checked in full (no trailing garbage, no
// out-of-range numbers), flags of the other protocol refused. `Usage()` is
// the help text.
//
// Thread-safety: thread-safe (no shared state).

#ifndef SERVERKIT_SERVERS_LOADGEN_FLAGS_H_
#define SERVERKIT_SERVERS_LOADGEN_FLAGS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "servers/loadgen/protocol.h"
#include "servers/loadgen/schedule.h"

namespace serverkit::loadgen {

struct Options {
  Protocol protocol = Protocol::kEcho;
  std::string host = "127.0.0.1";
  int port = 0;
  int connections = 16;
  int threads = 1;
  double rate = 0;  // requests per second, all connections together
  double duration_s = 2;
  double warmup_s = 0.5;
  Arrivals arrivals = Arrivals::kUniform;
  // ParseFlags' default: serial for http (as clients send), pipelined for
  // echo (the ping-pong sweeps and the coordinated-omission test).
  Mode mode = Mode::kPipelined;
  std::uint64_t seed = 1;
  std::string path = "/";
  std::string host_header = "localhost";
  std::size_t size = 64;
  std::int64_t max_lag_us = 1000;
  std::string json;  // empty: no JSON file
  // > 0: also count the requests at or above it (JSON "above_us").
  std::int64_t count_above_us = 0;
};

struct ParsedFlags {
  Options options;
  bool help = false;  // --help: print Usage() and exit 0
  std::string error;  // empty: the flags are good
};

ParsedFlags ParseFlags(const std::vector<std::string_view>& args);

std::string_view Usage();

}  // namespace serverkit::loadgen

#endif  // SERVERKIT_SERVERS_LOADGEN_FLAGS_H_
