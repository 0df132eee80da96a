// -----------------------------------------------------------------------------
// buffer/linear_buffer.h
// -----------------------------------------------------------------------------
//
// LinearBuffer: muduo's Buffer design.
//
//   +-------------------+------------------+------------------+
//   | prependable bytes |  readable bytes  |  writable bytes  |
//   +-------------------+------------------+------------------+
//   0      <=      reader_      <=      writer_     <=     capacity
//
// - 8 bytes of cheap prepend in front (kCheapPrepend); a fully consumed buffer
//   resets both indices to 8, so it needs no move.
// - When an append does not fit at the back, the readable bytes are moved
//   back to offset 8 if the space freed in front is enough (muduo's
//   "腾挪"); only otherwise does the buffer grow (to at least twice its size,
//   copying the readable bytes to offset 8, as evpp fixed muduo's FIXME).
// - Readable bytes are always contiguous; peek() never moves.
// - Storage is not zero-filled on growth (muduo's std::vector is).
// - prepend() larger than the prependable space slides the readable bytes
//   forward, or grows (muduo asserts instead).
//
// Thread-safety: thread-compatible (see buffer/buffer.h).

#ifndef SERVERKIT_BUFFER_LINEAR_BUFFER_H_
#define SERVERKIT_BUFFER_LINEAR_BUFFER_H_

#include <sys/types.h>

#include <algorithm>
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

class LinearBuffer {
 public:
  static constexpr std::string_view kName = "linear";
  static constexpr bool kAlwaysContiguous = true;
  static constexpr PrependSpace kPrependSpace = PrependSpace::kFront;
  static constexpr std::size_t kCheapPrepend = 8;
  static constexpr std::size_t kInitialSize = 1024;

  LinearBuffer() : LinearBuffer(kInitialSize) {}
  explicit LinearBuffer(std::size_t initial)
      : storage_(
            std::make_unique_for_overwrite<char[]>(kCheapPrepend + initial)),
        capacity_(kCheapPrepend + initial) {}

  LinearBuffer(const LinearBuffer& other)
      : LinearBuffer(other.writable_bytes() + other.readable_bytes()) {
    append(other.peek_const());
  }
  LinearBuffer& operator=(const LinearBuffer& other) {
    if (this != &other) *this = LinearBuffer(other);
    return *this;
  }
  LinearBuffer(LinearBuffer&& other) noexcept
      : storage_(std::move(other.storage_)),
        capacity_(std::exchange(other.capacity_, 0)),
        reader_(std::exchange(other.reader_, 0)),
        writer_(std::exchange(other.writer_, 0)),
        moved_(std::exchange(other.moved_, 0)) {}
  LinearBuffer& operator=(LinearBuffer&& other) noexcept {
    storage_ = std::move(other.storage_);
    capacity_ = std::exchange(other.capacity_, 0);
    reader_ = std::exchange(other.reader_, 0);
    writer_ = std::exchange(other.writer_, 0);
    moved_ = std::exchange(other.moved_, 0);
    return *this;
  }
  ~LinearBuffer() = default;

  std::size_t readable_bytes() const { return writer_ - reader_; }
  std::size_t writable_bytes() const { return capacity_ - writer_; }
  std::size_t prependable_bytes() const { return reader_; }
  std::size_t capacity() const { return capacity_; }
  std::uint64_t bytes_moved() const { return moved_; }

  ReadableSpans readable() const {
    return {{data() + reader_, readable_bytes()}, {}};
  }
  std::string_view peek() { return peek_const(); }
  std::string_view peek(std::size_t n) {
    assert(n <= readable_bytes());
    return {data() + reader_, n};
  }
  void peek_into(std::span<char> out) const {
    assert(out.size() <= readable_bytes());
    if (!out.empty()) std::memcpy(out.data(), data() + reader_, out.size());
  }

  void retrieve(std::size_t n) {
    assert(n <= readable_bytes());
    if (n < readable_bytes()) {
      reader_ += n;
    } else {
      retrieve_all();
    }
  }
  // A moved-from buffer has no storage (capacity 0) and stays valid.
  void retrieve_all() {
    reader_ = writer_ = std::min(kCheapPrepend, capacity_);
  }
  std::string retrieve_as_string(std::size_t n) {
    std::string s(data() + reader_, n);
    retrieve(n);
    return s;
  }
  std::string retrieve_all_as_string() {
    return retrieve_as_string(readable_bytes());
  }

