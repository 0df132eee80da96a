#include "bench/harness/json.h"

#include <cmath>
#include <cstdio>

namespace serverkit::bench {

JsonValue::JsonValue(double v) {
  if (!std::isfinite(v)) {
    text_ = "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  text_ = buf;
}

JsonValue::JsonValue(std::string_view s) {
  text_.reserve(s.size() + 2);
  text_ += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        text_ += "\\\"";
        break;
      case '\\':
        text_ += "\\\\";
        break;
      case '\n':
        text_ += "\\n";
        break;
      case '\t':
        text_ += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          text_ += buf;
        } else {
          text_ += c;
        }
    }
  }
  text_ += '"';
}

JsonValue JsonValue::Object(const JsonFields& fields) {
  std::string out = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += JsonValue(fields[i].first).text();
    out += ": ";
    out += fields[i].second.text();
  }
  out += "}";
  return JsonValue(Raw{}, std::move(out));
}

JsonValue JsonValue::Array(const std::vector<JsonValue>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i].text();
  }
  out += "]";
  return JsonValue(Raw{}, std::move(out));
}

std::optional<std::string> InsertIntoContext(std::string_view json,
                                             std::string_view key,
                                             const JsonValue& value) {
  // Google Benchmark's JSONReporter opens the document with
  // `{\n  "context": {\n    "date": ...`; a member added in front of others
  // is followed by a comma.
  constexpr std::string_view kContext = "\"context\": {";
  const std::size_t at = json.find(kContext);
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t after = at + kContext.size();
  std::string out;
  out.reserve(json.size() + value.text().size() + key.size() + 16);
  out.append(json.substr(0, after));
  out.append("\n    ").append(JsonValue(key).text()).append(": ");
  out.append(value.text());
  const std::size_t next = json.find_first_not_of(" \t\r\n", after);
  if (next != std::string_view::npos && json[next] != '}') out.append(",");
  out.append(json.substr(after));
  return out;
}

}  // namespace serverkit::bench
