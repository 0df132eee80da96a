// -----------------------------------------------------------------------------
// reactor/tcp_server_test.cc
// -----------------------------------------------------------------------------
//
// TcpServer over loopback: many connections at once over its I/O loops,
// descriptor exhaustion refused cleanly and served again after (typed over
// every buffer), and a taken port's error naming the address.

#include "reactor/tcp_server.h"

#include <fcntl.h>
#include <sys/resource.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "buffer/all_buffers.h"
#include "gtest/gtest.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_test_support.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

template <typename B>
class TcpServerTypedTest : public ::testing::Test {};
TYPED_TEST_SUITE(TcpServerTypedTest, AllBuffersTypes, BufferNames);

TYPED_TEST(TcpServerTypedTest, ManyConnectionsAtOnce) {
  ServerThread<TypeParam> server(2, EchoSetup<TypeParam>);
  constexpr int kConnections = 200;
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kConnections; ++i) {
    clients.push_back(std::make_unique<Client>(server.port()));
    ASSERT_TRUE(clients.back()->connected()) << i;
  }
  for (int i = 0; i < kConnections; ++i) {
    ASSERT_TRUE(clients[i]->send_all("hello " + std::to_string(i)));
  }
  for (int i = 0; i < kConnections; ++i) {
    const std::string want = "hello " + std::to_string(i);
    EXPECT_EQ(clients[i]->recv_n(want.size()), want);
  }
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (server.server()->connection_count() != kConnections &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(server.server()->connection_count(),
            static_cast<std::size_t>(kConnections));
  clients.clear();
  while (server.server()->connection_count() != 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(server.server()->connection_count(), 0u)
      << "closed connections leaked";
}

// Lowers RLIMIT_NOFILE for the duration of a test.
class NoFileLimit {
 public:
  explicit NoFileLimit(rlim_t soft) {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit r = saved_;
    r.rlim_cur = soft;
    ok_ = ::setrlimit(RLIMIT_NOFILE, &r) == 0;
  }
  ~NoFileLimit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

int OpenDescriptors() {
  int n = 0;
  for (int fd = 0; fd < 4096; ++fd) n += ::fcntl(fd, F_GETFD) != -1;
  return n;
}

TYPED_TEST(TcpServerTypedTest,
           DescriptorExhaustionRefusesCleanlyThenServesAgain) {
  ServerThread<TypeParam> server(0, EchoSetup<TypeParam>);
  {
    // Leave room for a few connections; the client ends use descriptors too
    // (same process), so the server runs out while clients keep connecting.
    NoFileLimit limit(static_cast<rlim_t>(OpenDescriptors() + 12));
    ASSERT_TRUE(limit.ok());
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < 10; ++i) {
      clients.push_back(std::make_unique<Client>(server.port()));
    }
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    auto refused = [&] {
      return server.server()->rejected_for_descriptors() +
             server.server()->failed_connections();
    };
    while (refused() == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
    EXPECT_GT(refused(), 0u)
        << "the server never ran out of descriptors; the test set-up is wrong";
  }
  // Limit restored, clients gone: the server must serve again (not spin,
  // not die).
  std::this_thread::sleep_for(50ms);
  Client c(server.port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send_all("ok"));
  EXPECT_EQ(c.recv_n(2), "ok");
}

TEST(TcpServerTest, BindingATakenPortThrowsAClearError) {
  EventLoop loop;
  TcpServer<LinearBuffer> first(&loop, InetAddress("127.0.0.1", 0), "first");
  first.start();
  const std::uint16_t port = first.listen_address().port();
  try {
    TcpServer<LinearBuffer> second(&loop, InetAddress("127.0.0.1", port),
                                   "second");
    second.start();
    FAIL() << "a second server bound the same port";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(port)),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace serverkit::reactor
