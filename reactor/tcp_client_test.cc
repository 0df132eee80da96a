// -----------------------------------------------------------------------------
// reactor/tcp_client_test.cc
// -----------------------------------------------------------------------------
//
// TcpClient: a client whose first attempt is refused retries until the
// server appears at that port, then exchanges a message.

#include "reactor/tcp_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <string>
#include <thread>

#include "buffer/all_buffers.h"
#include "gtest/gtest.h"
#include "reactor/event_loop.h"
#include "reactor/tcp_server.h"
#include "reactor/tcp_test_support.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

TEST(TcpClientTest, RetriesUntilTheServerAppears) {
  // Find a free port, then start the server there only once the client has
  // had an attempt refused.
  std::uint16_t port;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t len = sizeof(a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    ::close(fd);
  }
  std::promise<std::string> echoed;
  std::atomic<bool> done{false};
  std::promise<TcpClient<LinearBuffer>*> client_ready;
  std::latch main_done_with_client(1);  // it reads the client's counters
  std::atomic<bool> server_listening{false};
  std::atomic<bool> connected_early{false};  // connected with no listener
  // The client's counters when it got in (loop thread; read after join).
  std::uint64_t refused_at_connect = 0;
  std::uint64_t attempts_at_connect = 0;
  std::thread client_thread([&] {
    EventLoop loop;
    TcpClient<LinearBuffer> client(&loop, InetAddress("127.0.0.1", port),
                                   "retry", 100);
    client.set_connection_callback(
        [&](const TcpConnectionPtr<LinearBuffer>& c) {
          if (c->connected()) {
            if (!server_listening.load()) connected_early.store(true);
            refused_at_connect = client.refused_attempts();
            attempts_at_connect = client.connect_attempts();
            c->send("ping");
          }
        });
    client.set_message_callback([&](const TcpConnectionPtr<LinearBuffer>&,
                                    LinearBuffer* in, Clock::time_point) {
      if (in->readable_bytes() >= 4 && !done.exchange(true)) {
        echoed.set_value(in->retrieve_as_string(4));
        loop.quit();
      }
    });
    client.set_failure_callback([&](const std::string& reason) {
      if (!done.exchange(true)) echoed.set_value("failed: " + reason);
      loop.quit();
    });
    client.connect();  // in the loop thread: the first attempt runs now
    client_ready.set_value(&client);
    loop.loop();
    main_done_with_client.wait();
  });
  // Nothing listens on the port yet: wait until the client has seen a
  // refusal (the deadline only bounds a hang).
  {
    const TcpClient<LinearBuffer>* client = client_ready.get_future().get();
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (client->refused_attempts() == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    EXPECT_GT(client->refused_attempts(), 0u)
        << "no attempt was refused while nothing listened";
    main_done_with_client.count_down();
  }
  EXPECT_FALSE(connected_early.load())
      << "the client connected before the server existed";
  std::promise<EventLoop*> ready;
  std::thread server_thread([&] {
    server_listening.store(true);  // from here on the client may get in
    EventLoop loop;
    TcpServer<LinearBuffer> server(&loop, InetAddress("127.0.0.1", port),
                                   "late");
    EchoSetup(server);
    server.start();
    ready.set_value(&loop);
    loop.loop();
  });
  EventLoop* server_loop = ready.get_future().get();
  auto f = echoed.get_future();
  const bool got = f.wait_for(20s) == std::future_status::ready;
  EXPECT_TRUE(got);
  if (got) {
    EXPECT_EQ(f.get(), "ping");
  }
  client_thread.join();
  server_loop->quit();
  server_thread.join();
  // Refused first, then a later attempt got in.
  EXPECT_GE(refused_at_connect, 1u)
      << "the client connected without an attempt refused first";
  EXPECT_GT(attempts_at_connect, refused_at_connect)
      << "the attempt that connected is not counted";
}

}  // namespace
}  // namespace serverkit::reactor
