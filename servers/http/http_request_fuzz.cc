// Fuzz target: the HTTP request parser and handler (http_handler.h's
// HttpHandler), fed arbitrary bytes split as TCP segments would split them.
//
// The input: one flags byte (bit 0: the handler records Referer and
// User-Agent; bit 1: feed byte by byte; bits 2-7: the number of split
// points k), then k 16-bit split points (each taken modulo the stream's
// length + 1; sorted; a repeated point feeds an empty segment), then the
// byte stream itself. The stream goes to one handler in a single `feed`
// call and to a second handler in the chosen segments (or byte by byte),
// with one more `feed` after the end when the second handler closed.
//
// The oracle:
//   - no crash or sanitizer report;
//   - the output of every `feed` call, on its own, is a sequence of whole,
//     well-formed HTTP/1.1 replies, every byte accounted for: a status line
//     `HTTP/1.1 NNN Reason\r\n`, header lines `Name: value\r\n` (token
//     names, visible values), `\r\n`, and then exactly Content-Length bytes
//     of body (Content-Length exactly once), except that a reply to HEAD has
//     no body and `HTTP/1.1 100 Continue\r\n\r\n` has neither headers nor
//     body and may only be the last reply of a `feed`'s output;
//   - every reply but 100 Continue is reported to that `feed`'s ReplyRecord
//     callback, in order, with the reply's status and its body length as
//     body_bytes (0 for HEAD); 200 only for GET or HEAD on /collect, 405 only
//     for another method on /collect, 404 only elsewhere; stats() counts the
//     same replies;
//   - 400, 414 and 431 carry `Connection: close`; a reply that carries it is
//     the last output of the connection (nothing after it, in that feed or
//     a later one), and should_close() is true exactly when the last reply
//     carried it;
//   - the split feeding gives the same replies, byte for byte, and the same
//     ReplyRecords (every field) as the single feed, once every
//     `100 Continue` is left out of both (http_handler.h: the one output
//     that depends on the split, sent when a feed ends between a head and
//     its body); the single feed sends at most one, at the very end.
//
// Mutant (SERVERKIT_FUZZ_MUTANT): the split feeding loses the last byte of a
// feed's output when the feed ends inside a line (not right after a line
// feed) and the connection stays open: the kind of slip a connection's
// output path makes when a partial read interleaves with a completed reply.
// Only a split inside a request that follows a completed one shows it; no
// seed or regression input has one (their split points follow a line feed,
// or come before any reply, or the connection closes).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "build/fuzz/fuzz.h"
#include "servers/http/http_handler.h"

namespace serverkit::http {
namespace {

using fuzz::ByteReader;
using fuzz::Printable;
using fuzz::Trace;

constexpr std::string_view kContinueReply = "HTTP/1.1 100 Continue\r\n\r\n";

// A ReplyRecord, copied out of its callback.
struct Record {
  bool request_line_complete = false;
  std::string method;
  std::string target;
  int http_major = 0;
  int http_minor = 0;
  int status = 0;
  std::size_t body_bytes = 0;
  std::string referer;
  std::string user_agent;

  bool operator==(const Record&) const = default;
};

std::string Describe(const Record& r) {
  return "status " + std::to_string(r.status) + ", body_bytes " +
         std::to_string(r.body_bytes) + ", " +
         (r.request_line_complete
              ? "\"" + r.method + " " + Printable(r.target) + " HTTP/" +
                    std::to_string(r.http_major) + "." +
                    std::to_string(r.http_minor) + "\""
              : std::string("no request line")) +
         ", referer \"" + Printable(r.referer) + "\", user agent \"" +
         Printable(r.user_agent) + "\"";
}

// One handler, fed and checked feed by feed.
class Connection {
 public:
  explicit Connection(bool record_log_headers) : handler_(record_log_headers) {}

  // Feeds `in`, checks that call's output, and returns it.
  std::string feed(std::string_view in) {
    std::string out;
    const std::size_t first_record = records_.size();
    const bool was_closed = handler_.should_close();
    handler_.feed(in, &out, [this](const ReplyRecord& r) {
      Record c;
      c.request_line_complete = r.request_line_complete;
      c.method = r.method;
      c.target = r.target;
      c.http_major = r.http_major;
      c.http_minor = r.http_minor;
      c.status = r.status;
      c.body_bytes = r.body_bytes;
      c.referer = r.referer;
      c.user_agent = r.user_agent;
      records_.push_back(std::move(c));
    });
#ifdef SERVERKIT_FUZZ_MUTANT
    if (mutant_cut_ && !out.empty() && !handler_.should_close()) {
      out.pop_back();  // the planted bug
    }
#endif
    if (!out.empty() || records_.size() > first_record) {
      Trace::add("  -> " + std::to_string(records_.size() - first_record) +
                 " records, output \"" + Printable(out, 600) + "\"");
    }
    if (was_closed) {
      SK_FUZZ_CHECK(out.empty() && records_.size() == first_record,
                    "output after the connection closed");
    }
    SK_FUZZ_CHECK(!closing_seen_ || out.empty(),
                  "output after a reply with Connection: close");
    CheckReplies(out, first_record);
    SK_FUZZ_CHECK(handler_.stats().requests == records_.size(),
                  "stats().requests is not the number of replies");
    SK_FUZZ_CHECK(handler_.should_close() == closing_seen_,
                  "should_close() is not whether the last reply closes");
    return out;
  }

