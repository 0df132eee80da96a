// -----------------------------------------------------------------------------
// reactor/socket_ops.h
// -----------------------------------------------------------------------------
//
// Thin wrappers over the socket system calls the reactor uses, IPv4 only.
// Failures that a server cannot continue from (socket, bind, listen) throw
// `std::system_error` with the call and address in the message; the others
// return the system call's result. Thread-safe (stateless).

#ifndef SERVERKIT_REACTOR_SOCKET_OPS_H_
#define SERVERKIT_REACTOR_SOCKET_OPS_H_

#include <netinet/in.h>

#include <cstdint>
#include <string>

namespace serverkit::reactor {

struct InetAddress {
  sockaddr_in addr{};

  InetAddress() { addr.sin_family = AF_INET; }
  // Throws std::invalid_argument on a malformed dotted-quad.
  InetAddress(const std::string& ip, std::uint16_t port);
  explicit InetAddress(const sockaddr_in& a) : addr(a) {}

  std::uint16_t port() const;
  std::string to_string() const;  // "127.0.0.1:9000"
};

namespace sockets {

int CreateNonblockingTcp();                      // throws
void BindOrThrow(int fd, const InetAddress& a);  // throws
void ListenOrThrow(int fd);                      // throws
// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC; -1 and errno on failure.
int Accept(int listen_fd, InetAddress* peer);
// Starts a non-blocking connect; returns 0 or errno.
int Connect(int fd, const InetAddress& a);
void SetTcpNoDelay(int fd, bool on);
void SetReuseAddr(int fd, bool on);
void SetKeepAlive(int fd, bool on);
int GetSocketError(int fd);
InetAddress LocalAddress(int fd);
InetAddress PeerAddress(int fd);
bool IsSelfConnect(int fd);
void ShutdownWrite(int fd);
void Close(int fd);

}  // namespace sockets
}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_SOCKET_OPS_H_
