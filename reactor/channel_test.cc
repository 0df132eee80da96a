// -----------------------------------------------------------------------------
// reactor/channel_test.cc
// -----------------------------------------------------------------------------
//
// Channel: which callback each returned event reaches, in which order the
// completion-based results and the readiness callbacks run, that a tied
// owner gone stops dispatch, and registration with its loop (interest on,
// off, removed; a readable fd reaches the read callback through the poll;
// a request for one more read reaches only an edge-triggered poller).

#include "reactor/channel.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "reactor/event_loop.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

// A channel whose every callback appends its name to `calls`.
class ChannelTest : public ::testing::Test {
 protected:
  ChannelTest() {
    channel_.set_read_callback([this](Clock::time_point t) {
      calls_.push_back("read");
      read_time_ = t;
    });
    channel_.set_write_callback([this] { calls_.push_back("write"); });
    channel_.set_close_callback([this] { calls_.push_back("close"); });
    channel_.set_error_callback([this] { calls_.push_back("error"); });
  }

  // What `revents` dispatches to.
  std::vector<std::string> Dispatch(int revents) {
    calls_.clear();
    channel_.set_revents(revents);
    channel_.handle_event(Clock::now());
    return calls_;
  }

  using Calls = std::vector<std::string>;
  EventLoop loop_;
  Channel channel_{&loop_, -1};  // never registered: dispatch only
  Calls calls_;
  Clock::time_point read_time_{};
};

TEST_F(ChannelTest, EachEventReachesItsCallback) {
  EXPECT_EQ(Dispatch(EPOLLIN), Calls{"read"});
  EXPECT_EQ(Dispatch(EPOLLPRI), Calls{"read"});
  EXPECT_EQ(Dispatch(EPOLLRDHUP), Calls{"read"});
  EXPECT_EQ(Dispatch(EPOLLOUT), Calls{"write"});
  EXPECT_EQ(Dispatch(EPOLLERR), Calls{"error"});
  EXPECT_EQ(Dispatch(0), Calls{});
  EXPECT_EQ(Dispatch(EPOLLIN | EPOLLOUT), (Calls{"read", "write"}));
}

TEST_F(ChannelTest, AHangUpClosesOnlyWhenNothingIsLeftToRead) {
  EXPECT_EQ(Dispatch(EPOLLHUP), Calls{"close"});
  // Readable with the hang-up: the read sees the EOF (and what precedes it).
  EXPECT_EQ(Dispatch(EPOLLHUP | EPOLLIN), Calls{"read"});
  EXPECT_EQ(Dispatch(EPOLLHUP | EPOLLERR), (Calls{"close", "error"}));
}

TEST_F(ChannelTest, TheReadCallbackGetsThePollsTime) {
  const auto t = Clock::now() - 1s;
  channel_.set_revents(EPOLLIN);
  channel_.handle_event(t);
  EXPECT_EQ(read_time_, t);
}

TEST_F(ChannelTest, SentThenReceivedThenReadinessRunInThatOrder) {
  std::vector<std::string> received;
  bool ended = false;
  int end_error = -1;
  channel_.set_send_callback([&](std::size_t sent, int error) {
    calls_.push_back("sent " + std::to_string(sent) + " " +
                     std::to_string(error));
  });
  channel_.set_recv_callback([&](Channel::Received& r, Clock::time_point) {
    calls_.push_back("received");
    for (std::string_view d : r.data) received.emplace_back(d);
    ended = r.ended;
    end_error = r.error;
  });
  calls_.clear();
  channel_.add_received("ab");
  channel_.add_received("cd");
  channel_.end_received(0);
  channel_.add_sent(7, 0);
  channel_.set_revents(EPOLLOUT);
  channel_.handle_event(Clock::now());
  EXPECT_EQ(calls_, (Calls{"sent 7 0", "received", "write"}));
  EXPECT_EQ(received, (std::vector<std::string>{"ab", "cd"}));
  EXPECT_TRUE(ended);
  EXPECT_EQ(end_error, 0);
  // Dispatched once: the next event carries none of it.
  EXPECT_EQ(Dispatch(0), Calls{});
}

