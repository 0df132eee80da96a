// -----------------------------------------------------------------------------
// logger/internal/deferred_message.h
// -----------------------------------------------------------------------------
//
// `DeferredMessage`: a format string and a copy of its arguments, formatted
// later (on a logger's backend thread). This is what lets `AsyncQueueLogger`
// move formatting off the calling thread.
//
// Arguments are stored by value (`std::tuple` of decayed types); character
// pointers and string views are copied into `std::string`s, because what they
// point to may be gone when the backend formats. The tuple lives inline (up to
// `kInlineBytes`) or, when larger, on the heap.
//
// The format string must outlive the message: the `SK_LOG_*` macros pass
// string literals, which do.
//
// Thread-safety: thread-compatible (a value type).

#ifndef SERVERKIT_LOGGER_INTERNAL_DEFERRED_MESSAGE_H_
#define SERVERKIT_LOGGER_INTERNAL_DEFERRED_MESSAGE_H_

#include <fmt/format.h>

#include <cstddef>
#include <new>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace serverkit::logger_internal {

// How an argument of type T is kept until it is formatted.
template <typename T>
struct StoredArg {
  using type = std::decay_t<T>;
};
template <typename T>
requires std::is_convertible_v<std::decay_t<T>, std::string_view> ||
    std::is_same_v<std::decay_t<T>, fmt::string_view>
struct StoredArg<T> {
  using type = std::string;
};
template <typename T>
using StoredArgT = typename StoredArg<T>::type;

class DeferredMessage {
 public:
  static constexpr std::size_t kInlineBytes = 64;

  DeferredMessage() = default;

  template <typename... Args>
  explicit DeferredMessage(fmt::string_view format, Args&&... args)
      : format_(format) {
    using Tuple = std::tuple<StoredArgT<Args>...>;
    if constexpr (FitsInline<Tuple>()) {
      ::new (static_cast<void*>(storage_)) Tuple(std::forward<Args>(args)...);
      ops_ = &kInlineOps<Tuple>;
    } else {
      Tuple* heap = new Tuple(std::forward<Args>(args)...);
      ::new (static_cast<void*>(storage_)) Tuple*(heap);
      ops_ = &kHeapOps<Tuple>;
    }
  }

  DeferredMessage(DeferredMessage&& other) noexcept { MoveFrom(other); }

  DeferredMessage& operator=(DeferredMessage&& other) noexcept {
    if (this != &other) {
      Reset();
      MoveFrom(other);
    }
    return *this;
  }

  ~DeferredMessage() { Reset(); }

  // Appends the formatted message to `out`. An empty message appends nothing.
  void FormatTo(fmt::memory_buffer& out) const {
    if (ops_ != nullptr) ops_->format(storage_, format_, out);
  }

  bool empty() const { return ops_ == nullptr; }
  bool stored_inline() const { return ops_ != nullptr && ops_->is_inline; }

 private:
  struct Ops {
    void (*format)(const void* storage, fmt::string_view format,
                   fmt::memory_buffer& out);
    void (*move)(void* to, void* from);  // constructs `to`, destroys `from`
    void (*destroy)(void* storage);
    bool is_inline;
  };

  template <typename Tuple>
  static constexpr bool FitsInline() {
    return sizeof(Tuple) <= kInlineBytes &&
           alignof(Tuple) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<Tuple>;
  }

  template <typename Tuple>
  static void FormatTuple(const Tuple& t, fmt::string_view format,
                          fmt::memory_buffer& out) {
    std::apply(
        [&](const auto&... a) {
          fmt::vformat_to(fmt::appender(out), format,
                          fmt::make_format_args(a...));
        },
        t);
  }

  template <typename Tuple>
  static constexpr Ops kInlineOps = {
      [](const void* s, fmt::string_view f, fmt::memory_buffer& out) {
        FormatTuple(*static_cast<const Tuple*>(s), f, out);
      },
      [](void* to, void* from) {
        Tuple* src = static_cast<Tuple*>(from);
        ::new (to) Tuple(std::move(*src));
        src->~Tuple();
      },
      [](void* s) { static_cast<Tuple*>(s)->~Tuple(); },
      true,
  };

  template <typename Tuple>
  static constexpr Ops kHeapOps = {
      [](const void* s, fmt::string_view f, fmt::memory_buffer& out) {
        FormatTuple(**static_cast<Tuple* const*>(s), f, out);
      },
      [](void* to, void* from) {
        ::new (to) Tuple*(*static_cast<Tuple**>(from));
      },
      [](void* s) { delete *static_cast<Tuple**>(s); },
      false,
  };

  void MoveFrom(DeferredMessage& other) noexcept {
    format_ = other.format_;
    ops_ = other.ops_;
    if (ops_ != nullptr) ops_->move(storage_, other.storage_);
    other.ops_ = nullptr;
  }

  void Reset() noexcept {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }

  const Ops* ops_ = nullptr;
  fmt::string_view format_;
  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
};

}  // namespace serverkit::logger_internal

#endif  // SERVERKIT_LOGGER_INTERNAL_DEFERRED_MESSAGE_H_
