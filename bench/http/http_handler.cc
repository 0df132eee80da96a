#include "bench/http/http_handler.h"

#include <strings.h>

#include <algorithm>

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
    case 431:
      return "Request Header Fields Too Large";
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
    case 431:
      return R"({"error":"request header fields too large"})";
    default:
      return R"({"error":"error"})";
  }
}

enum class ConnectionHeader { kNone, kKeepAlive, kClose };

void AppendResponse(int status, ConnectionHeader connection, std::string* out) {
  const std::string_view body = Body(status);
  out->append("HTTP/1.1 ");
  out->append(std::to_string(status));
  out->push_back(' ');
  out->append(Reason(status));
  out->append("\r\nServer: serverkit\r\nContent-Type: application/json\r\n");
  if (status == 405) out->append("Allow: GET\r\n");
  if (connection == ConnectionHeader::kClose)
    out->append("Connection: close\r\n");
  if (connection == ConnectionHeader::kKeepAlive) {
    out->append("Connection: keep-alive\r\n");
  }
  out->append("Content-Length: ");
  out->append(std::to_string(body.size()));
  out->append("\r\n\r\n");
  out->append(body);
}

// The usual reply, made once.
const std::string& OkKeepAliveResponse() {
  static const std::string response = [] {
    std::string s;
    AppendResponse(200, ConnectionHeader::kNone, &s);
    return s;
  }();
  return response;
}

bool NameIs(std::string_view name, std::string_view expected) {
  return name.size() == expected.size() &&
         strncasecmp(name.data(), expected.data(), name.size()) == 0;
}

}  // namespace

const http_parser_settings HttpHandler::kSettings = [] {
  http_parser_settings s;
  http_parser_settings_init(&s);
  s.on_message_begin = &HttpHandler::OnMessageBegin;
  s.on_url = &HttpHandler::OnUrl;
  s.on_header_field = &HttpHandler::OnHeaderField;
  s.on_header_value = &HttpHandler::OnHeaderValue;
  s.on_headers_complete = &HttpHandler::OnHeadersComplete;
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
  Self(p)->url_.append(at, len);
  return 0;
}

int HttpHandler::OnHeaderField(http_parser* p, const char* at,
                               std::size_t len) {
  HttpHandler* h = Self(p);
  h->request_line_complete_ = true;
  if (!h->record_log_headers_) return 0;
  if (h->last_was_value_) {
    h->field_.clear();
    h->last_was_value_ = false;
  }
  h->field_.append(at, len);
  return 0;
}

int HttpHandler::OnHeaderValue(http_parser* p, const char* at,
                               std::size_t len) {
  HttpHandler* h = Self(p);
  if (!h->record_log_headers_) return 0;
  if (!h->last_was_value_) {
    h->last_was_value_ = true;
    h->value_ = NameIs(h->field_, "referer")      ? &h->referer_
                : NameIs(h->field_, "user-agent") ? &h->user_agent_
                                                  : nullptr;
  }
  if (h->value_ != nullptr) h->value_->append(at, len);
  return 0;
}

int HttpHandler::OnHeadersComplete(http_parser* p) {
  HttpHandler* h = Self(p);
  h->request_line_complete_ = true;
  h->in_head_ = false;
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
                        const ReplyCallback& on_reply) {
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
    default:
      break;
  }
  const bool http10 = parser_.http_major == 1 && parser_.http_minor == 0;
  if (status == 200 && !close && !http10) {
    out->append(OkKeepAliveResponse());
  } else {
    AppendResponse(status,
                   close    ? ConnectionHeader::kClose
                   : http10 ? ConnectionHeader::kKeepAlive
                            : ConnectionHeader::kNone,
                   out);
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
    r.body_bytes = Body(status).size();
    r.referer = referer_;
    r.user_agent = user_agent_;
    on_reply(r);
  }
}

void HttpHandler::feed(std::string_view in, std::string* out,
                       const ReplyCallback& on_reply) {
  std::size_t pos = 0;
  while (pos < in.size() && !closed_) {
    std::size_t chunk = in.size() - pos;
    if (in_head_) {
      if (head_bytes_ >= kMaxHeadBytes) {
        reply(431, true, out, on_reply);
        return;
      }
      // Never past the limit within one call: a head that ends inside this
      // chunk is at most kMaxHeadBytes long.
      chunk = std::min(chunk, kMaxHeadBytes - head_bytes_);
    }
    const bool was_in_head = in_head_;
    message_complete_ = false;
    const std::size_t n =
        http_parser_execute(&parser_, &kSettings, in.data() + pos, chunk);
    if (was_in_head && in_head_) head_bytes_ += n;
    pos += n;
    const http_errno err = HTTP_PARSER_ERRNO(&parser_);
    if (message_complete_) {
      if (err == HPE_PAUSED) http_parser_pause(&parser_, 0);
      const std::string_view url = url_;
      const std::string_view path = url.substr(0, url.find('?'));
      int status = 404;
      if (path == kCollectPath) status = parser_.method == HTTP_GET ? 200 : 405;
      reply(status, !keep_alive_, out, on_reply);
      // Until the next request begins, nothing of this one is reported
      // (a request that fails before its first byte parses gets "-").
      reset_request();
      in_head_ = true;
      head_bytes_ = 0;
      continue;
    }
    if (err != HPE_OK || n < chunk) {
      // A malformed request (or one the parser stopped on, such as an
      // upgrade without a complete message): 400 and close.
      reply(400, true, out, on_reply);
      return;
    }
  }
}

}  // namespace serverkit::http
