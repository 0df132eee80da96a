#include "servers/http/http_handler.h"

#include <strings.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace serverkit::http {
namespace {

HttpHandler* Self(http_parser* p) { return static_cast<HttpHandler*>(p->data); }

std::string_view Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

std::string_view Body(int status) {
  switch (status) {
    case 200:
      return kCollectBody;
    case 400:
      return R"({"error":"bad request"})";
    case 404:
      return R"({"error":"not found"})";
    case 405:
      return R"({"error":"method not allowed"})";
    case 414:
      return R"({"error":"uri too long"})";
    case 431:
      return R"({"error":"request header fields too large"})";
    case 503:
      return R"({"error":"service unavailable"})";
    default:
      return R"({"error":"error"})";
  }
}

enum class ConnectionHeader { kNone, kKeepAlive, kClose };

// `head`: a reply to HEAD, the GET's headers without the body.
void AppendResponse(int status, std::string_view body,
                    ConnectionHeader connection, bool head, std::string* out) {
  out->append("HTTP/1.1 ");
  out->append(std::to_string(status));
  out->push_back(' ');
  out->append(Reason(status));
  out->append("\r\nServer: serverkit\r\nContent-Type: application/json\r\n");
  if (status == 405) out->append("Allow: GET, HEAD\r\n");
  if (connection == ConnectionHeader::kClose)
    out->append("Connection: close\r\n");
  if (connection == ConnectionHeader::kKeepAlive) {
    out->append("Connection: keep-alive\r\n");
  }
  out->append("Content-Length: ");
  out->append(std::to_string(body.size()));
  out->append("\r\n\r\n");
  if (!head) out->append(body);
}

// The usual reply, made once.
const std::string& OkKeepAliveResponse() {
  static const std::string response = [] {
    std::string s;
    AppendResponse(200, Body(200), ConnectionHeader::kNone, /*head=*/false, &s);
    return s;
  }();
  return response;
}

bool NameIs(std::string_view name, std::string_view expected) {
  return name.size() == expected.size() &&
         strncasecmp(name.data(), expected.data(), name.size()) == 0;
}

bool HasWhitespace(std::string_view s) {
  return s.find_first_of(" \t") != std::string_view::npos;
}

// HTTP/1.1 or later: Host is required, 100 Continue may be sent.
bool AtLeast11(const http_parser* p) {
  return p->http_major > 1 || (p->http_major == 1 && p->http_minor >= 1);
}

}  // namespace

void AppendLogEscaped(std::string_view in, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char ch : in) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
      const char escaped[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 0xf]};
      out->append(escaped, sizeof(escaped));
    } else {
      out->push_back(ch);
    }
  }
}

