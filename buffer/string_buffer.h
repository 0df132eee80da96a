// -----------------------------------------------------------------------------
// buffer/string_buffer.h
// -----------------------------------------------------------------------------
//
// StringBuffer: the trivially correct reference. The readable bytes are one
// std::string; retrieve erases from its front, prepend inserts at its front.
// Tests compare every other buffer against it; the benchmark shows it as the
// naive baseline.
//
// - The writable space is a separate scratch string: ensure_writable(n) sizes
//   it, has_written(n) appends its first n bytes to the readable string.
// - prependable_bytes() is 0: no prepend is cheap here.
// - bytes_moved() counts the bytes erase and insert shift, and the readable
//   bytes std::string copies when it reallocates.
// - read_fd reads into a 64 KiB stack buffer and appends (no readv).
//
// Thread-safety: thread-compatible (see buffer/buffer.h).

#ifndef SERVERKIT_BUFFER_STRING_BUFFER_H_
#define SERVERKIT_BUFFER_STRING_BUFFER_H_

#include <sys/types.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "buffer/buffer.h"
#include "buffer/internal/fd_io.h"

namespace serverkit {

class StringBuffer {
 public:
  static constexpr std::string_view kName = "string";
  static constexpr bool kAlwaysContiguous = true;
  static constexpr PrependSpace kPrependSpace = PrependSpace::kNone;

  StringBuffer() = default;
  explicit StringBuffer(std::size_t initial) { data_.reserve(initial); }

  std::size_t readable_bytes() const { return data_.size(); }
  std::size_t writable_bytes() const { return scratch_.size(); }
  std::size_t prependable_bytes() const { return 0; }
  std::size_t capacity() const { return data_.capacity(); }
  std::uint64_t bytes_moved() const { return moved_; }

  ReadableSpans readable() const { return {{data_.data(), data_.size()}, {}}; }
  std::string_view peek() { return data_; }
  std::string_view peek(std::size_t n) {
    assert(n <= data_.size());
    return std::string_view(data_).substr(0, n);
  }
  void peek_into(std::span<char> out) const {
    assert(out.size() <= data_.size());
    data_.copy(out.data(), out.size());
  }

  void retrieve(std::size_t n) {
    assert(n <= data_.size());
    if (n == 0) return;  // erases nothing: moves nothing
    moved_ += data_.size() - n;
    data_.erase(0, n);
  }
  void retrieve_all() { data_.clear(); }
  std::string retrieve_as_string(std::size_t n) {
    std::string s = data_.substr(0, n);
    retrieve(n);
    return s;
  }
  std::string retrieve_all_as_string() {
    std::string s;
    s.swap(data_);
    return s;
  }

  void append(std::string_view s) {
    CountGrowth(s.size());
    data_.append(s);
  }
  void append(const char* p, std::size_t n) { append(std::string_view(p, n)); }
  void append(const void* p, std::size_t n) {
    append(static_cast<const char*>(p), n);
  }

  void prepend(std::string_view s) {
    if (s.empty()) return;  // inserts nothing: moves nothing
    moved_ += data_.size();
    data_.insert(0, s);
  }
  void prepend(const char* p, std::size_t n) {
    prepend(std::string_view(p, n));
  }
  void prepend(const void* p, std::size_t n) {
    prepend(static_cast<const char*>(p), n);
  }

  void ensure_writable(std::size_t n) {
    if (scratch_.size() < n) scratch_.resize(n);
  }
  WritableSpans writable() { return {{scratch_.data(), scratch_.size()}, {}}; }
  char* begin_write() { return scratch_.data(); }
  void has_written(std::size_t n) {
    assert(n <= scratch_.size());
    append(std::string_view(scratch_).substr(0, n));
    scratch_.erase(0, n);
  }

  ssize_t read_fd(int fd, int* saved_errno) {
    char extra[kReadFdExtraBytes];
    const ssize_t n = ::read(fd, extra, sizeof(extra));
    if (n < 0) {
      if (saved_errno != nullptr) *saved_errno = errno;
    } else {
      append(extra, static_cast<std::size_t>(n));
    }
    return n;
  }
  ssize_t write_fd(int fd, int* saved_errno) {
    return buffer_internal::WriteFd(*this, fd, saved_errno);
  }

 private:
  void CountGrowth(std::size_t n) {
    if (data_.size() + n > data_.capacity()) moved_ += data_.size();
  }

  std::string data_;
  std::string scratch_;  // the writable space
  std::uint64_t moved_ = 0;
};

static_assert(Buffer<StringBuffer>);

}  // namespace serverkit

#endif  // SERVERKIT_BUFFER_STRING_BUFFER_H_
