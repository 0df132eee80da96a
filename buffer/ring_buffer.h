// -----------------------------------------------------------------------------
// buffer/ring_buffer.h
// -----------------------------------------------------------------------------
//
// RingBuffer: a power-of-two circular buffer. Appends wrap around the end of
// the storage instead of moving the readable bytes back, so nothing is moved
// until the buffer must grow.
//
//   reader_ and writer_ count bytes since the start and are never reduced
//   modulo the capacity: readable = writer_ - reader_, the storage index is
//   position & (capacity - 1). Unsigned wrap-around keeps this exact.
//
// - Readable bytes are one span, or two when they wrap: readable() gives both.
//   peek(n) needs the first n bytes contiguous: when they straddle the end it
//   moves the readable bytes so they do not wrap (counted in bytes_moved();
//   in place when the free space allows, else into fresh storage). That is the
//   cost of a ring for parsers that want a flat view.
// - Free space is shared by both ends: prependable_bytes() == writable_bytes()
//   == capacity - readable. prepend() steps the reader back, wrapping too.
// - Growing doubles the capacity (at least) and copies the readable bytes to
//   the start of the new storage.
// - A fully consumed buffer resets to position 0, so the next append starts
//   contiguous.
//
// Thread-safety: thread-compatible (see buffer/buffer.h).

#ifndef SERVERKIT_BUFFER_RING_BUFFER_H_
#define SERVERKIT_BUFFER_RING_BUFFER_H_

#include <sys/types.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "buffer/buffer.h"
#include "buffer/internal/fd_io.h"

namespace serverkit {

class RingBuffer {
 public:
  static constexpr std::string_view kName = "ring";
  static constexpr bool kAlwaysContiguous = false;
  static constexpr PrependSpace kPrependSpace = PrependSpace::kShared;
  static constexpr std::size_t kInitialSize = 1024;

  RingBuffer() : RingBuffer(kInitialSize) {}
  // The capacity is `initial` rounded up to a power of two (at least 16).
  explicit RingBuffer(std::size_t initial)
      : capacity_(std::bit_ceil(std::max<std::size_t>(initial, 16))),
        storage_(std::make_unique_for_overwrite<char[]>(capacity_)) {}

  RingBuffer(const RingBuffer& other) : RingBuffer(other.capacity_) {
    const ReadableSpans r = other.readable();
    append(r.first.data(), r.first.size());
    append(r.second.data(), r.second.size());
  }
  RingBuffer& operator=(const RingBuffer& other) {
    if (this != &other) *this = RingBuffer(other);
    return *this;
  }
  // A moved-from RingBuffer has capacity 0 and stays valid (it grows on use).
  RingBuffer(RingBuffer&& other) noexcept
      : capacity_(std::exchange(other.capacity_, 0)),
        storage_(std::move(other.storage_)),
        reader_(std::exchange(other.reader_, 0)),
        writer_(std::exchange(other.writer_, 0)),
        moved_(std::exchange(other.moved_, 0)) {}
  RingBuffer& operator=(RingBuffer&& other) noexcept {
    capacity_ = std::exchange(other.capacity_, 0);
    storage_ = std::move(other.storage_);
    reader_ = std::exchange(other.reader_, 0);
    writer_ = std::exchange(other.writer_, 0);
    moved_ = std::exchange(other.moved_, 0);
    return *this;
  }
  ~RingBuffer() = default;

  std::size_t readable_bytes() const { return writer_ - reader_; }
  std::size_t writable_bytes() const { return capacity_ - readable_bytes(); }
  std::size_t prependable_bytes() const { return writable_bytes(); }
  std::size_t capacity() const { return capacity_; }
  std::uint64_t bytes_moved() const { return moved_; }

  ReadableSpans readable() const {
    const std::size_t n = readable_bytes();
    const std::size_t at = Index(reader_);
    const std::size_t first = std::min(n, capacity_ - at);
    return {{storage_.get() + at, first}, {storage_.get(), n - first}};
  }

  std::string_view peek() { return peek(readable_bytes()); }
  std::string_view peek(std::size_t n) {
    assert(n <= readable_bytes());
    if (n == 0) return {};
    std::size_t at = Index(reader_);
    if (capacity_ - at < n) {
      Linearize();
      at = Index(reader_);
    }
    return {storage_.get() + at, n};
  }
  void peek_into(std::span<char> out) const {
    assert(out.size() <= readable_bytes());
    CopyOut(readable(), out);
  }

