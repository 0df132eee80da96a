// -----------------------------------------------------------------------------
// servers/pingpong/client_flags.cc
// -----------------------------------------------------------------------------
//
// The client's usage text and argument parsing (client_flags.h).

#include "servers/pingpong/client_flags.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace serverkit::pingpong::client {
namespace {

[[noreturn]] void Usage(int code) {
  std::FILE* out = code == 0 ? stdout : stderr;
  std::fprintf(
      out,
      "usage: client <ip> <port> <threads> <blocksize> <sessions> <time>\n"
      "              [--protocol=echo|header] [--count=N] [--json=PATH] "
      "[--verify]\n"
      "              [--connect_timeout=S]\n"
      "  echo (default): each session sends one <blocksize> block, then echoes "
      "what it reads;\n"
      "         reports MiB/s read over <time> seconds measured from the "
      "moment all sessions are connected.\n"
      "         --verify checks every byte read against the block pattern.\n"
      "  header: {uint32 body_size, uint32 packet_count} + body round trips, "
      "body 100 bytes growing by 1,\n"
      "         until packet_count reaches --count (default 8192); <time> "
      "bounds the run; replies are verified.\n"
      "  --connect_timeout: seconds for the whole connect phase (default 10 + "
      "sessions/1000).\n");
  std::exit(code);
}

}  // namespace

ClientOptions ParseArgs(int argc, char** argv) {
  ClientOptions o;
  std::vector<std::string_view> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") Usage(0);
    if (a.rfind("--protocol=", 0) == 0) {
      const auto p = ParseProtocol(a.substr(11));
      if (!p) Usage(2);
      o.protocol = *p;
    } else if (a.rfind("--count=", 0) == 0) {
      const auto v = ParseLong(a.substr(8));
      if (!v || *v < 1 || *v > 100'000'000) Usage(2);
      o.count = static_cast<std::uint32_t>(*v);
    } else if (a.rfind("--json=", 0) == 0) {
      o.json = std::string(a.substr(7));
    } else if (a == "--verify") {
      o.verify = true;
    } else if (a.rfind("--connect_timeout=", 0) == 0) {
      o.connect_timeout = std::atof(std::string(a.substr(18)).c_str());
      if (o.connect_timeout <= 0) Usage(2);
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "client: unknown flag %s\n", argv[i]);
      Usage(2);
    } else {
      pos.push_back(a);
    }
  }
  if (pos.size() != 6) Usage(2);
  o.ip = std::string(pos[0]);
  const auto port = ParseLong(pos[1]);
  const auto threads = ParseLong(pos[2]);
  const auto block = ParseLong(pos[3]);
  const auto sessions = ParseLong(pos[4]);
  o.seconds = std::atof(std::string(pos[5]).c_str());
  if (!port || *port < 1 || *port > 65535 || !threads || *threads < 1 ||
      *threads > 256 || !block || *block < 1 || *block > (64 << 20) ||
      !sessions || *sessions < 1 || *sessions > 1'000'000 || !(o.seconds > 0)) {
    Usage(2);
  }
  o.port = static_cast<int>(*port);
  o.threads = static_cast<int>(*threads);
  o.blocksize = static_cast<std::size_t>(*block);
  o.sessions = static_cast<int>(*sessions);
  if (o.connect_timeout < 0) o.connect_timeout = 10.0 + o.sessions / 1000.0;
  return o;
}

}  // namespace serverkit::pingpong::client