  void append(std::string_view s) { append(s.data(), s.size()); }
  void append(const char* p, std::size_t n) {
    ensure_writable(n);
    if (n > 0) std::memcpy(data() + writer_, p, n);
    writer_ += n;
  }
  void append(const void* p, std::size_t n) {
    append(static_cast<const char*>(p), n);
  }

  void prepend(std::string_view s) { prepend(s.data(), s.size()); }
  void prepend(const char* p, std::size_t n) {
    if (n > reader_) MakeFrontSpace(n);
    reader_ -= n;
    if (n > 0) std::memcpy(data() + reader_, p, n);
  }
  void prepend(const void* p, std::size_t n) {
    prepend(static_cast<const char*>(p), n);
  }

  void ensure_writable(std::size_t n) {
    if (writable_bytes() < n) MakeSpace(n);
  }
  WritableSpans writable() {
    return {{data() + writer_, writable_bytes()}, {}};
  }
  char* begin_write() { return data() + writer_; }
  void has_written(std::size_t n) {
    assert(n <= writable_bytes());
    writer_ += n;
  }

  // The storage, readable bytes and all; the buffer is left with none,
  // like a moved-from one (buffer/buffer.h, ReleasableBuffer).
  BufferStorage release() {
    BufferStorage s{std::move(storage_), std::exchange(capacity_, 0), reader_,
                    writer_};
    reader_ = writer_ = 0;
    return s;
  }
  // Takes `s` as the storage (the old one is freed); s's bytes become the
  // readable bytes. Requires readable_bytes() == 0 and s's run inside it.
  void adopt(BufferStorage s) {
    assert(readable_bytes() == 0);
    assert(s.begin <= s.end && s.end <= s.capacity);
    storage_ = std::move(s.bytes);
    capacity_ = storage_ != nullptr ? s.capacity : 0;
    if (s.begin == s.end) {
      retrieve_all();
    } else {
      reader_ = s.begin;
      writer_ = s.end;
    }
  }

  ssize_t read_fd(int fd, int* saved_errno) {
    return buffer_internal::ReadFd(*this, fd, saved_errno);
  }
  ssize_t write_fd(int fd, int* saved_errno) {
    return buffer_internal::WriteFd(*this, fd, saved_errno);
  }

 private:
  char* data() { return storage_.get(); }
  const char* data() const { return storage_.get(); }
  std::string_view peek_const() const {
    return {data() + reader_, readable_bytes()};
  }

  // muduo's makeSpace: move the readable bytes back to kCheapPrepend when the
  // free space on both sides is enough, else grow.
  void MakeSpace(std::size_t n) {
    const std::size_t readable = readable_bytes();
    if (writable_bytes() + prependable_bytes() < n + kCheapPrepend) {
      Reallocate(std::max(2 * capacity_, kCheapPrepend + readable + n),
                 kCheapPrepend);
    } else {
      std::memmove(data() + kCheapPrepend, data() + reader_, readable);
      moved_ += readable;
      reader_ = kCheapPrepend;
      writer_ = reader_ + readable;
    }
  }

  // Room for an n-byte prepend (n > prependable_bytes()), with the cheap
  // prepend area in front of it again: slide the readable bytes forward when
  // the storage has the room, else grow.
  void MakeFrontSpace(std::size_t n) {
    const std::size_t readable = readable_bytes();
    const std::size_t offset = n + kCheapPrepend;
    if (offset + readable <= capacity_) {
      std::memmove(data() + offset, data() + reader_, readable);
      moved_ += readable;
      reader_ = offset;
      writer_ = offset + readable;
    } else {
      Reallocate(std::max(2 * capacity_, offset + readable), offset);
    }
  }

  // New storage of `capacity` bytes with the readable bytes at `offset`.
  void Reallocate(std::size_t capacity, std::size_t offset) {
    const std::size_t readable = readable_bytes();
    capacity = std::max(capacity, offset + readable);
    auto fresh = std::make_unique_for_overwrite<char[]>(capacity);
    if (readable > 0)
      std::memcpy(fresh.get() + offset, data() + reader_, readable);
    moved_ += readable;
    storage_ = std::move(fresh);
    capacity_ = capacity;
    reader_ = offset;
    writer_ = offset + readable;
  }

  std::unique_ptr<char[]> storage_;
  std::size_t capacity_ = 0;
  std::size_t reader_ = kCheapPrepend;
  std::size_t writer_ = kCheapPrepend;
  std::uint64_t moved_ = 0;
};

static_assert(Buffer<LinearBuffer>);
static_assert(ReleasableBuffer<LinearBuffer>);

}  // namespace serverkit

#endif  // SERVERKIT_BUFFER_LINEAR_BUFFER_H_
