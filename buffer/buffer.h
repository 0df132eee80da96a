// -----------------------------------------------------------------------------
// buffer/buffer.h
// -----------------------------------------------------------------------------
//
// The one interface every network buffer in this project meets, as a C++20
// concept, and the two small views it is written in.
//
// A `Buffer` is a byte FIFO with a cheap prepend area, shaped after muduo's
// `Buffer` (prependable | readable | writable):
//
//   - `B()` and `explicit B(std::size_t initial)` build it; `initial` is the
//     writable space to start with (implementations may round it up). The
//     reference, `string`, only reserves it: its writable space is 0 until
//     `ensure_writable`.
//   - Reading: `readable_bytes()`; `readable()`, the readable bytes as one
//     span, or two where the implementation wraps; `peek(n)`, the first `n`
//     bytes as one contiguous `std::string_view` (a wrapped RingBuffer moves
//     data to give it, the others never do); `peek()`, all of them the same
//     way; `peek_into(out)`, which copies the first `out.size()` bytes out and
//     never moves.
//   - Consuming: `retrieve(n)` (n <= readable_bytes()), `retrieve_all()`,
//     `retrieve_as_string(n)`, `retrieve_all_as_string()`.
//   - Writing: `append(data, n)` / `append(string_view)`; `prepend(data, n)`
//     puts bytes in front of the readable ones (a length header after the
//     body), without moving anything while `n <= prependable_bytes()`.
//   - Writing in place: `ensure_writable(n)` makes `writable_bytes() >= n`
//     (compacting or growing as the implementation does); `writable()` is that
//     space as one or two spans; `has_written(n)` commits the first `n` bytes
//     of it. `begin_write()` is `writable().first.data()`.
//   - System calls, the two a reactor needs:
//       `ssize_t read_fd(int fd, int* saved_errno)`: one readv() into the
//       writable space plus a 64 KiB stack buffer (muduo's extrabuf), so one
//       call can read more than the buffer has room for and the buffer only
//       grows by what arrived. Returns what readv returned; on -1 stores errno
//       in *saved_errno. 0 means end of file.
//       `ssize_t write_fd(int fd, int* saved_errno)`: one write()/writev() of
//       the readable bytes; retrieves what was written. Returns 0 without a
//       system call when nothing is readable. SIGPIPE is the caller's business
//       (a reactor ignores it).
//   - `bytes_moved()`: bytes the buffer copied inside itself so far
//     (compaction, growth, making a view contiguous). Appended and prepended
//     bytes are not counted: every design copies those once.
//   - `static constexpr std::string_view kName`: the short name used in test
//     and benchmark names ("linear", "ring", ...).
//   - `static constexpr bool kAlwaysContiguous`: true when `readable()` never
//     has a second span, so `peek()` never moves.
//   - `static constexpr PrependSpace kPrependSpace`: where the room for a cheap
//     prepend comes from (none, a front area, or a ring's shared free space).
//
// Lifetime of views: every span and string_view handed out is valid until the
// next call that is not `const` (append, retrieve, ensure_writable, peek(n) on
// a ring, ...). Copy what you keep.
//
// Thread-safety: thread-compatible, like std::string: one thread at a time
// (in the reactor, the connection's loop thread). Const calls may run
// concurrently with each other.

#ifndef SERVERKIT_BUFFER_BUFFER_H_
#define SERVERKIT_BUFFER_BUFFER_H_

#include <sys/types.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace serverkit {

// The size of read_fd's stack buffer, as muduo: one read_fd takes at most
// writable_bytes() + 64 KiB.
inline constexpr std::size_t kReadFdExtraBytes = 64 * 1024;

// Where a buffer's room for a prepend that moves nothing comes from
// (`B::kPrependSpace`).
enum class PrependSpace {
  // Nowhere: `prependable_bytes()` is 0 and every prepend moves the readable
  // bytes (the std::string reference).
  kNone,
  // An area in front of the readable bytes, reserved (muduo's 8 bytes) or
  // left by what was retrieved; the writable space behind them is separate.
  kFront,
  // All the free space, in front and behind alike: a ring
  // (`prependable_bytes() == writable_bytes()`). Appends past the end of the
  // storage wrap, so nothing is moved until the buffer grows.
  kShared,
};

// One run of bytes, or two where a ring wraps: `first` then `second`.
// `second` is empty unless `first` is non-empty.
template <typename Char>
struct TwoSpans {
  std::span<Char> first;
  std::span<Char> second;

  std::size_t size() const { return first.size() + second.size(); }
  bool empty() const { return first.empty() && second.empty(); }
  bool contiguous() const { return second.empty(); }
};

