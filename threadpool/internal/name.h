// -----------------------------------------------------------------------------
// threadpool/internal/name.h
// -----------------------------------------------------------------------------
//
// `JoinedName<parts...>::value`: a `constexpr std::string_view` that is the
// concatenation of other `constexpr std::string_view`s, for names such as
// "queue-moodycamel" built from a queue's own `kName`.
//
// Thread-safety: compile-time constants.

#ifndef SERVERKIT_THREADPOOL_INTERNAL_NAME_H_
#define SERVERKIT_THREADPOOL_INTERNAL_NAME_H_

#include <array>
#include <cstddef>
#include <string_view>

namespace serverkit::threadpool_internal {

template <const std::string_view&... kParts>
struct JoinedName {
  static constexpr std::size_t kSize = (kParts.size() + ... + 0);
  static constexpr std::array<char, kSize + 1> kChars = [] {
    std::array<char, kSize + 1> out{};
    std::size_t at = 0;
    (
        (void)[&] {
          for (char c : kParts) out[at++] = c;
        }(),
        ...);
    return out;
  }();
  static constexpr std::string_view value{kChars.data(), kSize};
};

}  // namespace serverkit::threadpool_internal

#endif  // SERVERKIT_THREADPOOL_INTERNAL_NAME_H_
