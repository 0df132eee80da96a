#include "servers/loadgen/flags.h"

#include <arpa/inet.h>

#include <charconv>
#include <cmath>
#include <set>

#include "base/parse_number.h"

namespace serverkit::loadgen {
namespace {

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  const auto v = serverkit::ParseNumber<T>(s);
  if (v) *out = *v;
  return v.has_value();
}

bool IsNumericHost(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

bool HasSpaceOrControl(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

std::string_view Usage() {
  return "usage: loadgen --protocol=http|echo --port=N --rate=R [flags]\n"
         "  An open-loop load generator: every request has an intended send\n"
         "  time fixed in advance; latency is measured from it (corrected\n"
         "  for coordinated omission).\n"
         "  --protocol=http|echo  required\n"
         "  --host=ADDR           numeric IPv4/IPv6 address (127.0.0.1)\n"
         "  --port=N              required\n"
         "  --connections=N       (16)\n"
         "  --threads=T           epoll loops; connections spread over them "
         "(1)\n"
         "  --rate=R              requests per second in all, > 0, required\n"
         "  --duration=S          measured seconds (2)\n"
         "  --warmup=S            seconds sent but not recorded first (0.5)\n"
         "  --arrivals=uniform|poisson  (uniform)\n"
         "  --mode=serial|pipelined  serial: one request in flight per\n"
         "                        connection, the next at its time or at the\n"
         "                        reply, whichever is later (wrk2's method);\n"
         "                        pipelined: every request at its time\n"
         "                        (default: serial for http, pipelined for "
         "echo)\n"
         "  --seed=N              phases and Poisson gaps (1)\n"
         "  --path=/ --host_header=localhost   http only\n"
         "  --size=B              echo only: bytes per message (64)\n"
         "  --max_lag_us=N        send lag p99 above it voids the run (1000)\n"
         "  --json=PATH           also write the result as one JSON object\n"
         "  --count_above_us=N    also count requests at or above N us, "
         "corrected\n"
         "                        and uncorrected (JSON \"above_us\")\n"
         "  exit status: 0 ok, 1 errors or unanswered requests or a failure,\n"
         "  2 bad flags, 3 void (the generator could not keep its schedule)\n";
}

ParsedFlags ParseFlags(const std::vector<std::string_view>& args) {
  ParsedFlags p;
  Options& o = p.options;
  std::set<std::string_view> seen;
  auto fail = [&p](std::string text) {
    p.error = std::move(text);
    return p;
  };
  for (const std::string_view a : args) {
    if (a == "--help" || a == "-h") {
      p.help = true;
      return p;
    }
    const std::size_t eq = a.find('=');
    if (a.substr(0, 2) != "--" || eq == std::string_view::npos) {
      return fail("expected --name=value, got \"" + std::string(a) + "\"");
    }
    const std::string_view name = a.substr(2, eq - 2);
    const std::string_view v = a.substr(eq + 1);
    if (!seen.insert(name).second) {
      return fail("--" + std::string(name) + " given twice");
    }
    const std::string bad =
        "bad value \"" + std::string(v) + "\" for --" + std::string(name);
    long long n = 0;
    double d = 0;
    if (name == "protocol") {
      const auto proto = ParseProtocol(v);
      if (!proto) return fail(bad + " (http or echo)");
      o.protocol = *proto;
    } else if (name == "host") {
      o.host = std::string(v);
      if (!IsNumericHost(o.host)) {
        return fail(bad + " (a numeric IPv4 or IPv6 address)");
      }
    } else if (name == "port") {
      if (!ParseNumber(v, &n) || n < 1 || n > 65535) {
        return fail(bad + " (1..65535)");
      }
      o.port = static_cast<int>(n);
    } else if (name == "connections") {
      if (!ParseNumber(v, &n) || n < 1 || n > 100000) {
        return fail(bad + " (1..100000)");
      }
      o.connections = static_cast<int>(n);
    } else if (name == "threads") {
      if (!ParseNumber(v, &n) || n < 1 || n > 256) {
        return fail(bad + " (1..256)");
      }
      o.threads = static_cast<int>(n);
    } else if (name == "rate") {
      if (!ParseNumber(v, &d) || !(d > 0) || !std::isfinite(d) || d > 1e9) {
        return fail(bad + " (requests per second, > 0)");
      }
      o.rate = d;
    } else if (name == "duration") {
      if (!ParseNumber(v, &d) || !(d > 0) || d > 86400) {
        return fail(bad + " (seconds, > 0)");
      }
      o.duration_s = d;
    } else if (name == "warmup") {
      if (!ParseNumber(v, &d) || !(d >= 0) || d > 86400) {
        return fail(bad + " (seconds, >= 0)");
      }
      o.warmup_s = d;
    } else if (name == "arrivals") {
      const auto arrivals = ParseArrivals(v);
      if (!arrivals) return fail(bad + " (uniform or poisson)");
      o.arrivals = *arrivals;
    } else if (name == "mode") {
      const auto mode = ParseMode(v);
      if (!mode) return fail(bad + " (serial or pipelined)");
      o.mode = *mode;
    } else if (name == "seed") {
      if (!ParseNumber(v, &o.seed)) return fail(bad + " (an unsigned integer)");
    } else if (name == "path") {
      if (v.empty() || v[0] != '/' || HasSpaceOrControl(v)) {
        return fail(bad + " (starts with /, no spaces)");
      }
      o.path = std::string(v);
    } else if (name == "host_header") {
      if (v.empty() || HasSpaceOrControl(v)) {
        return fail(bad + " (non-empty, no spaces)");
      }
      o.host_header = std::string(v);
    } else if (name == "size") {
      if (!ParseNumber(v, &n) || n < 1 || n > (1 << 20)) {
        return fail(bad + " (bytes, 1..1048576)");
      }
      o.size = static_cast<std::size_t>(n);
    } else if (name == "max_lag_us") {
      if (!ParseNumber(v, &n) || n < 1) {
        return fail(bad + " (microseconds, >= 1)");
      }
      o.max_lag_us = n;
    } else if (name == "count_above_us") {
      if (!ParseNumber(v, &n) || n < 1) {
        return fail(bad + " (microseconds, >= 1)");
      }
      o.count_above_us = n;
    } else if (name == "json") {
      if (v.empty()) return fail("--json needs a path");
      o.json = std::string(v);
    } else {
      return fail("unknown flag --" + std::string(name));
    }
  }
  for (const char* required : {"protocol", "port", "rate"}) {
    if (!seen.contains(required)) {
      return fail("missing required flag --" + std::string(required));
    }
  }
  if (!seen.contains("mode")) {
    o.mode = o.protocol == Protocol::kHttp ? Mode::kSerial : Mode::kPipelined;
  }
  if (o.protocol == Protocol::kEcho &&
      (seen.contains("path") || seen.contains("host_header"))) {
    return fail("--path and --host_header apply to --protocol=http only");
  }
  if (o.protocol == Protocol::kHttp && seen.contains("size")) {
    return fail("--size applies to --protocol=echo only");
  }
  if (o.threads > o.connections) {
    return fail("--threads=" + std::to_string(o.threads) + " exceeds " +
                "--connections=" + std::to_string(o.connections) +
                " (each thread needs a connection)");
  }
  return p;
}

}  // namespace serverkit::loadgen
