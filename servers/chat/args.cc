// -----------------------------------------------------------------------------
// servers/chat/args.cc
// -----------------------------------------------------------------------------

#include "servers/chat/args.h"

#include <cstdio>
#include <cstdlib>

#include "servers/pingpong/common.h"

namespace serverkit::chat {
namespace {

[[noreturn]] void Usage(std::string_view name, std::string_view extra_help,
                        int code) {
  std::FILE* out = code == 0 ? stdout : stderr;
  std::fprintf(
      out,
      "usage: %.*s <addr> <port> <threads> [--max_message=N] "
      "[--max_queued=N]\n"
      "  muduo's chat: frames {uint32 length (network order), message}; each "
      "message is broadcast\n"
      "  to every connected client, the sender included.\n"
      "  threads 1: one loop accepts and serves; threads N > 1: an accept "
      "loop plus N I/O loops.\n"
      "  --max_message=N  a longer frame closes its connection (default "
      "%u)\n"
      "  --max_queued=N   a receiver with more than N bytes queued is closed "
      "(default %zu)\n"
      "%.*s",
      static_cast<int>(name.size()), name.data(), kDefaultMaxMessage,
      kDefaultMaxQueued, static_cast<int>(extra_help.size()),
      extra_help.data());
  std::exit(code);
}

}  // namespace

ServerArgs ParseServerArgs(int argc, char* const* argv, std::string_view name,
                           std::string_view extra_help) {
  using pingpong::ParseLong;
  ServerArgs o;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") Usage(name, extra_help, 0);
    if (a.rfind("--max_message=", 0) == 0) {
      const auto v = ParseLong(a.substr(14));
      if (!v || *v < 1 || *v > 0x7fffffffL) Usage(name, extra_help, 2);
      o.max_message = static_cast<std::uint32_t>(*v);
    } else if (a.rfind("--max_queued=", 0) == 0) {
      const auto v = ParseLong(a.substr(13));
      if (!v || *v < 1) Usage(name, extra_help, 2);
      o.max_queued = static_cast<std::size_t>(*v);
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "%.*s: unknown flag %s\n",
                   static_cast<int>(name.size()), name.data(), argv[i]);
      Usage(name, extra_help, 2);
    } else if (!pingpong::TakeServerPositional(a, positional++, &o.addr,
                                               &o.port, &o.threads)) {
      Usage(name, extra_help, 2);
    }
  }
  if (positional != 3) Usage(name, extra_help, 2);
  return o;
}

}  // namespace serverkit::chat
