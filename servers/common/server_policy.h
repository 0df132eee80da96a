// -----------------------------------------------------------------------------
// servers/common/server_policy.h
// -----------------------------------------------------------------------------
//
// What our benchmark servers (ping-pong, chat, HTTP) add to the by-name
// library, components/by_name.h, which they use like any other server: its
// flags and variables choose every component, and they take them with
// components::TakeFlags. Here only what is specific to our servers: their
// listening shape (ListenOrFail).
//
// Thread-safety: call from main() before any thread starts.

#ifndef SERVERKIT_SERVERS_COMMON_SERVER_POLICY_H_
#define SERVERKIT_SERVERS_COMMON_SERVER_POLICY_H_

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "components/by_name.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"

namespace serverkit::servers {

// Our servers' shape, as the peers': `threads` 1 is one loop that accepts
// and serves; N > 1 an accepting loop (`base`) plus N I/O loops (muduo's
// setThreadNum(N)), each built from `loop_options`. Fails (exit 2) with the
// reason when `addr` is not an IPv4 address or the port cannot be bound.
template <typename B>
std::unique_ptr<reactor::TcpServer<B>> ListenOrFail(
    std::string_view program, reactor::EventLoop* base, const std::string& addr,
    int port, int threads, const std::string& name,
    const std::function<reactor::EventLoopOptions()>& loop_options) {
  reactor::InetAddress listen;
  try {
    listen = reactor::InetAddress(addr, static_cast<std::uint16_t>(port));
  } catch (const std::exception& e) {
    components::Fail(program, e.what());
  }
  try {
    return std::make_unique<reactor::TcpServer<B>>(
        base, listen, name, threads == 1 ? 0 : threads, loop_options);
  } catch (const std::exception& e) {
    components::Fail(program, std::string("cannot listen on ") +
                                  listen.to_string() + ": " + e.what());
  }
}

}  // namespace serverkit::servers

#endif  // SERVERKIT_SERVERS_COMMON_SERVER_POLICY_H_
