// -----------------------------------------------------------------------------
// buffer/internal/fd_io.h
// -----------------------------------------------------------------------------
//
// read_fd / write_fd written once for every buffer that exposes its writable
// and readable space as spans.
//
// ReadFd: one readv() into the buffer's writable span(s) plus a 64 KiB stack
// buffer (muduo's extrabuf; left out when the buffer already has 64 KiB
// free). What overflows into the stack buffer is appended, so the buffer grows
// only by what actually arrived.
//
// WriteFd: one write()/writev() of the readable span(s), then retrieve() of
// what the kernel took.
//
// Thread-safety: as the buffer passed in (thread-compatible).

#ifndef SERVERKIT_BUFFER_INTERNAL_FD_IO_H_
#define SERVERKIT_BUFFER_INTERNAL_FD_IO_H_

#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include "buffer/buffer.h"

namespace serverkit::buffer_internal {

template <typename B>
ssize_t ReadFd(B& buffer, int fd, int* saved_errno) {
  char extra[kReadFdExtraBytes];
  const WritableSpans w = buffer.writable();
  const std::size_t writable = w.size();
  iovec iov[3];
  int count = 0;
  if (!w.first.empty()) iov[count++] = {w.first.data(), w.first.size()};
  if (!w.second.empty()) iov[count++] = {w.second.data(), w.second.size()};
  if (writable < sizeof(extra)) iov[count++] = {extra, sizeof(extra)};
  const ssize_t n = ::readv(fd, iov, count);
  if (n < 0) {
    if (saved_errno != nullptr) *saved_errno = errno;
  } else if (static_cast<std::size_t>(n) <= writable) {
    buffer.has_written(static_cast<std::size_t>(n));
  } else {
    buffer.has_written(writable);
    buffer.append(extra, static_cast<std::size_t>(n) - writable);
  }
  return n;
}

template <typename B>
ssize_t WriteFd(B& buffer, int fd, int* saved_errno) {
  const ReadableSpans r = buffer.readable();
  if (r.empty()) return 0;
  ssize_t n;
  if (r.second.empty()) {
    n = ::write(fd, r.first.data(), r.first.size());
  } else {
    iovec iov[2] = {{const_cast<char*>(r.first.data()), r.first.size()},
                    {const_cast<char*>(r.second.data()), r.second.size()}};
    n = ::writev(fd, iov, 2);
  }
  if (n < 0) {
    if (saved_errno != nullptr) *saved_errno = errno;
  } else {
    buffer.retrieve(static_cast<std::size_t>(n));
  }
  return n;
}

}  // namespace serverkit::buffer_internal

#endif  // SERVERKIT_BUFFER_INTERNAL_FD_IO_H_
