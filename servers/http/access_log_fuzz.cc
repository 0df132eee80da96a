// Fuzz target: the access log's escaping (http_handler.h's LogEscaped and
// kAccessLogFormat, as servers/http/server.cc logs each reply).
//
// The input chooses a reply record: method, version, status, body bytes,
// and the request target, Referer and User-Agent as arbitrary bytes.
// The oracle: the line holds no byte below 0x20 or from 0x7f up (so no
// byte can end the line, and none reaches a terminal raw), no quote inside
// a quoted field, and it parses back into exactly the fields it was made
// from ("-" standing for an empty Referer or User-Agent, as in nginx).
//
// Mutant (SERVERKIT_FUZZ_MUTANT): a quote right after a backslash is left
// unescaped, the kind of slip a hand-written escaper makes.

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "build/fuzz/fuzz.h"
#include "servers/http/http_handler.h"

namespace serverkit::http {
namespace {

using fuzz::ByteReader;
using fuzz::Printable;
using fuzz::Trace;

#ifdef SERVERKIT_FUZZ_MUTANT
std::string_view Escape(std::string_view in, std::string* buf) {
  buf->clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '"' && i > 0 && in[i - 1] == '\\') {
      buf->push_back('"');  // the planted bug
    } else {
      AppendLogEscaped(in.substr(i, 1), buf);
    }
  }
  return *buf;
}
#else
std::string_view Escape(std::string_view in, std::string* buf) {
  return LogEscaped(in, buf);
}
#endif

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The bytes a logged field stands for; nullopt when a backslash is not
// followed by xHH (uppercase), which the escaper never writes.
std::optional<std::string> Unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 3 >= s.size() + 0 || s[i + 1] != 'x' || Hex(s[i + 2]) < 0 ||
        Hex(s[i + 3]) < 0) {
      return std::nullopt;
    }
    out.push_back(static_cast<char>(Hex(s[i + 2]) * 16 + Hex(s[i + 3])));
    i += 3;
  }
  return out;
}

// Reads `"field"` at `*pos` (the field holds no quote); nullopt otherwise.
std::optional<std::string_view> Quoted(std::string_view line,
                                       std::size_t* pos) {
  if (*pos >= line.size() || line[*pos] != '"') return std::nullopt;
  const std::size_t end = line.find('"', *pos + 1);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view field = line.substr(*pos + 1, end - *pos - 1);
  *pos = end + 1;
  return field;
}

bool Expect(std::string_view line, std::size_t* pos, std::string_view lit) {
  if (line.substr(*pos, lit.size()) != lit) return false;
  *pos += lit.size();
  return true;
}

// A logged Referer or User-Agent field against the value it came from.
bool SameOrDash(std::string_view logged, std::string_view value) {
  if (logged == "-") return value.empty() || value == "-";
  const auto back = Unescape(logged);
  return back && *back == value;
}

constexpr std::string_view kMethods[] = {"GET",   "HEAD",    "POST",
                                         "PUT",   "DELETE",  "OPTIONS",
                                         "PATCH", "CONNECT", "TRACE"};
constexpr int kStatuses[] = {200, 400, 404, 405, 414, 431};
constexpr std::string_view kAddr = "127.0.0.1";
constexpr std::string_view kTime = "26/Nov/2026:20:55:51 +0000";

void OneInput(ByteReader& in) {
  ReplyRecord r;
  r.request_line_complete = in.boolean();
  r.method = kMethods[in.in_range(0, std::size(kMethods) - 1)];
  r.http_major = static_cast<int>(in.in_range(0, 9));
  r.http_minor = static_cast<int>(in.in_range(0, 9));
  r.status = kStatuses[in.in_range(0, std::size(kStatuses) - 1)];
  r.body_bytes = in.u32();
  const std::string target(in.bytes(in.in_range(0, 300)));
  const std::string referer(in.bytes(in.in_range(0, 100)));
  const std::string user_agent(in.rest());
  r.target = target;
  r.referer = referer;
  r.user_agent = user_agent;
  Trace::add("record: complete " + std::to_string(r.request_line_complete) +
             ", target \"" + Printable(target) + "\", referer \"" +
             Printable(referer) + "\", user agent \"" + Printable(user_agent) +
             "\"");

  std::string t, ref, ua;
  const std::string line =
      r.request_line_complete
          ? fmt::format(kAccessLogFormat, kAddr, kTime, r.method,
                        Escape(r.target, &t), r.http_major, r.http_minor,
                        r.status, r.body_bytes, OrDash(Escape(r.referer, &ref)),
                        OrDash(Escape(r.user_agent, &ua)))
          : fmt::format(kAccessLogFormatNoRequest, kAddr, kTime, r.status,
                        r.body_bytes);
  Trace::add("line: " + Printable(line, 2000));

  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    SK_FUZZ_CHECK(c >= 0x20 && c < 0x7f,
                  "a control or non-ASCII byte is in "
                  "the line");
  }
  std::size_t pos = 0;
  SK_FUZZ_CHECK(
      Expect(line, &pos,
             std::string(kAddr) + " - - [" + std::string(kTime) + "] "),
      "the line's head");
  const auto request = Quoted(line, &pos);
  SK_FUZZ_CHECK(request.has_value(), "the request field is not quoted");
  const std::string tail =
      " " + std::to_string(r.status) + " " + std::to_string(r.body_bytes) + " ";
  SK_FUZZ_CHECK(Expect(line, &pos, tail), "status and bytes");
  const auto referer_field = Quoted(line, &pos);
  SK_FUZZ_CHECK(referer_field.has_value() && Expect(line, &pos, " "),
                "the Referer field");
  const auto ua_field = Quoted(line, &pos);
  SK_FUZZ_CHECK(ua_field.has_value(), "the User-Agent field");
  SK_FUZZ_CHECK(pos == line.size(), "bytes after the last field");

  if (!r.request_line_complete) {
    SK_FUZZ_CHECK(*request == "-" && *referer_field == "-" && *ua_field == "-",
                  "a reply without a request line logs dashes");
    return;
  }
  const auto back = Unescape(*request);
  SK_FUZZ_CHECK(back.has_value(), "a backslash not followed by xHH");
  const std::string expected = std::string(r.method) + " " + target + " HTTP/" +
                               std::to_string(r.http_major) + "." +
                               std::to_string(r.http_minor);
  SK_FUZZ_CHECK(*back == expected, "the request field does not parse back");
  SK_FUZZ_CHECK(SameOrDash(*referer_field, referer),
                "the Referer does not parse back");
  SK_FUZZ_CHECK(SameOrDash(*ua_field, user_agent),
                "the User-Agent does not parse back");
}

}  // namespace
}  // namespace serverkit::http

SK_FUZZ_TARGET(serverkit::http::OneInput)
