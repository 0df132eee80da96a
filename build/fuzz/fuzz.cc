#include "build/fuzz/fuzz.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace serverkit::fuzz {
namespace {

std::vector<std::string>& TraceOps() {
  static std::vector<std::string> ops;
  return ops;
}

}  // namespace

void Trace::reset() { TraceOps().clear(); }
void Trace::add(std::string op) { TraceOps().push_back(std::move(op)); }
const std::vector<std::string>& Trace::ops() { return TraceOps(); }

void OracleFailed(const char* file, int line, const char* cond,
                  std::string_view what) {
  std::fprintf(stderr, "serverkit-fuzz: oracle failed: %s:%d: %s: %.*s\n", file,
               line, cond, static_cast<int>(what.size()), what.data());
  const auto& ops = TraceOps();
  const std::size_t first = ops.size() > 200 ? ops.size() - 200 : 0;
  std::fprintf(stderr, "serverkit-fuzz: the input's %zu operations%s:\n",
               ops.size(), first > 0 ? " (the last 200)" : "");
  for (std::size_t i = first; i < ops.size(); ++i) {
    std::fprintf(stderr, "  %zu: %s\n", i, ops[i].c_str());
  }
  std::fflush(stderr);
  std::abort();
}

std::string Printable(std::string_view s, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02X", c);
      out += hex;
    }
  }
  if (s.size() > max) out += "...(" + std::to_string(s.size()) + " bytes)";
  return out;
}

}  // namespace serverkit::fuzz