TEST_F(ChannelTest, ClearReceivedDropsWhatWasNotDispatched) {
  int recv_calls = 0;
  channel_.set_recv_callback(
      [&](Channel::Received&, Clock::time_point) { ++recv_calls; });
  int send_calls = 0;
  channel_.set_send_callback([&](std::size_t, int) { ++send_calls; });
  channel_.add_received("lost");
  channel_.end_received(ECONNRESET);
  channel_.add_sent(3, 0);
  channel_.clear_received();
  EXPECT_EQ(Dispatch(0), Calls{});
  EXPECT_EQ(recv_calls, 0);
  EXPECT_EQ(send_calls, 0);
}

TEST_F(ChannelTest, ATiedOwnerGoneStopsDispatch) {
  auto owner = std::make_shared<int>(1);
  channel_.tie(owner);
  EXPECT_EQ(Dispatch(EPOLLIN), Calls{"read"});
  owner.reset();
  EXPECT_EQ(Dispatch(EPOLLIN), Calls{});
}

TEST(ChannelLoopTest, InterestRegistersWithTheLoopAndRemoveForgets) {
  EventLoop loop;
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  Channel channel(&loop, fd);
  EXPECT_TRUE(channel.is_none_event());
  EXPECT_FALSE(loop.has_channel(&channel));
  channel.enable_reading();
  EXPECT_TRUE(channel.is_reading());
  EXPECT_FALSE(channel.is_writing());
  EXPECT_TRUE(loop.has_channel(&channel));
  channel.enable_writing();
  EXPECT_TRUE(channel.is_writing());
  channel.disable_writing();
  EXPECT_FALSE(channel.is_writing());
  EXPECT_TRUE(channel.is_reading());
  channel.disable_all();
  EXPECT_TRUE(channel.is_none_event());
  channel.remove();
  EXPECT_FALSE(loop.has_channel(&channel));
  ::close(fd);
}

// more_to_read() is a request to a poller whose reads are edge-triggered
// (UringPoller's multishot polls); elsewhere nothing is asked.
TEST(ChannelLoopTest, MoreToReadAsksOnlyWhereReadsAreEdgeTriggered) {
  EventLoop loop;
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  Channel channel(&loop, fd);
  EXPECT_FALSE(channel.drains_reads());
  channel.set_drains_reads(true);
  EXPECT_TRUE(channel.drains_reads());
  channel.enable_reading();
  EXPECT_FALSE(channel.edge_reads());
  channel.more_to_read();  // level-triggered here: nothing to ask
  EXPECT_FALSE(channel.take_more_to_read());
  channel.set_edge_reads(true);  // as a poller that keeps reads armed does
  channel.more_to_read();
  EXPECT_TRUE(channel.take_more_to_read());
  EXPECT_FALSE(channel.take_more_to_read());  // taken once
  EXPECT_TRUE(loop.has_channel(&channel));
  EXPECT_TRUE(channel.is_reading());
  channel.disable_all();
  channel.remove();
  EXPECT_FALSE(channel.edge_reads());  // removed: no poller to ask
  channel.more_to_read();
  EXPECT_FALSE(channel.take_more_to_read());
  EXPECT_FALSE(loop.has_channel(&channel));
  ::close(fd);
}

TEST(ChannelLoopTest, AReadableFdReachesTheReadCallbackThroughThePoll) {
  EventLoop loop;
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  Channel channel(&loop, fd);
  std::uint64_t got = 0;
  channel.set_read_callback([&](Clock::time_point) {
    ASSERT_EQ(::read(fd, &got, sizeof got), static_cast<ssize_t>(sizeof got));
    loop.quit();
  });
  channel.enable_reading();
  loop.run_after(5s, [&] { loop.quit(); });  // a guard, if it never fires
  const std::uint64_t one = 1;
  ASSERT_EQ(::write(fd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  loop.loop();
  EXPECT_EQ(got, 1u);
  channel.disable_all();
  channel.remove();
  ::close(fd);
}

}  // namespace
}  // namespace serverkit::reactor