std::string_view LogEscaped(std::string_view in, std::string* buf) {
  const bool clean = std::all_of(in.begin(), in.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (clean) return in;
  buf->clear();
  AppendLogEscaped(in, buf);
  return *buf;
}

const http_parser_settings HttpHandler::kSettings = [] {
  http_parser_settings s;
  http_parser_settings_init(&s);
  s.on_message_begin = &HttpHandler::OnMessageBegin;
  s.on_url = &HttpHandler::OnUrl;
  s.on_header_field = &HttpHandler::OnHeaderField;
  s.on_header_value = &HttpHandler::OnHeaderValue;
  s.on_headers_complete = &HttpHandler::OnHeadersComplete;
  s.on_body = &HttpHandler::OnBody;
  s.on_message_complete = &HttpHandler::OnMessageComplete;
  return s;
}();

HttpHandler::HttpHandler(bool record_log_headers)
    : record_log_headers_(record_log_headers) {
  http_parser_init(&parser_, HTTP_REQUEST);
  parser_.data = this;
}

void HttpHandler::reset_request() {
  url_.clear();
  field_.clear();
  value_ = nullptr;
  last_was_value_ = false;
  host_fields_ = 0;
  bad_field_name_ = false;
  expect_.clear();
  continue_pending_ = false;
  body_seen_ = false;
  request_line_complete_ = false;
  keep_alive_ = true;
  referer_.clear();
  user_agent_.clear();
}

int HttpHandler::OnMessageBegin(http_parser* p) {
  Self(p)->reset_request();
  return 0;
}

int HttpHandler::OnUrl(http_parser* p, const char* at, std::size_t len) {
  HttpHandler* h = Self(p);
  if (h->url_.empty() && len > 0) h->url_begin_ = at;
  h->url_.append(at, len);
  return 0;
}

// Header names are kept whatever record_log_headers_ says: Host and Expect
// are needed on every request.
int HttpHandler::OnHeaderField(http_parser* p, const char* at,
                               std::size_t len) {
  HttpHandler* h = Self(p);
  h->request_line_complete_ = true;
  if (h->last_was_value_) {
    h->field_.clear();
    h->last_was_value_ = false;
  }
  h->field_.append(at, len);
  return 0;
}

bool HttpHandler::end_field() {
  // http-parser takes "Host : x" as a field named "Host " (RFC 9112 5.1:
  // reject, else the name is ambiguous).
  if (HasWhitespace(field_)) bad_field_name_ = true;
  if (NameIs(field_, "host")) ++host_fields_;
  return !bad_field_name_;
}

int HttpHandler::OnHeaderValue(http_parser* p, const char* at,
                               std::size_t len) {
  HttpHandler* h = Self(p);
  if (!h->last_was_value_) {
    h->last_was_value_ = true;
    if (!h->end_field()) return -1;
    // Trailers (after the head of a chunked body) are not the request's
    // headers: they never reach the access log, as in nginx, nor Expect.
    const bool log = h->record_log_headers_;
    h->value_ = !h->in_head_                             ? nullptr
                : NameIs(h->field_, "expect")            ? &h->expect_
                : log && NameIs(h->field_, "referer")    ? &h->referer_
                : log && NameIs(h->field_, "user-agent") ? &h->user_agent_
                                                         : nullptr;
  }
  if (h->value_ != nullptr) h->value_->append(at, len);
  return 0;
}

int HttpHandler::OnHeadersComplete(http_parser* p) {
  HttpHandler* h = Self(p);
  h->request_line_complete_ = true;
  h->in_head_ = false;
  // A name with no value callback (not seen from http-parser 2.9).
  if (!h->last_was_value_ && !h->field_.empty() && !h->end_field()) return -1;
  if (AtLeast11(p) && h->host_fields_ != 1) return -1;
  const bool has_body =
      (p->flags & F_CHUNKED) != 0 ||
      (p->content_length > 0 && p->content_length != ULLONG_MAX);
  h->continue_pending_ =
      has_body && AtLeast11(p) && NameIs(h->expect_, "100-continue");
  return 0;
}

int HttpHandler::OnBody(http_parser* p, const char*, std::size_t) {
  Self(p)->body_seen_ = true;
  return 0;
}

int HttpHandler::OnMessageComplete(http_parser* p) {
  HttpHandler* h = Self(p);
  h->message_complete_ = true;
  h->keep_alive_ = http_should_keep_alive(p) != 0 && !p->upgrade;
  // Stop right after this message: its reply comes before the next one's,
  // and the next request's head is counted from its first byte.
  http_parser_pause(p, 1);
  return 0;
}

void HttpHandler::reply(int status, bool close, std::string* out,
                        const ReplyCallback& on_reply,
                        const std::string_view* body) {
  ++stats_.requests;
  switch (status) {
    case 200:
      ++stats_.ok;
      break;
    case 404:
      ++stats_.not_found;
      break;
    case 405:
      ++stats_.bad_method;
      break;
    case 400:
      ++stats_.bad_request;
      break;
    case 431:
      ++stats_.head_too_large;
      break;
    case 414:
      ++stats_.uri_too_long;
      break;
    case 503:
      ++stats_.unavailable;
      break;
    default:
      break;
  }
  const bool http10 = parser_.http_major == 1 && parser_.http_minor == 0;
  const bool head = request_line_complete_ && parser_.method == HTTP_HEAD;
  const std::string_view content = body != nullptr ? *body : Body(status);
  if (status == 200 && body == nullptr && !close && !http10 && !head) {
    out->append(OkKeepAliveResponse());
  } else {
    AppendResponse(status, content,
                   close    ? ConnectionHeader::kClose
                   : http10 ? ConnectionHeader::kKeepAlive
                            : ConnectionHeader::kNone,
                   head, out);
  }
  if (close) closed_ = true;
  if (on_reply) {
    ReplyRecord r;
    r.request_line_complete = request_line_complete_;
    if (request_line_complete_) {
      r.method = http_method_str(static_cast<http_method>(parser_.method));
      r.target = url_;
      r.http_major = parser_.http_major;
      r.http_minor = parser_.http_minor;
    }
    r.status = status;
    r.body_bytes = head ? 0 : content.size();
    r.referer = referer_;
    r.user_agent = user_agent_;
    on_reply(r);
  }
}

void HttpHandler::end_request() {
  // Until the next request begins, nothing of this one is reported (a
  // request that fails before its first byte parses gets "-").
  reset_request();
  in_head_ = true;
  head_bytes_ = 0;
  last_head_byte_ = 0;
}

void HttpHandler::complete_work(int status, std::string_view body,
                                std::string* out,
                                const ReplyCallback& on_reply) {
  if (!work_pending_) return;
  work_pending_ = false;
  reply(status, !keep_alive_, out, on_reply, status == 200 ? &body : nullptr);
  end_request();
}

std::size_t HttpHandler::feed(std::string_view in, std::string* out,
                              const ReplyCallback& on_reply) {
  if (work_pending_) return 0;
  std::size_t pos = 0;
  while (pos < in.size() && !closed_) {
    std::size_t chunk = in.size() - pos;
    if (in_head_) {
      if (head_bytes_ >= kMaxHeadBytes) {
        // Still inside the request line (no header field begun, and not
        // right after its line feed): the target is what is too long.
        const bool line_done =
            request_line_complete_ || last_head_byte_ == '\n';
        reply(line_done ? 431 : 414, true, out, on_reply);
        return in.size();
      }
      // Never past the limit within one call: a head that ends inside this
      // chunk is at most kMaxHeadBytes long.
      chunk = std::min(chunk, kMaxHeadBytes - head_bytes_);
    }
    const bool was_in_head = in_head_;
    message_complete_ = false;
    url_begin_ = nullptr;
    const std::size_t n =
        http_parser_execute(&parser_, &kSettings, in.data() + pos, chunk);
    if (was_in_head && in_head_) {
      head_bytes_ += n;
      if (n > 0) last_head_byte_ = in[pos + n - 1];
    }
    // The request line is complete once its line feed is consumed, whether
    // or not a header field has been reported yet (http-parser reports a
    // field's first bytes at the end of a call, or not at all when the
    // field turns out malformed within the same call: split-dependent).
    if (!request_line_complete_ && !url_.empty()) {
      const char* from = url_begin_ != nullptr ? url_begin_ : in.data() + pos;
      const char* end = in.data() + pos + n;
      if (from < end && std::memchr(from, '\n', end - from) != nullptr) {
        request_line_complete_ = true;
      }
    }
    pos += n;
    const http_errno err = HTTP_PARSER_ERRNO(&parser_);
    if (message_complete_) {
      if (err == HPE_PAUSED) http_parser_pause(&parser_, 0);
      const std::string_view url = url_;
      const std::string_view path = url.substr(0, url.find('?'));
      const bool get =
          parser_.method == HTTP_GET || parser_.method == HTTP_HEAD;
      int status = 404;
      if (path == kCollectPath) {
        status = get ? 200 : 405;
      } else if (path == kWorkPath && work_route_) {
        if (get) {
          // The caller answers (complete_work); the rest of `in` waits.
          work_pending_ = true;
          return pos;
        }
        status = 405;
      }
      reply(status, !keep_alive_, out, on_reply);
      end_request();
      continue;
    }
    if (continue_pending_ && (body_seen_ || err != HPE_OK)) {
      continue_pending_ = false;  // the client did not wait for it
    }
    if (continue_pending_ && err == HPE_OK && pos == in.size()) {
      continue_pending_ = false;
      out->append("HTTP/1.1 100 Continue\r\n\r\n");
    }
    if (err != HPE_OK || n < chunk) {
      // A malformed request (or one the parser stopped on, such as an
      // upgrade without a complete message): 400 and close. Failing inside
      // its head, a Referer or User-Agent may be cut anywhere, at a point
      // that depends on how the input was split: neither is reported.
      if (in_head_) {
        referer_.clear();
        user_agent_.clear();
      }
      reply(400, true, out, on_reply);
      return in.size();
    }
  }
  return in.size();
}

}  // namespace serverkit::http
