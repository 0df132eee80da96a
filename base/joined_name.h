// -----------------------------------------------------------------------------
// base/joined_name.h
// -----------------------------------------------------------------------------
//
// `JoinedName<parts...>::value`: a `constexpr std::string_view` that is the
// concatenation of other `constexpr std::string_view`s with static storage,
// for names built from an implementation's own `kName`, such as
// "queue-moodycamel" (a pool over a queue) or "async-queue-mutex" (a logger
// over a queue). The characters are followed by a '\0', so `value.data()` is
// also a C string.
//
//   inline constexpr std::string_view kPrefix = "queue-";
//   static constexpr std::string_view kName =
//       JoinedName<kPrefix, Q::kName>::value;
//
// Thread-safety: compile-time constants.

#ifndef SERVERKIT_BASE_JOINED_NAME_H_
#define SERVERKIT_BASE_JOINED_NAME_H_

#include <array>
#include <cstddef>
#include <string_view>

namespace serverkit {

template <const std::string_view&... kParts>
struct JoinedName {
  static constexpr std::size_t kSize = (kParts.size() + ... + 0);
  static constexpr std::array<char, kSize + 1> kChars = [] {
    std::array<char, kSize + 1> out{};
    [[maybe_unused]] std::size_t at = 0;  // unused when there are no parts
    (
        (void)[&] {
          for (char c : kParts) out[at++] = c;
        }(),
        ...);
    return out;
  }();
  static constexpr std::string_view value{kChars.data(), kSize};
};

}  // namespace serverkit

#endif  // SERVERKIT_BASE_JOINED_NAME_H_
