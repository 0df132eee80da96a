// -----------------------------------------------------------------------------
// buffer/mirrored_ring_buffer.h
// -----------------------------------------------------------------------------
//
// MirroredRingBuffer: a ring whose memory is mapped twice, back to back (one
// memfd, two mmaps; see internal/mirrored_mapping.h). A run that crosses the
// end of the first view continues in the second, which is the same memory, so
// the readable bytes and the writable space are each always one span: nothing
// is moved to make a view contiguous, and nothing is moved until the buffer
// must grow (into a new mapping of at least twice the size).
//
// - The capacity is a multiple of the page size (at least one page).
// - Free space is shared by both ends: prependable_bytes() == writable_bytes()
//   == capacity - readable.
// - Costs: twice the capacity in address space, one memfd_create, ftruncate
//   and three mmaps per (re)allocation, and page granularity, so thousands of
//   idle connections each hold at least one page.
//
// Errors: construction and growth (append, prepend, ensure_writable, read_fd)
// throw std::system_error when memfd_create, ftruncate or mmap fails; what()
// names the call, e.g. "MirroredRingBuffer: memfd_create failed (capacity
// 4096 bytes): Too many open files". Growth gives the strong guarantee: on a
// throw the buffer is unchanged. No path leaks a mapping or a descriptor.
//
// Not copyable (a copy would need a new mapping; move it instead). A
// moved-from buffer has capacity 0 and maps on its next write.
//
// Thread-safety: thread-compatible (see buffer/buffer.h).

#ifndef SERVERKIT_BUFFER_MIRRORED_RING_BUFFER_H_
#define SERVERKIT_BUFFER_MIRRORED_RING_BUFFER_H_

#include <sys/types.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "buffer/buffer.h"
#include "buffer/internal/fd_io.h"
#include "buffer/internal/mirrored_mapping.h"

namespace serverkit {

class MirroredRingBuffer {
 public:
  static constexpr std::string_view kName = "mirrored";
  static constexpr bool kAlwaysContiguous = true;
  static constexpr PrependSpace kPrependSpace = PrependSpace::kShared;
  static constexpr std::size_t kInitialSize = 4096;

  MirroredRingBuffer() : MirroredRingBuffer(kInitialSize) {}
  // The capacity is `initial` rounded up to a whole number of pages.
  explicit MirroredRingBuffer(std::size_t initial)
      : map_(buffer_internal::MirroredMapping::Create(RoundToPages(initial))) {}

  MirroredRingBuffer(const MirroredRingBuffer&) = delete;
  MirroredRingBuffer& operator=(const MirroredRingBuffer&) = delete;
  MirroredRingBuffer(MirroredRingBuffer&& other) noexcept
      : map_(std::move(other.map_)),
        reader_(std::exchange(other.reader_, 0)),
        size_(std::exchange(other.size_, 0)),
        moved_(std::exchange(other.moved_, 0)) {}
  MirroredRingBuffer& operator=(MirroredRingBuffer&& other) noexcept {
    map_ = std::move(other.map_);
    reader_ = std::exchange(other.reader_, 0);
    size_ = std::exchange(other.size_, 0);
    moved_ = std::exchange(other.moved_, 0);
    return *this;
  }
  ~MirroredRingBuffer() = default;

  std::size_t readable_bytes() const { return size_; }
  std::size_t writable_bytes() const { return map_.size() - size_; }
  std::size_t prependable_bytes() const { return writable_bytes(); }
  std::size_t capacity() const { return map_.size(); }
  std::uint64_t bytes_moved() const { return moved_; }

  ReadableSpans readable() const {
    return {{map_.data() + reader_, size_}, {}};
  }
  std::string_view peek() { return {map_.data() + reader_, size_}; }
  std::string_view peek(std::size_t n) {
    assert(n <= size_);
    return {map_.data() + reader_, n};
  }
  void peek_into(std::span<char> out) const {
    assert(out.size() <= size_);
    if (!out.empty())
      std::memcpy(out.data(), map_.data() + reader_, out.size());
  }

  void retrieve(std::size_t n) {
    assert(n <= size_);
    size_ -= n;
    reader_ += n;
    if (reader_ >= map_.size()) reader_ -= map_.size();
    if (size_ == 0) reader_ = 0;
  }
  void retrieve_all() { reader_ = size_ = 0; }
  std::string retrieve_as_string(std::size_t n) {
    assert(n <= size_);
    std::string s(map_.data() + reader_, n);
    retrieve(n);
    return s;
  }
  std::string retrieve_all_as_string() { return retrieve_as_string(size_); }

  void append(std::string_view s) { append(s.data(), s.size()); }
  void append(const char* p, std::size_t n) {
    ensure_writable(n);
    if (n > 0) std::memcpy(map_.data() + reader_ + size_, p, n);
    size_ += n;
  }
  void append(const void* p, std::size_t n) {
    append(static_cast<const char*>(p), n);
  }

  void prepend(std::string_view s) { prepend(s.data(), s.size()); }
  void prepend(const char* p, std::size_t n) {
    ensure_writable(n);
    reader_ = reader_ >= n ? reader_ - n : reader_ + map_.size() - n;
    if (n > 0) std::memcpy(map_.data() + reader_, p, n);
    size_ += n;
  }
  void prepend(const void* p, std::size_t n) {
    prepend(static_cast<const char*>(p), n);
  }

  void ensure_writable(std::size_t n) {
    if (writable_bytes() < n) Grow(size_ + n);
  }
  WritableSpans writable() {
    return {{map_.data() + reader_ + size_, writable_bytes()}, {}};
  }
  char* begin_write() { return map_.data() + reader_ + size_; }
  void has_written(std::size_t n) {
    assert(n <= writable_bytes());
    size_ += n;
  }

  ssize_t read_fd(int fd, int* saved_errno) {
    return buffer_internal::ReadFd(*this, fd, saved_errno);
  }
  ssize_t write_fd(int fd, int* saved_errno) {
    return buffer_internal::WriteFd(*this, fd, saved_errno);
  }

 private:
  static std::size_t RoundToPages(std::size_t n) {
    const std::size_t page = buffer_internal::MirroredMapping::PageSize();
    return std::max<std::size_t>(1, (n + page - 1) / page) * page;
  }

  void Grow(std::size_t needed) {
    auto fresh = buffer_internal::MirroredMapping::Create(
        RoundToPages(std::max(needed, 2 * map_.size())));
    if (size_ > 0) std::memcpy(fresh.data(), map_.data() + reader_, size_);
    moved_ += size_;
    map_ = std::move(fresh);
    reader_ = 0;
  }

  buffer_internal::MirroredMapping map_;
  std::size_t reader_ = 0;  // < capacity(); the readable bytes may run past it
  std::size_t size_ = 0;
  std::uint64_t moved_ = 0;
};

static_assert(Buffer<MirroredRingBuffer>);

}  // namespace serverkit

#endif  // SERVERKIT_BUFFER_MIRRORED_RING_BUFFER_H_