  bool closed() const { return handler_.should_close(); }
  const std::vector<Record>& records() const { return records_; }
  // Every reply made, less the 100 Continue ones.
  const std::string& final_replies() const { return final_replies_; }
  std::size_t continues() const { return continues_; }
  const HandlerStats& stats() const { return handler_.stats(); }

#ifdef SERVERKIT_FUZZ_MUTANT
  void set_mutant_cut(bool cut) { mutant_cut_ = cut; }
#endif

 private:
  // `out`, one feed's output: whole replies, matched with the records from
  // `first_record` on.
  void CheckReplies(std::string_view out, std::size_t record) {
    std::size_t pos = 0;
    while (pos < out.size()) {
      SK_FUZZ_CHECK(!closing_seen_,
                    "a reply after a reply with Connection: close");
      const std::size_t start = pos;
      if (out.substr(pos, kContinueReply.size()) == kContinueReply) {
        pos += kContinueReply.size();
        SK_FUZZ_CHECK(pos == out.size(),
                      "100 Continue is not the last reply of its feed");
        ++continues_;
        break;
      }
      const int status = StatusLine(out, &pos);
      SK_FUZZ_CHECK(status >= 200, "a 1xx reply other than 100 Continue");
      long content_length = -1;
      bool close = false;
      for (;;) {
        const std::size_t eol = out.find("\r\n", pos);
        SK_FUZZ_CHECK(eol != std::string_view::npos,
                      "a header line without CRLF");
        const std::string_view line = out.substr(pos, eol - pos);
        pos = eol + 2;
        if (line.empty()) break;
        HeaderLine(line, &content_length, &close);
      }
      SK_FUZZ_CHECK(content_length >= 0, "a reply without Content-Length");
      SK_FUZZ_CHECK(record < records_.size(), "a reply without a ReplyRecord");
      const Record& r = records_[record++];
      SK_FUZZ_CHECK(r.status == status,
                    "the record's status is not the "
                    "reply's");
      const bool head = r.request_line_complete && r.method == "HEAD";
      const std::size_t body =
          head ? 0 : static_cast<std::size_t>(content_length);
      SK_FUZZ_CHECK(out.size() - pos >= body, "a reply's body is cut short");
      pos += body;
      SK_FUZZ_CHECK(r.body_bytes == body,
                    "the record's body_bytes is not the body sent");
      CheckRoute(r);
      if (status == 400 || status == 414 || status == 431) {
        SK_FUZZ_CHECK(close, "an error reply without Connection: close");
      }
      if (close) closing_seen_ = true;
      final_replies_.append(out.substr(start, pos - start));
    }
    SK_FUZZ_CHECK(record == records_.size(),
                  "a ReplyRecord without a reply in the output");
  }

  // `HTTP/1.1 NNN Reason\r\n` at *pos; returns NNN.
  static int StatusLine(std::string_view out, std::size_t* pos) {
    const std::size_t eol = out.find("\r\n", *pos);
    SK_FUZZ_CHECK(eol != std::string_view::npos, "a status line without CRLF");
    const std::string_view line = out.substr(*pos, eol - *pos);
    *pos = eol + 2;
    SK_FUZZ_CHECK(
        line.size() > 13 && line.substr(0, 9) == "HTTP/1.1 " && line[12] == ' ',
        "a malformed status line");
    int status = 0;
    for (std::size_t i = 9; i < 12; ++i) {
      SK_FUZZ_CHECK(line[i] >= '0' && line[i] <= '9',
                    "a status code that is not three digits");
      status = status * 10 + (line[i] - '0');
    }
    SK_FUZZ_CHECK(status >= 100 && status <= 599, "a status out of range");
    for (const char c : line.substr(13)) {
      SK_FUZZ_CHECK(c >= 0x20 && c < 0x7f, "a reason phrase byte");
    }
    return status;
  }

