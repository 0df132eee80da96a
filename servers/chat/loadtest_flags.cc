// -----------------------------------------------------------------------------
// servers/chat/loadtest_flags.cc
// -----------------------------------------------------------------------------
//
// The load test's usage text and argument parsing (loadtest_flags.h).

#include "servers/chat/loadtest_flags.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "servers/chat/codec.h"
#include "servers/pingpong/common.h"

namespace serverkit::chat::loadtest {
namespace {

using pingpong::ParseLong;

[[noreturn]] void Usage(int code) {
  std::FILE* out = code == 0 ? stdout : stderr;
  std::fprintf(
      out,
      "usage: loadtest <host> <port> <connections> [threads] [--rounds=R] "
      "[--message_size=N]\n"
      "                [--json=PATH] [--timeout=S] [--server_pid=PID]\n"
      "  Connects <connections> chat clients, waits until the server has "
      "them all (join probes),\n"
      "  then runs R rounds (default 100): one client sends a message of N "
      "bytes (default 64,\n"
      "  at least %zu), every client must receive it exactly once and in "
      "order.\n"
      "  Reports per-round time until all had it and per-receiver delivery "
      "percentiles.\n"
      "  --timeout: seconds any phase may go without progress (default "
      "30).\n"
      "  --server_pid: also report that process's CPU over the rounds.\n",
      kMinBody);
  std::exit(code);
}

}  // namespace

Options ParseArgs(int argc, char** argv) {
  Options o;
  std::vector<std::string_view> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") Usage(0);
    if (a.rfind("--rounds=", 0) == 0) {
      const auto v = ParseLong(a.substr(9));
      if (!v || *v < 1 || *v > 10'000'000) Usage(2);
      o.rounds = static_cast<std::uint32_t>(*v);
    } else if (a.rfind("--message_size=", 0) == 0) {
      const auto v = ParseLong(a.substr(15));
      if (!v || *v < static_cast<long>(kMinBody) || *v > (16 << 20)) {
        Usage(2);
      }
      o.message_size = static_cast<std::size_t>(*v);
    } else if (a.rfind("--json=", 0) == 0) {
      o.json = std::string(a.substr(7));
    } else if (a.rfind("--timeout=", 0) == 0) {
      o.timeout = std::atof(std::string(a.substr(10)).c_str());
      if (!(o.timeout > 0)) Usage(2);
    } else if (a.rfind("--server_pid=", 0) == 0) {
      const auto v = ParseLong(a.substr(13));
      if (!v || *v < 1) Usage(2);
      o.server_pid = *v;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "loadtest: unknown flag %s\n", argv[i]);
      Usage(2);
    } else {
      pos.push_back(a);
    }
  }
  if (pos.size() != 3 && pos.size() != 4) Usage(2);
  o.host = std::string(pos[0]);
  const auto port = ParseLong(pos[1]);
  const auto clients = ParseLong(pos[2]);
  const auto threads = pos.size() == 4 ? ParseLong(pos[3]) : 1L;
  if (!port || *port < 1 || *port > 65535 || !clients || *clients < 1 ||
      *clients > 1'000'000 || !threads || *threads < 1 || *threads > 256) {
    Usage(2);
  }
  o.port = static_cast<int>(*port);
  o.clients = static_cast<int>(*clients);
  o.threads = static_cast<int>(*threads);
  return o;
}

}  // namespace serverkit::chat::loadtest
