// -----------------------------------------------------------------------------
// servers/common/asio_accept.h
// -----------------------------------------------------------------------------
//
// What the Boost.Asio peers (the ping-pong and the chat server) do when an
// accept fails. Out of descriptors (EMFILE and its kin) the pending
// connection stays in the backlog, so accepting again at once would spin:
// say so once on stderr and try again after 100 ms. Aborted (the acceptor
// closed at shutdown): stop. Any other error: accept again at once.
//
// Thread-safety: call from the acceptor's handler only.

#ifndef SERVERKIT_SERVERS_COMMON_ASIO_ACCEPT_H_
#define SERVERKIT_SERVERS_COMMON_ASIO_ACCEPT_H_

#include <boost/asio.hpp>
#include <chrono>
#include <cstdio>
#include <utility>

namespace serverkit::servers {

// For a failed accept (`ec` set): returns true when the caller should
// accept again now; false when the loop ended (aborted) or `accept_again`
// runs after the pause.
template <typename F>
bool AcceptAgainAfter(const boost::system::error_code& ec,
                      boost::asio::steady_timer& pause, bool* logged,
                      const char* program, F accept_again) {
  namespace asio = boost::asio;
  if (ec == asio::error::operation_aborted) return false;
  if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
      ec == asio::error::no_memory) {
    if (!*logged) {
      *logged = true;
      std::fprintf(stderr,
                   "%s: accept: %s (pausing accepts 100 ms at a time; not "
                   "logged again)\n",
                   program, ec.message().c_str());
    }
    pause.expires_after(std::chrono::milliseconds(100));
    pause.async_wait([again = std::move(accept_again)](
                         const boost::system::error_code& wec) {
      if (!wec) again();
    });
    return false;
  }
  return true;
}

}  // namespace serverkit::servers

#endif  // SERVERKIT_SERVERS_COMMON_ASIO_ACCEPT_H_
