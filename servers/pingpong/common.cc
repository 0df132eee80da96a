// -----------------------------------------------------------------------------
// servers/pingpong/common.cc
// -----------------------------------------------------------------------------
//
// The protocols' names, payloads and the server command line (common.h).

#include "servers/pingpong/common.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "base/parse_number.h"

namespace serverkit::pingpong {

std::string_view ProtocolName(Protocol p) {
  return p == Protocol::kEcho ? "echo" : "header";
}

std::optional<Protocol> ParseProtocol(std::string_view s) {
  if (s == "echo") return Protocol::kEcho;
  if (s == "header") return Protocol::kHeader;
  return std::nullopt;
}

std::string BodyPattern(std::size_t max_body) {
  std::string p(256 + max_body, '\0');
  for (std::size_t j = 0; j < p.size(); ++j) p[j] = static_cast<char>(j & 0xff);
  return p;
}

std::string EchoBlock(std::size_t blocksize) {
  std::string b(blocksize, '\0');
  for (std::size_t i = 0; i < blocksize; ++i) b[i] = static_cast<char>(i % 128);
  return b;
}

std::optional<long> ParseLong(std::string_view s) {
  const auto v = ParseNumber<long>(s);
  if (!v || *v < 0) return std::nullopt;
  return v;
}

namespace {

[[noreturn]] void Usage(std::string_view name, std::string_view extra_help,
                        int code) {
  std::FILE* out = code == 0 ? stdout : stderr;
  std::fprintf(out,
               "usage: %.*s <addr> <port> <threads> [--protocol=echo|header] "
               "[--max_body=N]\n"
               "  echo:   echoes whatever arrives (muduo's ping-pong).\n"
               "  header: echoes each complete message {uint32 body_size, "
               "uint32 packet_count} + body\n"
               "          (network byte order); body_size > max_body "
               "(default %u) closes that connection.\n"
               "  threads 1: one loop accepts and serves; threads N > 1: an "
               "accept loop plus N I/O loops,\n"
               "          connections handed round-robin (muduo's model).\n"
               "%.*s",
               static_cast<int>(name.size()), name.data(), kDefaultMaxBody,
               static_cast<int>(extra_help.size()), extra_help.data());
  std::exit(code);
}

}  // namespace

ServerOptions ParseServerArgs(int argc, char** argv, std::string_view name,
                              std::string_view extra_help) {
  ServerOptions o;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") Usage(name, extra_help, 0);
    if (a.rfind("--protocol=", 0) == 0) {
      const auto p = ParseProtocol(a.substr(11));
      if (!p) Usage(name, extra_help, 2);
      o.protocol = *p;
    } else if (a.rfind("--max_body=", 0) == 0) {
      const auto v = ParseLong(a.substr(11));
      if (!v || *v > 0xffffffffL) Usage(name, extra_help, 2);
      o.max_body = static_cast<std::uint32_t>(*v);
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "%.*s: unknown flag %s\n",
                   static_cast<int>(name.size()), name.data(), argv[i]);
      Usage(name, extra_help, 2);
    } else if (!TakeServerPositional(a, positional++, &o.addr, &o.port,
                                     &o.threads)) {
      Usage(name, extra_help, 2);
    }
  }
  if (positional != 3) Usage(name, extra_help, 2);
  return o;
}

bool TakeServerPositional(std::string_view arg, int index, std::string* addr,
                          int* port, int* threads) {
  switch (index) {
    case 0:
      *addr = std::string(arg);
      return true;
    case 1: {
      const auto v = ParseLong(arg);
      if (!v || *v > 65535) return false;
      *port = static_cast<int>(*v);
      return true;
    }
    case 2: {
      const auto v = ParseLong(arg);
      if (!v || *v < 1 || *v > 256) return false;
      *threads = static_cast<int>(*v);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace serverkit::pingpong
