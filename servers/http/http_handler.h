// -----------------------------------------------------------------------------
// servers/http/http_handler.h
// -----------------------------------------------------------------------------
//
// `HttpHandler`: the HTTP/1.1 side of one connection of the HTTP benchmark's
// server, independent of sockets. Bytes go in (`feed`), responses come out
// (appended to a string), and `should_close()` says that the connection is
// to be half-closed once they are sent. Requests are parsed by Node's
// http-parser (Debian's libhttp-parser-dev, 2.9).
//
//   - `GET /collect` (any query, e.g. `/collect?v=1`) answers 200 with
//     `kCollectBody` (application/json) and a Content-Length. Another method
//     on /collect answers 405; any other path 404. Both keep the connection.
//   - `GET /work` (any query), once `enable_work_route()` was called, is
//     answered by the caller, which may compute the reply elsewhere: `feed`
//     stops right after that request and returns how many bytes it consumed,
//     `work_pending()` turns true, and nothing more is parsed (the caller
//     keeps the rest of its input) until `complete_work` appends the reply.
//     So pipelined requests behind it are answered in order, after it.
//     Another method on /work answers 405. Without the route, /work is 404.
//   - A reply to HEAD has the headers the GET would get (its Content-Length
//     included) and no body, on every route and status.
//   - An HTTP/1.1 (or later) request needs exactly one Host field; none, two,
//     or whitespace between a field name and its colon answers 400.
//   - `Expect: 100-continue` on an HTTP/1.1 request with a body: once its
//     head is parsed, if none of the body has come with it,
//     `HTTP/1.1 100 Continue` goes out at the end of that `feed`; the final
//     reply follows once the body is consumed.
//   - Keep-alive follows HTTP: HTTP/1.1 keeps the connection unless the
//     request says `Connection: close`; HTTP/1.0 closes it unless the request
//     says `Connection: keep-alive`. A closing reply carries
//     `Connection: close`, and nothing after that request is answered.
//   - Pipelined requests are answered in order, each once its body (by
//     Content-Length or chunked) has been consumed.
//   - A malformed request answers 400 and closes. A request head (request
//     line, headers and the blank line, counted here byte by byte) over
//     `kMaxHeadBytes` answers 431 and closes, or 414 when the request line
//     alone is over it; http-parser's own 80 KiB limit is never reached.
//   - The output for a given input does not depend on how the input is split
//     across `feed` calls, except for the 100 Continue above (sent only when
//     a feed ends between the head and the body).
//
// Where this is looser than RFC 9112, on purpose (the benchmark's clients
// never go there, and http-parser accepts them):
//   - an HTTP/0.9 request line (`GET /collect`, no version) is parsed as
//     version 0.9 and answered with an HTTP/1.1 reply that closes, not with
//     a bare body;
//   - any single-digit version (HTTP/1.2, HTTP/2.0) is answered, never 505:
//     1.x with x >= 1 as HTTP/1.1, others with HTTP/1.0's keep-alive rule;
//   - obs-fold (a header line starting with whitespace) is accepted and
//     joined to the previous value, not answered 400.
//
// Every reply is reported to the `on_reply` callback of the `feed` call that
// produced it (the access log), with the request line's parts and, when the
// handler was built with `record_log_headers`, the Referer and User-Agent.
// A request that fails inside its head (400) is reported with its request
// line once that line's line feed has been read, and with no Referer or
// User-Agent (either may be cut short). Like the replies, the reports do
// not depend on how the input is split.
//
// Thread-safety: none; one handler belongs to one connection (its loop
// thread).

#ifndef SERVERKIT_SERVERS_HTTP_HTTP_HANDLER_H_
#define SERVERKIT_SERVERS_HTTP_HTTP_HANDLER_H_

#include <http_parser.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace serverkit::http {

// The body every server of the benchmark answers to /collect.
inline constexpr std::string_view kCollectBody = R"({"ok":true})";
inline constexpr std::string_view kCollectPath = "/collect";
// The route whose reply the caller computes (servers/http/work.h).
inline constexpr std::string_view kWorkPath = "/work";

// The largest request head answered; one byte more gets 431 (414 when the
// request line alone is longer).
inline constexpr std::size_t kMaxHeadBytes = 8 * 1024;

// Appends `in` to `*out` escaped as nginx escapes $request, $http_referer
// and $http_user_agent in an access log: `"`, `\` and bytes below 0x20 or
// from 0x7f up become `\xHH` (uppercase hex).
void AppendLogEscaped(std::string_view in, std::string* out);

// `in` ready for a quoted access-log field: itself when nothing in it needs
// escaping (the usual case, no copy), else escaped into `*buf`.
std::string_view LogEscaped(std::string_view in, std::string* buf);

// "-" for an empty field, as nginx logs an absent Referer or User-Agent.
inline std::string_view OrDash(std::string_view s) {
  return s.empty() ? "-" : s;
}