using ReadableSpans = TwoSpans<const char>;
using WritableSpans = TwoSpans<char>;

// Copies the first `out.size()` bytes of `spans` into `out`
// (out.size() <= spans.size()).
inline void CopyOut(const ReadableSpans& spans, std::span<char> out) {
  const std::size_t a = std::min(out.size(), spans.first.size());
  if (a > 0) std::memcpy(out.data(), spans.first.data(), a);
  if (out.size() > a) {
    std::memcpy(out.data() + a, spans.second.data(), out.size() - a);
  }
}

// Copies `data` into the front of `spans` (data.size() <= spans.size()).
inline void CopyIn(const WritableSpans& spans, std::span<const char> data) {
  const std::size_t a = std::min(data.size(), spans.first.size());
  if (a > 0) std::memcpy(spans.first.data(), data.data(), a);
  if (data.size() > a) {
    std::memcpy(spans.second.data(), data.data() + a, data.size() - a);
  }
}

// One allocation and the run of bytes in it, [begin, end): what a buffer
// that can hand its storage over gives away (`release()`) and takes
// (`adopt()`), so that bytes go to a writer that outlives the buffer (an
// io_uring send) without being copied.
struct BufferStorage {
  std::unique_ptr<char[]> bytes;
  std::size_t capacity = 0;
  std::size_t begin = 0;
  std::size_t end = 0;

  const char* data() const { return bytes.get() + begin; }
  std::size_t size() const { return end - begin; }
  // Empty, with room for `n` bytes at its start (reallocating only when
  // its capacity is short); fill bytes.get() and set `end`.
  void reserve(std::size_t n) {
    if (capacity < n) {
      bytes = std::make_unique_for_overwrite<char[]>(n);
      capacity = n;
    }
    begin = end = 0;
  }
  // Holds `n` bytes copied from `p`.
  void assign(const char* p, std::size_t n) {
    reserve(n);
    if (n > 0) std::memcpy(bytes.get(), p, n);
    end = n;
  }
};

// A buffer that hands its storage over: `release()` gives the storage with
// the readable bytes and leaves the buffer empty with no storage;
// `adopt(s)` makes `s` the storage of a buffer with no readable bytes, with
// s's bytes as its readable bytes.
template <typename B>
concept ReleasableBuffer = requires(B b, BufferStorage s) {
  { b.release() } -> std::same_as<BufferStorage>;
  b.adopt(std::move(s));
};

// (clang-format 14 flattens requires-expressions.)
// clang-format off
template <typename B>
concept Buffer =
    std::default_initializable<B> && std::constructible_from<B, std::size_t> &&
    std::movable<B> &&
    requires {
      { B::kName } -> std::convertible_to<std::string_view>;
      { B::kAlwaysContiguous } -> std::convertible_to<bool>;
      { B::kPrependSpace } -> std::convertible_to<PrependSpace>;
    } &&
    requires(B& b, const B& cb, const char* data, std::size_t n,
             std::string_view sv, std::span<char> out, int fd, int* err) {
      // Sizes.
      { cb.readable_bytes() } -> std::same_as<std::size_t>;
      { cb.writable_bytes() } -> std::same_as<std::size_t>;
      { cb.prependable_bytes() } -> std::same_as<std::size_t>;
      { cb.capacity() } -> std::same_as<std::size_t>;
      // Reading without consuming.
      { cb.readable() } -> std::same_as<ReadableSpans>;
      { b.peek(n) } -> std::same_as<std::string_view>;
      { b.peek() } -> std::same_as<std::string_view>;
      cb.peek_into(out);
      // Consuming.
      b.retrieve(n);
      b.retrieve_all();
      { b.retrieve_as_string(n) } -> std::same_as<std::string>;
      { b.retrieve_all_as_string() } -> std::same_as<std::string>;
      // Writing.
      b.append(data, n);
      b.append(sv);
      b.prepend(data, n);
      b.prepend(sv);
      b.ensure_writable(n);
      { b.writable() } -> std::same_as<WritableSpans>;
      { b.begin_write() } -> std::same_as<char*>;
      b.has_written(n);
      // System calls.
      { b.read_fd(fd, err) } -> std::same_as<ssize_t>;
      { b.write_fd(fd, err) } -> std::same_as<ssize_t>;
      // Instrumentation.
      { cb.bytes_moved() } -> std::same_as<std::uint64_t>;
    };
// clang-format on

}  // namespace serverkit

#endif  // SERVERKIT_BUFFER_BUFFER_H_
