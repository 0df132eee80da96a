// -----------------------------------------------------------------------------
// bench/harness/json.h
// -----------------------------------------------------------------------------
//
// The few JSON values the sweep harness writes into a result file's context
// (ranking rules, implementation traits, scenario sizes, the floor): a value
// is kept as its JSON text, built from a bool, a number, a string, or a list
// of fields or items. `InsertIntoContext` adds one member to the "context"
// object of Google Benchmark's JSON output.
//
// Thread-safety: values are plain values; nothing here is shared.

#ifndef SERVERKIT_BENCH_HARNESS_JSON_H_
#define SERVERKIT_BENCH_HARNESS_JSON_H_

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace serverkit::bench {

class JsonValue;
using JsonFields = std::vector<std::pair<std::string, JsonValue>>;

class JsonValue {
 public:
  JsonValue() : text_("null") {}  // null
  JsonValue(bool b) : text_(b ? "true" : "false") {}
  // (clang-format 14 joins this requires-clause to the declaration.)
  // clang-format off
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  JsonValue(T v) : text_(std::to_string(v)) {}
  // clang-format on
  JsonValue(double v);  // null when not finite
  JsonValue(const char* s) : JsonValue(std::string_view(s)) {}
  JsonValue(const std::string& s) : JsonValue(std::string_view(s)) {}
  JsonValue(std::string_view s);

  // `{"k": v, ...}` in the given order.
  static JsonValue Object(const JsonFields& fields);
  // `[v, ...]`
  static JsonValue Array(const std::vector<JsonValue>& items);

  const std::string& text() const { return text_; }

 private:
  struct Raw {};
  JsonValue(Raw, std::string text) : text_(std::move(text)) {}

  std::string text_;
};

// `json` is Google Benchmark's JSON output; returns it with `"key": value`
// added as the first member of its top-level "context" object, or nullopt
// when there is no such object.
std::optional<std::string> InsertIntoContext(std::string_view json,
                                             std::string_view key,
                                             const JsonValue& value);

}  // namespace serverkit::bench

#endif  // SERVERKIT_BENCH_HARNESS_JSON_H_
