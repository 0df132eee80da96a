// EventLoop: cross-thread tasks through every kind of task queue, with and
// without wake-up coalescing; tasks queued from the loop thread; quit; timers.

#include "reactor/event_loop.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/sanitizers.h"
#include "gtest/gtest.h"
#include "queues/all_queues.h"
#include "reactor/channel.h"
#include "reactor/completion_io.h"
#include "reactor/poller/uring_poller.h"
#include "reactor/task_queue.h"

namespace serverkit::reactor {
namespace {

using namespace std::chrono_literals;

constexpr int kTasksPerThread = kUnderTsan ? 2'000 : 20'000;

// Runs a loop in its own thread for the duration of a test.
class LoopThread {
 public:
  explicit LoopThread(std::function<EventLoopOptions()> options = {}) {
    std::promise<EventLoop*> ready;
    auto future = ready.get_future();
    thread_ = std::thread([&ready, options] {
      EventLoop loop(options ? options() : EventLoopOptions{});
      ready.set_value(&loop);
      loop.loop();
    });
    loop_ = future.get();
  }
  ~LoopThread() {
    loop_->quit();
    thread_.join();
  }
  EventLoop* loop() { return loop_; }

 private:
  std::thread thread_;
  EventLoop* loop_;
};

struct QueueChoice {
  const char* name;
  std::unique_ptr<TaskQueue> (*make)();
  bool coalesce;
};

class EventLoopTaskTest : public ::testing::TestWithParam<QueueChoice> {};

TEST_P(EventLoopTaskTest, EveryCrossThreadTaskRunsOnceInTheLoopThread) {
  const QueueChoice choice = GetParam();
  LoopThread lt([choice] {
    EventLoopOptions o;
    o.task_queue = choice.make();
    o.coalesce_wakeups = choice.coalesce;
    return o;
  });
  EventLoop* loop = lt.loop();
  EXPECT_EQ(loop->task_queue_name(), std::string_view(choice.name));
  constexpr int kThreads = 4;
  std::atomic<long> sum{0};
  std::atomic<long> ran{0};
  std::atomic<int> wrong_thread{0};
  std::vector<std::thread> posters;
  for (int t = 0; t < kThreads; ++t) {
    posters.emplace_back([&] {
      for (int i = 0; i < kTasksPerThread; ++i) {
        loop->queue_in_loop([&, i] {
          if (!loop->is_in_loop_thread()) wrong_thread.fetch_add(1);
          sum.fetch_add(i);
          ran.fetch_add(1);
        });
      }
    });
  }
  for (auto& t : posters) t.join();
  // No "last task" marker: moodycamel gives no order between producers.
  const long total = static_cast<long>(kThreads) * kTasksPerThread;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (ran.load() < total && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(ran.load(), total) << "tasks never ran: a wake-up was lost";
  const long n = kTasksPerThread;
  EXPECT_EQ(sum.load(), kThreads * (n * (n - 1) / 2));
  EXPECT_EQ(wrong_thread.load(), 0);
}

template <template <typename> class Q>
std::unique_ptr<TaskQueue> Make() {
  return MakeTaskQueue<Q>();
}

INSTANTIATE_TEST_SUITE_P(
    Queues, EventLoopTaskTest,
    ::testing::Values(
        QueueChoice{"swap-vector", &Make<SwapVectorQueue>, true},
        QueueChoice{"swap-vector", &Make<SwapVectorQueue>, false},
        QueueChoice{"mutex", &Make<MutexQueue>, true},
        QueueChoice{"bounded-mpmc", &Make<BoundedMpmcQueue>, true},
        QueueChoice{"bounded-mpmc", &Make<BoundedMpmcQueue>, false},
        QueueChoice{"moodycamel", &Make<MoodycamelQueue>, true}),
    [](const ::testing::TestParamInfo<QueueChoice>& info) {
      std::string name = std::string(info.param.name) +
                         (info.param.coalesce ? "_coalesce" : "_every_post");
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

// The loop runs on the poller it was asked for: SERVERKIT_REACTOR_BACKEND
// (the *_uring_test targets set it), or epoll. io_uring may fall back to
// epoll only where it cannot be set up at all, which the probe checks.
TEST(EventLoopTest, RunsOnTheBackendAsked) {
  EventLoop loop;
  const PollerBackend asked = DefaultPollerBackend();
  std::printf("[ backend  ] asked %s, runs on %s\n",
              std::string(PollerBackendName(asked)).c_str(),
              std::string(PollerBackendName(loop.backend())).c_str());
  if (asked == PollerBackend::kUring && loop.backend() != asked) {
    std::string why;
    EXPECT_EQ(UringPoller::Create(&loop, &why), nullptr)
        << "io_uring works here, yet the loop fell back to epoll";
    return;
  }
  EXPECT_EQ(loop.backend(), asked);
  // Over io_uring, reads are completion-based (multishot receives into
  // provided buffers) where completion I/O is asked for
  // (SERVERKIT_URING_IO=completion) on kernels that have them (5.19 and
  // later); readiness otherwise, the default.
  const bool recv_off = DefaultUringIo() == UringIo::kReadiness;
  if (std::getenv("SERVERKIT_URING_IO") == nullptr) {
    EXPECT_EQ(DefaultUringIo(), UringIo::kReadiness);
  }
  // Reads and sends are completion-based together (one switch): the loop's
  // CompletionIo, or none.
  CompletionIo* const io = loop.completion_io();
  const std::size_t limit = io != nullptr ? io->receive_limit() : 0;
  std::printf("[ backend  ] reads %s (receive limit %zu bytes), writes %s\n",
              io != nullptr ? "on completion" : "on readiness", limit,
              io != nullptr ? "on completion" : "on readiness");
  if (io != nullptr) {
    EXPECT_GT(limit, 0u);
  }
  if (asked == PollerBackend::kUring) {
    struct utsname u {};
    ASSERT_EQ(::uname(&u), 0);
    int major = 0, minor = 0;
    std::sscanf(u.release, "%d.%d", &major, &minor);
    if (recv_off) {
      EXPECT_EQ(io, nullptr);
    } else if (major > 5 || (major == 5 && minor >= 19)) {
      EXPECT_NE(io, nullptr) << "kernel " << u.release;
    }
  } else {
    EXPECT_EQ(io, nullptr);
  }
  EventLoopOptions epoll_options;
  epoll_options.backend = PollerBackend::kEpoll;
  EventLoop epoll_loop(std::move(epoll_options));
  EXPECT_EQ(epoll_loop.backend(), PollerBackend::kEpoll);
  EXPECT_EQ(epoll_loop.completion_io(), nullptr);
  EXPECT_EQ(ParsePollerBackend("uring"), PollerBackend::kUring);
  EXPECT_EQ(ParsePollerBackend("epoll"), PollerBackend::kEpoll);
  EXPECT_EQ(ParsePollerBackend("kqueue"), std::nullopt);
  EXPECT_EQ(ParseUringIo("readiness"), UringIo::kReadiness);
  EXPECT_EQ(ParseUringIo("completion"), UringIo::kCompletion);
  EXPECT_EQ(ParseUringIo("0"), std::nullopt);
  EXPECT_EQ(UringIoName(UringIo::kCompletion), "completion");
  // A loop asked for readiness I/O reads and writes on readiness, whatever
  // the environment says.
  EventLoopOptions ready_options;
  ready_options.backend = PollerBackend::kUring;
  ready_options.uring_io = UringIo::kReadiness;
  EventLoop ready_loop(std::move(ready_options));
  EXPECT_EQ(ready_loop.completion_io(), nullptr);
}

// The *_uring_sq_full_test targets set SERVERKIT_URING_TEST_SQE_FAIL_EVERY
// (reactor/poller/uring_poller.h): their loops must really miss entries, which
// the poller says once per process (so a fresh one: a death test's child).
TEST(EventLoopDeathTest, InjectedMissingEntriesAreMissedAndSaid) {
  if (std::getenv("SERVERKIT_URING_TEST_SQE_FAIL_EVERY") == nullptr) {
    GTEST_SKIP() << "no missing submission entries asked for";
  }
  {
    EventLoop probe;
    if (probe.backend() != PollerBackend::kUring) {
      GTEST_SKIP() << "this loop does not run on io_uring";
    }
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        EventLoop loop;  // each tick re-arms the timerfd's poll
        loop.run_every(1ms, [] {});
        loop.run_after(30ms, [&loop] { loop.quit(); });
        loop.loop();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "reactor: io_uring submission queue full; operations wait for the "
      "next loop iteration");
}

// Where io_uring is not permitted (here: a seccomp filter that fails
// io_uring_setup with EPERM, as container runtimes do), a loop asked for it
// says so in one line and runs on epoll.
void DenyIoUringSetup() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(std::size(filter)), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    std::fprintf(stderr, "cannot install the seccomp filter\n");
    std::exit(3);
  }
}

TEST(EventLoopDeathTest, UringNotPermittedFallsBackToEpollAndSaysSo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        DenyIoUringSetup();
        EventLoopOptions options;
        options.backend = PollerBackend::kUring;
        EventLoop loop(std::move(options));
        std::exit(loop.backend() == PollerBackend::kEpoll ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "reactor: io_uring is not available here \\(Operation not "
      "permitted\\); using epoll");
}

TEST(EventLoopTest, TasksQueuedFromTheLoopRunAfterTheCurrentOne) {
  LoopThread lt;
  EventLoop* loop = lt.loop();
  std::promise<std::vector<int>> result;
  loop->run_in_loop([&] {
    auto order = std::make_shared<std::vector<int>>();
    loop->queue_in_loop([order] { order->push_back(2); });
    order->push_back(1);
    loop->queue_in_loop([order, &result] { result.set_value(*order); });
  });
  auto f = result.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(f.get(), (std::vector<int>{1, 2}));
}

TEST(EventLoopTest, QuitFromAnotherThreadWakesAnIdleLoop) {
  std::promise<EventLoop*> ready;
  std::atomic<bool> returned{false};
  std::thread t([&] {
    EventLoop loop;
    ready.set_value(&loop);
    loop.loop();
    returned = true;
  });
  EventLoop* loop = ready.get_future().get();
  std::this_thread::sleep_for(50ms);  // let it block in epoll_wait
  const auto start = std::chrono::steady_clock::now();
  loop->quit();
  t.join();
  EXPECT_TRUE(returned.load());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s)
      << "quit waited for the poll timeout instead of waking the loop";
}

TEST(EventLoopTest, TasksPostedBeforeQuitStillRun) {
  std::atomic<int> ran{0};
  std::promise<EventLoop*> ready;
  std::thread t([&] {
    EventLoop loop;
    ready.set_value(&loop);
    loop.loop();
  });
  EventLoop* loop = ready.get_future().get();
  for (int i = 0; i < 100; ++i) loop->queue_in_loop([&] { ran.fetch_add(1); });
  loop->quit();
  t.join();
  EXPECT_EQ(ran.load(), 100);
}

TEST(EventLoopTest, TimersFireAndCancel) {
  LoopThread lt;
  EventLoop* loop = lt.loop();
  std::promise<void> once;
  std::atomic<int> every{0};
  std::atomic<int> cancelled_fired{0};
  loop->run_after(20ms, [&] { once.set_value(); });
  const TimerId repeating = loop->run_every(5ms, [&] { every.fetch_add(1); });
  const TimerId doomed =
      loop->run_after(200ms, [&] { cancelled_fired.fetch_add(1); });
  loop->cancel(doomed);
  ASSERT_EQ(once.get_future().wait_for(10s), std::future_status::ready);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (every.load() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_GE(every.load(), 3);
  loop->cancel(repeating);
  std::this_thread::sleep_for(300ms);
  const int after_cancel = every.load();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(every.load(), after_cancel) << "a cancelled timer kept firing";
  EXPECT_EQ(cancelled_fired.load(), 0);
}

// A send queued for a channel that is then removed, its fd closed and the
// fd number taken by a new socket, all in one task: none of its bytes may
// reach the new socket. (Over io_uring a send's submission entry names the
// fd by number; the poller makes it only in its poll, just before the
// submit, and drops a removed channel's send the kernel has not taken.)
TEST(EventLoopTest, ARemovedChannelsSendNeverReachesItsFdNumbersNextOwner) {
  LoopThread lt;
  EventLoop* loop = lt.loop();
  CompletionIo* const io = loop->completion_io();
  if (io == nullptr) {
    GTEST_SKIP() << "this loop's poller does not send (epoll, or io_uring "
                    "without provided buffers)";
  }
  int a[2];
  int b[2] = {-1, -1};
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, a), 0);
  std::promise<void> done;
  loop->run_in_loop([&] {
    Channel channel(loop, a[0]);
    channel.set_send_callback([](std::size_t, int) {});
    channel.enable_reading();
    const std::string_view text = "bytes for a connection that is gone";
    BufferStorage bytes;
    bytes.assign(text.data(), text.size());
    io->send(&channel, std::move(bytes));
    channel.disable_all();
    channel.remove();
    ::close(a[0]);
    // The lowest free number: a[0]'s (the loop thread opens nothing else).
    ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, b);
    done.set_value();
  });
  done.get_future().wait();
  ASSERT_EQ(b[0], a[0]) << "the new socket did not get the closed number";
  for (int i = 0; i < 5; ++i) {  // let the loop poll and submit a few times
    std::promise<void> went_round;
    loop->run_in_loop([&] { went_round.set_value(); });
    went_round.get_future().wait();
  }
  std::this_thread::sleep_for(50ms);
  char buf[64];
  EXPECT_EQ(::recv(b[1], buf, sizeof buf, MSG_DONTWAIT), -1)
      << "the removed channel's send reached the fd number's next owner";
  EXPECT_EQ(::recv(a[1], buf, sizeof buf, MSG_DONTWAIT), 0)
      << "expected only the closed peer's EOF";
  ::close(a[1]);
  ::close(b[0]);
  ::close(b[1]);
}

TEST(EventLoopDeathTest, UsingALoopFromAnotherThreadAbortsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EventLoop loop;
  EXPECT_DEATH(
      {
        std::thread t([&] { loop.loop(); });
        t.join();
      },
      "outside its thread");
}

}  // namespace
}  // namespace serverkit::reactor