  void retrieve(std::size_t n) {
    assert(n <= readable_bytes());
    reader_ += n;
    if (reader_ == writer_) reader_ = writer_ = 0;
  }
  void retrieve_all() { reader_ = writer_ = 0; }
  std::string retrieve_as_string(std::size_t n) {
    assert(n <= readable_bytes());
    const ReadableSpans r = readable();
    const std::size_t first = std::min(n, r.first.size());
    std::string s;
    s.reserve(n);
    s.append(r.first.data(), first).append(r.second.data(), n - first);
    retrieve(n);
    return s;
  }
  std::string retrieve_all_as_string() {
    return retrieve_as_string(readable_bytes());
  }

  void append(std::string_view s) { append(s.data(), s.size()); }
  void append(const char* p, std::size_t n) {
    ensure_writable(n);
    CopyIn(writable(), {p, n});
    writer_ += n;
  }
  void append(const void* p, std::size_t n) {
    append(static_cast<const char*>(p), n);
  }

  void prepend(std::string_view s) { prepend(s.data(), s.size()); }
  void prepend(const char* p, std::size_t n) {
    ensure_writable(n);
    reader_ -= n;
    const std::size_t at = Index(reader_);
    const std::size_t first = std::min(n, capacity_ - at);
    if (first > 0) std::memcpy(storage_.get() + at, p, first);
    if (n > first) std::memcpy(storage_.get(), p + first, n - first);
  }
  void prepend(const void* p, std::size_t n) {
    prepend(static_cast<const char*>(p), n);
  }

  void ensure_writable(std::size_t n) {
    if (writable_bytes() < n) Grow(readable_bytes() + n);
  }
  WritableSpans writable() {
    const std::size_t n = writable_bytes();
    const std::size_t at = Index(writer_);
    const std::size_t first = std::min(n, capacity_ - at);
    return {{storage_.get() + at, first}, {storage_.get(), n - first}};
  }
  char* begin_write() { return storage_.get() + Index(writer_); }
  void has_written(std::size_t n) {
    assert(n <= writable_bytes());
    writer_ += n;
  }

  ssize_t read_fd(int fd, int* saved_errno) {
    return buffer_internal::ReadFd(*this, fd, saved_errno);
  }
  ssize_t write_fd(int fd, int* saved_errno) {
    return buffer_internal::WriteFd(*this, fd, saved_errno);
  }

 private:
  std::size_t Index(std::size_t position) const {
    return position & (capacity_ - 1);
  }

  // Copies the readable bytes to the start of fresh storage of at least
  // `needed` bytes (and at least twice the old capacity).
  void Grow(std::size_t needed) {
    Reallocate(std::bit_ceil(std::max(needed, 2 * capacity_)));
  }

  void Reallocate(std::size_t capacity) {
    const std::size_t n = readable_bytes();
    auto fresh = std::make_unique_for_overwrite<char[]>(capacity);
    if (n > 0) CopyOut(readable(), {fresh.get(), n});
    moved_ += n;
    storage_ = std::move(fresh);
    capacity_ = capacity;
    reader_ = 0;
    writer_ = n;
  }

  // Makes the readable bytes one span. Wrapped, they are a tail [a, cap) of
  // t bytes and a head [0, h) of h bytes, with f = cap - t - h bytes free
  // between them. If one piece fits in the free gap, two memmoves do it in
  // place; otherwise copy into fresh storage of the same capacity.
  void Linearize() {
    const ReadableSpans r = readable();
    if (r.contiguous()) return;
    char* s = storage_.get();
    const std::size_t t = r.first.size(), h = r.second.size();
    const std::size_t a = capacity_ - t, f = capacity_ - t - h;
    if (t <= f) {
      // Head moves up by t; the tail goes in front of it: [0, t + h).
      std::memmove(s + t, s, h);
      std::memcpy(s, s + a, t);
      reader_ = 0;
    } else if (h <= f) {
      // Tail moves down by h; the head goes after it: [a - h, cap).
      std::memmove(s + a - h, s + a, t);
      std::memcpy(s + capacity_ - h, s, h);
      reader_ = a - h;
    } else {
      Reallocate(capacity_);
      return;  // Reallocate counted the move
    }
    writer_ = reader_ + t + h;
    moved_ += t + h;
  }

  std::size_t capacity_;  // a power of two, or 0 once moved from
  std::unique_ptr<char[]> storage_;
  std::size_t reader_ = 0;
  std::size_t writer_ = 0;
  std::uint64_t moved_ = 0;
};

static_assert(Buffer<RingBuffer>);

}  // namespace serverkit

#endif  // SERVERKIT_BUFFER_RING_BUFFER_H_
