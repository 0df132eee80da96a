#include "servers/loadgen/http_response.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace serverkit::loadgen {
namespace {

constexpr std::string_view kEndOfHead = "\r\n\r\n";

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// RFC 9110 token characters (a header name).
bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) continue;
    if (std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

std::string Printable(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 60)) {
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  }
  return out;
}

}  // namespace

std::string HttpResponseReader::ParseHead(std::string_view head) {
  head.remove_suffix(2);  // the blank line's CRLF; every line ends in CRLF
  std::size_t eol = head.find("\r\n");
  const std::string_view status = head.substr(0, eol);
  // HTTP/1.x SP 3DIGIT [SP reason]
  if (status.size() < 12 || status.substr(0, 7) != "HTTP/1." ||
      !IsDigit(status[7]) || status[8] != ' ' || !IsDigit(status[9]) ||
      !IsDigit(status[10]) || !IsDigit(status[11]) ||
      (status.size() > 12 && status[12] != ' ')) {
    return "malformed status line \"" + Printable(status) + "\"";
  }
  if (status[9] != '2') {
    return "HTTP status " + std::string(status.substr(9, 3));
  }
  bool have_length = false;
  std::uint64_t length = 0;
  std::size_t pos = eol + 2;
  while (pos < head.size()) {
    eol = head.find("\r\n", pos);
    const std::string_view line = head.substr(pos, eol - pos);
    pos = eol + 2;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      return "malformed header line \"" + Printable(line) + "\"";
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = Trim(line.substr(colon + 1));
    if (EqualsIgnoreCase(name, "transfer-encoding")) {
      return "Transfer-Encoding \"" + Printable(value) +
             "\" (only Content-Length bodies are timed)";
    }
    if (!EqualsIgnoreCase(name, "content-length")) continue;
    std::uint64_t v = 0;
    const auto [end, ec] =
        std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc() ||
        end != value.data() + value.size() || v > (std::uint64_t{1} << 62)) {
      return "bad Content-Length \"" + Printable(value) + "\"";
    }
    if (have_length && v != length) return "conflicting Content-Length";
    have_length = true;
    length = v;
  }
  if (!have_length) return "response without Content-Length";
  body_left_ = length;
  in_body_ = length > 0;
  return "";
}

FeedResult HttpResponseReader::Feed(std::string_view data) {
  FeedResult r;
  if (!broken_.empty()) {
    r.error = broken_;
    return r;
  }
  while (!data.empty()) {
    if (in_body_) {
      const std::uint64_t take =
          std::min<std::uint64_t>(body_left_, data.size());
      data.remove_prefix(static_cast<std::size_t>(take));
      body_left_ -= take;
      if (body_left_ == 0) {
        in_body_ = false;
        ++r.completed;
      }
      continue;
    }
    std::string err;
    if (head_.empty()) {
      // The common case: the head lies whole in this piece; parse in place.
      const std::size_t end = data.find(kEndOfHead);
      if (end != std::string_view::npos && end + 4 <= kMaxHead) {
        err = ParseHead(data.substr(0, end + 4));
        data.remove_prefix(end + 4);
      } else if (end == std::string_view::npos && data.size() < kMaxHead) {
        head_.assign(data);
        return r;
      } else {
        err = "response head over 16 KiB";
      }
    } else {
      // A head split across pieces: the end marker may straddle them.
      const std::size_t old = head_.size();
      const std::size_t n = std::min(data.size(), kMaxHead - old);
      head_.append(data.substr(0, n));
      const std::size_t end = head_.find(kEndOfHead, old < 3 ? 0 : old - 3);
      if (end != std::string::npos) {
        err = ParseHead(std::string_view(head_).substr(0, end + 4));
        data.remove_prefix(end + 4 - old);
        head_.clear();
      } else if (head_.size() >= kMaxHead) {
        err = "response head over 16 KiB";
      } else {
        return r;
      }
    }
    if (!err.empty()) {
      broken_ = err;
      r.error = std::move(err);
      return r;
    }
    if (!in_body_) ++r.completed;  // Content-Length: 0
  }
  return r;
}

}  // namespace serverkit::loadgen
