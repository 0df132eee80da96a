#include "reactor/socket_ops.h"

#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "reactor/internal/report_errno.h"

namespace serverkit::reactor {

InetAddress::InetAddress(const std::string& ip, std::uint16_t port) {
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) {
    throw std::invalid_argument("not an IPv4 address: '" + ip + "'");
  }
}

std::uint16_t InetAddress::port() const { return ntohs(addr.sin_port); }

std::string InetAddress::to_string() const {
  char ip[INET_ADDRSTRLEN] = "?";
  ::inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof(ip));
  return std::string(ip) + ":" + std::to_string(port());
}

namespace sockets {

int CreateNonblockingTcp() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          IPPROTO_TCP);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
  return fd;
}

void BindOrThrow(int fd, const InetAddress& a) {
  const auto* sa = reinterpret_cast<const sockaddr*>(&a.addr);
  if (::bind(fd, sa, sizeof(a.addr)) < 0) {
    throw std::system_error(errno, std::generic_category(),
                            "bind " + a.to_string());
  }
}

void ListenOrThrow(int fd) {
  if (::listen(fd, SOMAXCONN) < 0) {
    throw std::system_error(errno, std::generic_category(), "listen");
  }
}

int Accept(int listen_fd, InetAddress* peer) {
  socklen_t len = sizeof(peer->addr);
  return ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer->addr), &len,
                   SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int Connect(int fd, const InetAddress& a) {
  const auto* sa = reinterpret_cast<const sockaddr*>(&a.addr);
  if (::connect(fd, sa, sizeof(a.addr)) < 0) {
    return errno;
  }
  return 0;
}

void SetTcpNoDelay(int fd, bool on) {
  int v = on ? 1 : 0;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v));
}

void SetReuseAddr(int fd, bool on) {
  int v = on ? 1 : 0;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &v, sizeof(v));
}

void SetKeepAlive(int fd, bool on) {
  int v = on ? 1 : 0;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, sizeof(v));
}

int GetSocketError(int fd) {
  int v = 0;
  socklen_t len = sizeof(v);
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len) < 0) return errno;
  return v;
}

InetAddress LocalAddress(int fd) {
  InetAddress a;
  socklen_t len = sizeof(a.addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a.addr), &len);
  return a;
}

InetAddress PeerAddress(int fd) {
  InetAddress a;
  socklen_t len = sizeof(a.addr);
  ::getpeername(fd, reinterpret_cast<sockaddr*>(&a.addr), &len);
  return a;
}

bool IsSelfConnect(int fd) {
  const InetAddress local = LocalAddress(fd), peer = PeerAddress(fd);
  return local.addr.sin_port == peer.addr.sin_port &&
         local.addr.sin_addr.s_addr == peer.addr.sin_addr.s_addr;
}

void ShutdownWrite(int fd) { ::shutdown(fd, SHUT_WR); }

void Close(int fd) {
  if (::close(fd) < 0 && errno != EINTR) {
    reactor_internal::ReportErrno("reactor: close(%d) failed", fd);
  }
}

}  // namespace sockets
}  // namespace serverkit::reactor
