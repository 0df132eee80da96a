// -----------------------------------------------------------------------------
// queues/internal/boxed.h
// -----------------------------------------------------------------------------
//
// Some third-party queues (boost::lockfree) hold only trivially copyable
// values. Their adapters store such values inline and box anything else in a
// heap allocation, the way evpp posts `new Functor` through boost::lockfree.
// The box is part of that queue's cost and is measured with it.
//
// Thread-compatible (pure functions).

#ifndef SERVERKIT_QUEUES_INTERNAL_BOXED_H_
#define SERVERKIT_QUEUES_INTERNAL_BOXED_H_

#include <type_traits>
#include <utility>

namespace serverkit::queues_internal {

template <typename T>
inline constexpr bool kStoredInline = std::is_trivially_copyable_v<T>&&
    std::is_trivially_destructible_v<T>&& std::is_default_constructible_v<T>;

template <typename T>
using Stored = std::conditional_t<kStoredInline<T>, T, T*>;

template <typename T>
Stored<T> Box(T&& v) {
  if constexpr (kStoredInline<T>) {
    return v;
  } else {
    return new T(std::move(v));
  }
}

// Moves the value back out of `s` into `out` and frees the box.
template <typename T>
void Unbox(Stored<T> s, T& out) {
  if constexpr (kStoredInline<T>) {
    out = s;
  } else {
    out = std::move(*s);
    delete s;
  }
}

// Frees a box whose value is no longer wanted (destruction with items inside).
template <typename T>
void Discard(Stored<T> s) {
  if constexpr (!kStoredInline<T>) delete s;
}

}  // namespace serverkit::queues_internal

#endif  // SERVERKIT_QUEUES_INTERNAL_BOXED_H_