  static void HeaderLine(std::string_view line, long* content_length,
                         bool* close) {
    const std::size_t colon = line.find(": ");
    SK_FUZZ_CHECK(colon != std::string_view::npos && colon > 0,
                  "a header line without `name: `");
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = line.substr(colon + 2);
    for (const char c : name) {
      const bool token = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                         (c >= '0' && c <= '9') || c == '-';
      SK_FUZZ_CHECK(token, "a header name byte");
    }
    for (const char c : value) {
      SK_FUZZ_CHECK(c >= 0x20 && c < 0x7f, "a header value byte");
    }
    if (name == "Content-Length") {
      SK_FUZZ_CHECK(*content_length < 0, "two Content-Length fields");
      SK_FUZZ_CHECK(!value.empty() && value.size() < 10,
                    "a Content-Length value's size");
      long n = 0;
      for (const char c : value) {
        SK_FUZZ_CHECK(c >= '0' && c <= '9', "a Content-Length digit");
        n = n * 10 + (c - '0');
      }
      *content_length = n;
    }
    if (name == "Connection" && value == "close") *close = true;
  }

  // The status against the route (http_handler.h).
  static void CheckRoute(const Record& r) {
    if (!r.request_line_complete) {
      SK_FUZZ_CHECK(r.status >= 400 && r.method.empty(),
                    "a non-error reply without a request line");
      return;
    }
    const std::string_view target = r.target;
    const bool collect = target.substr(0, target.find('?')) == kCollectPath;
    const bool get = r.method == "GET" || r.method == "HEAD";
    if (r.status == 200) SK_FUZZ_CHECK(collect && get, "200 off the route");
    if (r.status == 405) SK_FUZZ_CHECK(collect && !get, "405 off the route");
    if (r.status == 404) SK_FUZZ_CHECK(!collect, "404 on /collect");
  }

  HttpHandler handler_;
  std::vector<Record> records_;
  std::string final_replies_;
  std::size_t continues_ = 0;
  bool closing_seen_ = false;
#ifdef SERVERKIT_FUZZ_MUTANT
  bool mutant_cut_ = false;
#endif
};

void OneInput(ByteReader& in) {
  const std::uint8_t flags = in.u8();
  const bool record_log_headers = (flags & 1) != 0;
  const bool byte_by_byte = (flags & 2) != 0;
  std::vector<std::size_t> splits(flags >> 2);
  for (std::size_t& s : splits) s = in.u16();
  const std::string_view stream = in.rest();
  for (std::size_t& s : splits) s %= stream.size() + 1;
  std::sort(splits.begin(), splits.end());
  if (byte_by_byte) {
    splits.clear();
    for (std::size_t i = 1; i < stream.size(); ++i) splits.push_back(i);
  }
  splits.push_back(stream.size());
  Trace::add(std::string("record_log_headers ") +
             (record_log_headers ? "1" : "0") + ", stream \"" +
             Printable(stream, 2000) + "\"");

  Connection whole(record_log_headers);
  Trace::add("whole: feed all " + std::to_string(stream.size()) + " bytes");
  whole.feed(stream);
  SK_FUZZ_CHECK(whole.continues() <= 1,
                "more than one 100 Continue in one "
                "feed");

  Connection split(record_log_headers);
  std::size_t from = 0;
  for (const std::size_t to : splits) {
    const std::string_view segment = stream.substr(from, to - from);
    Trace::add("split: feed [" + std::to_string(from) + ", " +
               std::to_string(to) + ") \"" + Printable(segment) + "\"");
#ifdef SERVERKIT_FUZZ_MUTANT
    split.set_mutant_cut(to > 0 && to < stream.size() &&
                         stream[to - 1] != '\n');
#endif
    split.feed(segment);
    from = to;
  }
  if (split.closed()) {
    Trace::add("split: feed after the close");
    split.feed(stream.empty() ? std::string_view("x") : stream.substr(0, 1));
  }

  SK_FUZZ_CHECK(split.final_replies() == whole.final_replies(),
                "the replies depend on how the input is split");
  if (split.records() != whole.records()) {
    for (const Record& r : whole.records()) {
      Trace::add("whole record: " + Describe(r));
    }
    for (const Record& r : split.records()) {
      Trace::add("split record: " + Describe(r));
    }
  }
  SK_FUZZ_CHECK(split.records() == whole.records(),
                "the ReplyRecords depend on how the input is split");
  SK_FUZZ_CHECK(split.closed() == whole.closed(),
                "should_close() depends on how the input is split");
  const HandlerStats& a = whole.stats();
  const HandlerStats& b = split.stats();
  SK_FUZZ_CHECK(a.ok == b.ok && a.not_found == b.not_found &&
                    a.bad_method == b.bad_method &&
                    a.bad_request == b.bad_request &&
                    a.head_too_large == b.head_too_large &&
                    a.uri_too_long == b.uri_too_long,
                "the stats depend on how the input is split");
  SK_FUZZ_CHECK(a.ok + a.not_found + a.bad_method + a.bad_request +
                        a.head_too_large + a.uri_too_long ==
                    a.requests,
                "a reply's status is not counted");
}

}  // namespace
}  // namespace serverkit::http

SK_FUZZ_TARGET(serverkit::http::OneInput)
