// -----------------------------------------------------------------------------
// reactor/socket_ops_test.cc
// -----------------------------------------------------------------------------
//
// InetAddress and the socket helpers over loopback: parsing and printing
// addresses, non-blocking close-on-exec sockets, bind and listen failures
// that name the address, a connect and accept whose ends agree, a refused
// connect seen through the socket error, the options read back, a
// self-connect recognised, and a write half-close the peer sees as EOF.

#include "reactor/socket_ops.h"

#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

namespace serverkit::reactor {
namespace {

int IntOption(int fd, int level, int name) {
  int v = -1;
  socklen_t len = sizeof v;
  EXPECT_EQ(::getsockopt(fd, level, name, &v, &len), 0);
  return v;
}

// Waits up to a second for `fd` to be writable (a connect's end).
bool WaitWritable(int fd) {
  pollfd p{fd, POLLOUT, 0};
  return ::poll(&p, 1, 1000) == 1;
}

// A non-blocking socket listening on an ephemeral loopback port.
struct Listener {
  Listener() {
    sockets::BindOrThrow(fd, InetAddress("127.0.0.1", 0));
    sockets::ListenOrThrow(fd);
    address = sockets::LocalAddress(fd);
  }
  ~Listener() { sockets::Close(fd); }
  const int fd = sockets::CreateNonblockingTcp();
  InetAddress address;
};

TEST(InetAddressTest, ParsesAndPrintsADottedQuad) {
  const InetAddress a("127.0.0.1", 8080);
  EXPECT_EQ(a.port(), 8080);
  EXPECT_EQ(a.to_string(), "127.0.0.1:8080");
  EXPECT_EQ(InetAddress().to_string(), "0.0.0.0:0");
}

TEST(InetAddressTest, RejectsAMalformedAddress) {
  EXPECT_THROW(InetAddress("300.1.2.3", 80), std::invalid_argument);
  EXPECT_THROW(InetAddress("localhost", 80), std::invalid_argument);
  EXPECT_THROW(InetAddress("", 80), std::invalid_argument);
}

TEST(SocketOpsTest, ANewSocketIsNonBlockingAndCloseOnExec) {
  const int fd = sockets::CreateNonblockingTcp();
  EXPECT_TRUE(::fcntl(fd, F_GETFL) & O_NONBLOCK);
  EXPECT_TRUE(::fcntl(fd, F_GETFD) & FD_CLOEXEC);
  sockets::Close(fd);
}

TEST(SocketOpsTest, BindingATakenPortThrowsNamingTheAddress) {
  Listener first;
  EXPECT_NE(first.address.port(), 0);
  const int fd = sockets::CreateNonblockingTcp();
  try {
    sockets::BindOrThrow(fd, first.address);
    FAIL() << "bound a port that is taken";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EADDRINUSE);
    EXPECT_NE(std::string(e.what()).find(first.address.to_string()),
              std::string::npos)
        << e.what();
  }
  sockets::Close(fd);
}

TEST(SocketOpsTest, ConnectAndAcceptAgreeOnBothEnds) {
  Listener server;
  InetAddress none;
  EXPECT_EQ(sockets::Accept(server.fd, &none), -1) << "nobody connected yet";
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK) << errno;
  const int client = sockets::CreateNonblockingTcp();
  const int rc = sockets::Connect(client, server.address);
  EXPECT_TRUE(rc == 0 || rc == EINPROGRESS) << rc;
  ASSERT_TRUE(WaitWritable(client));
  EXPECT_EQ(sockets::GetSocketError(client), 0);
  InetAddress peer;
  int accepted = -1;
  for (int i = 0; i < 100 && accepted < 0; ++i) {
    accepted = sockets::Accept(server.fd, &peer);
    if (accepted < 0) ::usleep(10'000);
  }
  ASSERT_GE(accepted, 0);
  EXPECT_TRUE(::fcntl(accepted, F_GETFL) & O_NONBLOCK);
  EXPECT_TRUE(::fcntl(accepted, F_GETFD) & FD_CLOEXEC);
  EXPECT_EQ(peer.to_string(), sockets::LocalAddress(client).to_string());
  EXPECT_EQ(sockets::PeerAddress(client).to_string(),
            server.address.to_string());
  EXPECT_FALSE(sockets::IsSelfConnect(client));
  // Our write half-close: the peer reads EOF, and may still write to us.
  sockets::ShutdownWrite(client);
  char c;
  pollfd p{accepted, POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 1000), 1);
  EXPECT_EQ(::read(accepted, &c, 1), 0);
  EXPECT_EQ(::write(accepted, "x", 1), 1);
  sockets::Close(accepted);
  sockets::Close(client);
}

TEST(SocketOpsTest, ARefusedConnectShowsInTheSocketError) {
  InetAddress closed;
  {
    Listener gone;  // a port that was free a moment ago, closed again
    closed = gone.address;
  }
  const int client = sockets::CreateNonblockingTcp();
  const int rc = sockets::Connect(client, closed);
  if (rc == EINPROGRESS) {
    ASSERT_TRUE(WaitWritable(client));
    EXPECT_EQ(sockets::GetSocketError(client), ECONNREFUSED);
  } else {
    EXPECT_EQ(rc, ECONNREFUSED);
  }
  sockets::Close(client);
}

TEST(SocketOpsTest, OptionsReadBackAsSet) {
  const int fd = sockets::CreateNonblockingTcp();
  sockets::SetTcpNoDelay(fd, true);
  sockets::SetKeepAlive(fd, true);
  sockets::SetReuseAddr(fd, true);
  EXPECT_NE(IntOption(fd, IPPROTO_TCP, TCP_NODELAY), 0);
  EXPECT_NE(IntOption(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
  EXPECT_NE(IntOption(fd, SOL_SOCKET, SO_REUSEADDR), 0);
  sockets::SetTcpNoDelay(fd, false);
  sockets::SetKeepAlive(fd, false);
  sockets::SetReuseAddr(fd, false);
  EXPECT_EQ(IntOption(fd, IPPROTO_TCP, TCP_NODELAY), 0);
  EXPECT_EQ(IntOption(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
  EXPECT_EQ(IntOption(fd, SOL_SOCKET, SO_REUSEADDR), 0);
  sockets::Close(fd);
}

// TCP lets a socket bound to a port connect to that very port (a
// simultaneous open with itself): the connector must recognise it.
TEST(SocketOpsTest, ASocketConnectedToItselfIsASelfConnect) {
  const int fd = sockets::CreateNonblockingTcp();
  sockets::BindOrThrow(fd, InetAddress("127.0.0.1", 0));
  const InetAddress self = sockets::LocalAddress(fd);
  const int rc = sockets::Connect(fd, self);
  ASSERT_TRUE(rc == 0 || rc == EINPROGRESS) << rc;
  ASSERT_TRUE(WaitWritable(fd));
  ASSERT_EQ(sockets::GetSocketError(fd), 0);
  EXPECT_TRUE(sockets::IsSelfConnect(fd));
  sockets::Close(fd);
}

}  // namespace
}  // namespace serverkit::reactor
