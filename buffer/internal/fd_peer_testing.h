// -----------------------------------------------------------------------------
// buffer/internal/fd_peer_testing.h
// -----------------------------------------------------------------------------
//
// The far end of a non-blocking socketpair in the buffer tests and the
// buffer fuzz target: write what the socket takes, read what is queued.
//
// Thread-safety: thread-safe (no shared state).

#ifndef SERVERKIT_BUFFER_INTERNAL_FD_PEER_TESTING_H_
#define SERVERKIT_BUFFER_INTERNAL_FD_PEER_TESTING_H_

#include <unistd.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace serverkit::buffer_internal {

// Writes as much of `data` to `fd` as it takes without blocking.
inline std::size_t PeerSend(int fd, std::string_view data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::write(fd, data.data() + sent, data.size() - sent);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  return sent;
}

// Reads up to `n` bytes already queued on `fd` (fewer when it runs dry).
inline std::string PeerReceive(int fd, std::size_t n) {
  std::string s(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, s.data() + got, n - got);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  s.resize(got);
  return s;
}

}  // namespace serverkit::buffer_internal

#endif  // SERVERKIT_BUFFER_INTERNAL_FD_PEER_TESTING_H_