// The access-log line after the logger's prefix, nginx's "combined" format:
// $remote_addr - - [$time_local] "$request" $status $body_bytes_sent
// "$http_referer" "$http_user_agent". Its arguments: the address, the time,
// the method, LogEscaped(target), major, minor, status, body bytes, then
// OrDash(LogEscaped(referer)) and OrDash(LogEscaped(user agent)).
inline constexpr char kAccessLogFormat[] =
    "{} - - [{}] \"{} {} HTTP/{}.{}\" {} {} \"{}\" \"{}\"";
// A reply to a request line that was not understood: address, time, status
// and body bytes.
inline constexpr char kAccessLogFormatNoRequest[] =
    "{} - - [{}] \"-\" {} {} \"-\" \"-\"";

// One reply, for the access log. The views are valid during the callback.
struct ReplyRecord {
  std::string_view method;  // "GET"; empty when the request line was bad
  std::string_view target;  // "/collect?v=1"
  int http_major = 1;
  int http_minor = 1;
  bool request_line_complete = false;  // method, target and version known
  int status = 0;
  std::size_t body_bytes = 0;   // $body_bytes_sent
  std::string_view referer;     // empty when absent or not recorded
  std::string_view user_agent;  // likewise
};

using ReplyCallback = std::function<void(const ReplyRecord&)>;

// Counters of one handler.
struct HandlerStats {
  std::uint64_t requests = 0;  // replies made, errors included
  std::uint64_t ok = 0;        // 200
  std::uint64_t not_found = 0;
  std::uint64_t bad_method = 0;
  std::uint64_t bad_request = 0;
  std::uint64_t head_too_large = 0;  // 431
  std::uint64_t uri_too_long = 0;    // 414
  std::uint64_t unavailable = 0;     // 503: /work could not be computed
};

class HttpHandler {
 public:
  // `record_log_headers`: keep Referer and User-Agent for ReplyRecord.
  explicit HttpHandler(bool record_log_headers = false);

  HttpHandler(const HttpHandler&) = delete;
  HttpHandler& operator=(const HttpHandler&) = delete;

  // Consumes `in` and appends the replies it completes to `*out`; returns
  // the bytes consumed: all of `in`, unless a /work request (with the route
  // enabled) completes inside it, when it stops right after that request,
  // or one is pending already (0). Once should_close() is true, further
  // input is ignored (and counts as consumed).
  std::size_t feed(std::string_view in, std::string* out,
                   const ReplyCallback& on_reply = {});

  // Answers GET and HEAD /work through work_pending() / complete_work.
  void enable_work_route() { work_route_ = true; }
  // A /work request is complete and waits for complete_work.
  bool work_pending() const { return work_pending_; }
  // The reply to the pending /work request: 200 with `body`
  // (application/json; HEAD gets its headers only), or with `status` 503 the
  // fixed error body (the work could not be run). Then feed goes on.
  void complete_work(int status, std::string_view body, std::string* out,
                     const ReplyCallback& on_reply = {});

  // The last reply made closes the connection: send `*out`, then half-close.
  bool should_close() const { return closed_; }

  const HandlerStats& stats() const { return stats_; }

 private:
  static int OnMessageBegin(http_parser* p);
  static int OnUrl(http_parser* p, const char* at, std::size_t len);
  static int OnHeaderField(http_parser* p, const char* at, std::size_t len);
  static int OnHeaderValue(http_parser* p, const char* at, std::size_t len);
  static int OnHeadersComplete(http_parser* p);
  static int OnBody(http_parser* p, const char* at, std::size_t len);
  static int OnMessageComplete(http_parser* p);
  static const http_parser_settings kSettings;

  void reset_request();
  // The header field just read is complete; false when it is malformed.
  bool end_field();
  // `body`: the 200 reply's body (null: kCollectBody or the error body).
  void reply(int status, bool close, std::string* out,
             const ReplyCallback& on_reply,
             const std::string_view* body = nullptr);
  // After a reply: the next request's head is counted from its first byte.
  void end_request();

  http_parser parser_;
  const bool record_log_headers_;
  bool closed_ = false;
  bool work_route_ = false;
  bool work_pending_ = false;
  // Between requests, or inside a request's head: its bytes count.
  bool in_head_ = true;
  std::size_t head_bytes_ = 0;
  char last_head_byte_ = 0;  // tells a request line just ended (414 or 431)
  // The request being parsed.
  bool message_complete_ = false;
  bool request_line_complete_ = false;
  bool keep_alive_ = true;  // set when the message completes
  std::string url_;
  // Where the URL began in the buffer of the current http_parser_execute
  // call; null when it began in an earlier call (or has not begun).
  const char* url_begin_ = nullptr;
  std::string field_;             // the header name being read
  std::string* value_ = nullptr;  // where its value goes (null: dropped)
  bool last_was_value_ = false;
  int host_fields_ = 0;
  bool bad_field_name_ = false;  // whitespace before a colon
  std::string expect_;
  bool continue_pending_ = false;  // 100 Continue, unless the body comes
  bool body_seen_ = false;
  std::string referer_;
  std::string user_agent_;
  HandlerStats stats_;
};

}  // namespace serverkit::http

#endif  // SERVERKIT_SERVERS_HTTP_HTTP_HANDLER_H_
