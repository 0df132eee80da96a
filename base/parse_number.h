// -----------------------------------------------------------------------------
// base/parse_number.h
// -----------------------------------------------------------------------------
//
// `ParseNumber<T>(text)`: the whole of `text` as a number of type T, or
// nullopt. The one number parser of our command lines (the sweeps' harness,
// the servers, the load generator and its test servers), so that every
// flag takes the same spellings: no sign but '-' (and only where T is signed
// or floating), no leading or trailing space, no trailing junk, nothing out
// of T's range, and for floating point no inf or nan. Each caller still
// checks the range its flag allows and says so.
//
// Thread-safety: thread-safe (pure).

#ifndef SERVERKIT_BASE_PARSE_NUMBER_H_
#define SERVERKIT_BASE_PARSE_NUMBER_H_

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace serverkit {

template <typename T>
std::optional<T> ParseNumber(std::string_view text) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                "ParseNumber parses integers and floating point");
  if (text.empty()) return std::nullopt;
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) return std::nullopt;
  }
  return value;
}

}  // namespace serverkit

#endif  // SERVERKIT_BASE_PARSE_NUMBER_H_
