// -----------------------------------------------------------------------------
// components/by_name_test.cc
// -----------------------------------------------------------------------------
//
// The by-name library (by_name.h): flags and their variables, exit 2 with
// the valid names, each factory returning the implementation it was asked
// for, and each control costing at least its stated CPU.

#include "components/by_name.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/thread_cpu.h"

namespace serverkit::components {
namespace {

// argv for TakeFlags; the strings live as long as the object.
class Args {
 public:
  Args(std::initializer_list<const char*> args) {
    for (const char* a : args) strings_.emplace_back(a);
    for (auto& s : strings_) ptrs_.push_back(s.data());
  }
  int argc() { return static_cast<int>(ptrs_.size()); }
  char** argv() { return ptrs_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> ptrs_;
};

// Sets an environment variable for one test and unsets it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    setenv(name, value, 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

std::vector<std::string> Strings(const std::vector<char*>& v) {
  return {v.begin(), v.end()};
}

TEST(TakeFlags, EveryFamilysFlagsAndTheRestInOrder) {
  Args args({"srv", "--task_queue=mutex", "8080", "--buffer=ring",
             "--logger=sync", "--log_file=/tmp/x.log", "--log_flush_every_line",
             "--pool=work-stealing", "--pool_threads=3", "--coalesce=0",
             "--backend=epoll", "--uring_io=completion",
             "--task_queue_slowdown_ns=10", "--buffer_slowdown_ns_per_kib=20",
             "--log_slowdown_ns=30", "--pool_slowdown_ns=40", "--mine=1"});
  Options o;
  const auto rest = TakeFlags(args.argc(), args.argv(), "srv", &o);
  EXPECT_EQ(Strings(rest),
            (std::vector<std::string>{"srv", "8080", "--mine=1"}));
  EXPECT_EQ(o.task_queue, "mutex");
  EXPECT_EQ(o.buffer, "ring");
  EXPECT_EQ(o.logger, "sync");
  EXPECT_EQ(o.log_file, "/tmp/x.log");
  EXPECT_TRUE(o.log_flush_every_line);
  EXPECT_EQ(o.pool, "work-stealing");
  EXPECT_EQ(o.pool_threads, 3u);
  EXPECT_FALSE(o.coalesce);
  EXPECT_EQ(o.backend, reactor::PollerBackend::kEpoll);
  EXPECT_EQ(o.uring_io, reactor::UringIo::kCompletion);
  EXPECT_EQ(o.task_queue_slowdown_ns, 10u);
  EXPECT_EQ(o.buffer_slowdown_ns_per_kib, 20u);
  EXPECT_EQ(o.log_slowdown_ns, 30u);
  EXPECT_EQ(o.pool_slowdown_ns, 40u);
}

TEST(TakeFlags, TheProgramsDefaultsStandWithoutAFlag) {
  Args args({"srv"});
  Options o;
  o.pool = "mutex";
  o.pool_threads = 2;
  o.logger = "sync";
  TakeFlags(args.argc(), args.argv(), "srv", &o);
  EXPECT_EQ(o.pool, "mutex");
  EXPECT_EQ(o.pool_threads, 2u);
  EXPECT_EQ(o.logger, "sync");
  EXPECT_EQ(o.task_queue, "swap-vector");
}

TEST(TakeFlags, ExtraFlagSeesEachArgumentFirst) {
  Args args({"srv", "--logger=sync", "--work_ns=5"});
  Options o;
  std::vector<std::string> seen;
  const auto rest = TakeFlags(args.argc(), args.argv(), "srv", &o, kAllFamilies,
                              [&](std::string_view a) {
                                seen.emplace_back(a);
                                return a == "--work_ns=5";
                              });
  EXPECT_EQ(seen, (std::vector<std::string>{"--logger=sync", "--work_ns=5"}));
  EXPECT_EQ(Strings(rest), std::vector<std::string>{"srv"});
  EXPECT_EQ(o.logger, "sync");
}

TEST(TakeFlags, AFamilyNotTakenLeavesItsFlagsAndIgnoresItsVariables) {
  ScopedEnv env("SERVERKIT_POOL", "mutex");
  Args args({"srv", "--pool=asio", "--logger=sync"});
  Options o;
  const auto rest = TakeFlags(args.argc(), args.argv(), "srv", &o,
                              kTaskQueue | kBuffer | kLogger);
  EXPECT_EQ(Strings(rest), (std::vector<std::string>{"srv", "--pool=asio"}));
  EXPECT_EQ(o.pool, "none");
  EXPECT_EQ(o.logger, "sync");
}

TEST(TakeFlags, TheEnvironmentStandsInForAMissingFlag) {
  ScopedEnv a("SERVERKIT_LOGGER", "sync");
  ScopedEnv b("SERVERKIT_LOG_SLOWDOWN_NS", "2000");
  ScopedEnv c("SERVERKIT_POOL", "mutex");
  ScopedEnv d("SERVERKIT_LOG_FLUSH_EVERY_LINE", "1");
  ScopedEnv e("SERVERKIT_BUFFER", "");  // empty: as if unset
  Args args({"srv"});
  Options o;
  TakeFlags(args.argc(), args.argv(), "srv", &o);
  EXPECT_EQ(o.logger, "sync");
  EXPECT_EQ(o.log_slowdown_ns, 2000u);
  EXPECT_EQ(o.pool, "mutex");
  EXPECT_TRUE(o.log_flush_every_line);
  EXPECT_EQ(o.buffer, "linear");
}

TEST(TakeFlags, AFlagWinsOverItsVariable) {
  ScopedEnv a("SERVERKIT_TASK_QUEUE", "mutex");
  ScopedEnv b("SERVERKIT_LOG_FLUSH_EVERY_LINE", "1");
  Args args({"srv", "--task_queue=bounded-mpmc", "--log_flush_every_line=0"});
  Options o;
  TakeFlags(args.argc(), args.argv(), "srv", &o);
  EXPECT_EQ(o.task_queue, "bounded-mpmc");
  EXPECT_FALSE(o.log_flush_every_line);
}

TEST(TakeFlags, NamesEveryFamilysValidNames) {
  EXPECT_EQ(LoggerNames().front(), "none");
  EXPECT_EQ(PoolNames().front(), "none");
  for (const auto& names :
       {TaskQueueNames(), BufferNames(), LoggerNames(), PoolNames()}) {
    EXPECT_GE(names.size(), 3u);
  }
  // A task queue takes many producers: no single-producer queue is listed.
  for (const auto& n : TaskQueueNames()) EXPECT_NE(n, "spsc-ring");
}

// Each bad input exits 2 with the flag (or the variable) and what is valid.
void TakeOrDie(std::initializer_list<const char*> argv) {
  Args args(argv);
  Options o;
  TakeFlags(args.argc(), args.argv(), "srv", &o);
  std::exit(0);
}

TEST(TakeFlagsDeathTest, AnUnknownNameExits2WithTheList) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(TakeOrDie({"srv", "--logger=nope"}), testing::ExitedWithCode(2),
              "srv: unknown --logger 'nope'; loggers: none, sync, "
              "async-double-buffer, ");
  EXPECT_EXIT(TakeOrDie({"srv", "--task_queue=nope"}),
              testing::ExitedWithCode(2),
              "unknown --task_queue 'nope'; multi-producer queues: mutex, ");
  EXPECT_EXIT(TakeOrDie({"srv", "--buffer=nope"}), testing::ExitedWithCode(2),
              "unknown --buffer 'nope'; buffers: string, linear, ");
  EXPECT_EXIT(TakeOrDie({"srv", "--pool=nope"}), testing::ExitedWithCode(2),
              "unknown --pool 'nope'; pools: none, mutex, ");
}

TEST(TakeFlagsDeathTest, AnUnknownNameInTheEnvironmentNamesTheVariable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("SERVERKIT_POOL", "nope", 1);
        TakeOrDie({"srv"});
      },
      testing::ExitedWithCode(2),
      "srv: unknown SERVERKIT_POOL 'nope'; pools: none, mutex, ");
}

TEST(TakeFlagsDeathTest, ABadNumberExits2NamingTheFlag) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(TakeOrDie({"srv", "--log_slowdown_ns=-5"}),
              testing::ExitedWithCode(2),
              "srv: --log_slowdown_ns takes 0 to 1000000000, not '-5'");
  EXPECT_EXIT(TakeOrDie({"srv", "--pool_threads=0"}),
              testing::ExitedWithCode(2),
              "--pool_threads takes 1 to 256, not '0'");
  EXPECT_EXIT(TakeOrDie({"srv", "--coalesce=yes"}), testing::ExitedWithCode(2),
              "--coalesce takes 0 or 1, not 'yes'");
  EXPECT_EXIT(TakeOrDie({"srv", "--backend=kqueue"}),
              testing::ExitedWithCode(2),
              "--backend takes epoll or uring, not 'kqueue'");
  EXPECT_EXIT(TakeOrDie({"srv", "--uring_io=0"}), testing::ExitedWithCode(2),
              "--uring_io takes readiness or completion, not '0'");
  EXPECT_EXIT(
      {
        setenv("SERVERKIT_TASK_QUEUE_SLOWDOWN_NS", "1e3", 1);
        TakeOrDie({"srv"});
      },
      testing::ExitedWithCode(2),
      "SERVERKIT_TASK_QUEUE_SLOWDOWN_NS takes 0 to 1000000000, not '1e3'");
}

TEST(TakeFlagsDeathTest, APoolControlWithoutAPoolExits2) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(TakeOrDie({"srv", "--pool_slowdown_ns=100"}),
              testing::ExitedWithCode(2),
              "--pool_slowdown_ns slows submits to a pool: set --pool");
}

TEST(MakeTaskQueueFactory, ReturnsEveryNamedQueue) {
  for (const std::string& name : TaskQueueNames()) {
    Options o;
    o.task_queue = name;
    const auto q = MakeTaskQueueFactory("srv", o)();
    EXPECT_EQ(q->name(), name);
    int ran = 0;
    q->push([&] { ++ran; });
    reactor::Functor f;
    ASSERT_TRUE(q->try_pop(f)) << name;
    f();
    EXPECT_EQ(ran, 1) << name;
  }
}

TEST(MakeTaskQueueFactory, TheControlSpinsItsNsPerPop) {
  Options o;
  o.task_queue = "mutex";
  o.task_queue_slowdown_ns = 200'000;
  const auto q = MakeTaskQueueFactory("srv", o)();
  EXPECT_EQ(q->name(), "mutex+slowed-200000ns");
  q->push([] {});
  reactor::Functor f;
  const std::uint64_t t0 = ThreadCpuNs();
  ASSERT_TRUE(q->try_pop(f));
  EXPECT_GE(ThreadCpuNs() - t0, 200'000u);
  // An empty pop costs nothing extra.
  const std::uint64_t t1 = ThreadCpuNs();
  EXPECT_FALSE(q->try_pop(f));
  EXPECT_LT(ThreadCpuNs() - t1, 200'000u);
}

TEST(LoopOptions, CarriesTheQueueAndTheLoopsChoices) {
  Options o;
  o.coalesce = false;
  o.backend = reactor::PollerBackend::kUring;
  o.uring_io = reactor::UringIo::kCompletion;
  const auto lo = LoopOptions(MakeTaskQueueFactory("srv", o), o);
  EXPECT_EQ(lo.task_queue->name(), "swap-vector");
  EXPECT_FALSE(lo.coalesce_wakeups);
  EXPECT_EQ(lo.backend, reactor::PollerBackend::kUring);
  EXPECT_EQ(lo.uring_io, reactor::UringIo::kCompletion);
}

TEST(WithBuffer, CallsServeWithEveryNamedBuffer) {
  for (const std::string& name : BufferNames()) {
    Options o;
    o.buffer = name;
    std::string got;
    const int rc = WithBuffer("srv", o, [&]<typename B>() {
      got = B::kName;
      return 7;
    });
    EXPECT_EQ(rc, 7);
    EXPECT_EQ(got, name);
  }
}

TEST(ChargeConsumed, SpinsNsPerKibConsumed) {
  Options o;
  o.buffer_slowdown_ns_per_kib = 100'000;
  const std::uint64_t t0 = ThreadCpuNs();
  ChargeConsumed(o, 4096);  // 4 KiB: 400 us
  EXPECT_GE(ThreadCpuNs() - t0, 400'000u);
}

using LogCall = void(int);

TEST(MakeLogger, ReturnsEveryNamedLoggerWritingToTheFile) {
  const std::string dir = testing::TempDir();
  for (const std::string& name : LoggerNames()) {
    Options o;
    o.logger = name;
    o.log_file = dir + "/by_name_" + name + ".log";
    std::remove(o.log_file.c_str());
    std::function<LogCall> log;
    std::string bound;
    {
      const std::shared_ptr<void> owner = MakeLogger<LogCall>(
          "srv", o,
          [&](auto* l) -> std::function<LogCall> {
            bound = std::remove_pointer_t<decltype(l)>::kName;
            return [l](int i) { SK_LOG_INFO(*l, "line {}", i); };
          },
          &log);
      if (name == "none") {
        EXPECT_EQ(owner, nullptr);
        EXPECT_FALSE(log);
        continue;
      }
      ASSERT_NE(owner, nullptr) << name;
      EXPECT_EQ(bound, name);
      log(42);
    }  // the owner's end flushes an async logger
    std::ifstream in(o.log_file);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("line 42"), std::string::npos) << name;
  }
}

TEST(MakeLogger, TheControlSpinsItsNsPerCall) {
  Options o;
  o.logger = "sync";
  o.log_slowdown_ns = 300'000;
  std::function<LogCall> log;
  const auto owner = MakeLogger<LogCall>(
      "srv", o, [](auto*) -> std::function<LogCall> { return [](int) {}; },
      &log);
  const std::uint64_t t0 = ThreadCpuNs();
  log(1);
  EXPECT_GE(ThreadCpuNs() - t0, 300'000u);
}

TEST(MakeLoggerDeathTest, ALogThatCannotBeOpenedExits2) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Options o;
  o.logger = "sync";
  o.log_file = "/nonexistent/dir/x.log";
  std::function<LogCall> log;
  EXPECT_EXIT(
      MakeLogger<LogCall>(
          "srv", o, [](auto*) -> std::function<LogCall> { return [](int) {}; },
          &log),
      testing::ExitedWithCode(2),
      "srv: cannot open the log '/nonexistent/dir/x.log'");
}

TEST(MakePool, ReturnsEveryNamedPoolThatRunsATask) {
  for (const std::string& name : PoolNames()) {
    Options o;
    o.pool = name;
    o.pool_threads = 2;
    const std::unique_ptr<Pool> pool = MakePool("srv", o);
    if (name == "none") {
      EXPECT_EQ(pool, nullptr);
      continue;
    }
    ASSERT_NE(pool, nullptr) << name;
    EXPECT_EQ(pool->name(), name);
    std::atomic<int> ran{0};
    ASSERT_TRUE(pool->try_submit(Task([&] { ran.fetch_add(1); })));
    pool->shutdown(ShutdownMode::kDrain);
    EXPECT_EQ(ran.load(), 1) << name;
    EXPECT_EQ(pool->submitted(), 1u);
    EXPECT_FALSE(pool->try_submit(Task([] {})));
    EXPECT_EQ(pool->failed_submits(), 1u);
  }
  EXPECT_EQ(FindPool("nope", 1), nullptr);
}

TEST(MakePool, TheControlSpinsItsNsPerSubmit) {
  Options o;
  o.pool = "mutex";
  o.pool_slowdown_ns = 250'000;
  const std::unique_ptr<Pool> pool = MakePool("srv", o);
  const std::uint64_t t0 = ThreadCpuNs();
  ASSERT_TRUE(pool->try_submit(Task([] {})));
  EXPECT_GE(ThreadCpuNs() - t0, 250'000u);
  pool->shutdown(ShutdownMode::kDrain);
}

TEST(Counts, EachFamilysOperationsAreCountedWithTheControlOff) {
  Options o;
  o.logger = "sync";
  o.pool = "mutex";
  const Counts before = ReadCounts();
  const auto q = MakeTaskQueueFactory("srv", o)();
  q->push([] {});
  q->push([] {});
  reactor::Functor f;
  while (q->try_pop(f)) {
  }
  ChargeConsumed(o, 100);
  std::function<LogCall> log;
  const auto owner = MakeLogger<LogCall>(
      "srv", o, [](auto*) -> std::function<LogCall> { return [](int) {}; },
      &log);
  log(1);
  log(2);
  log(3);
  const std::unique_ptr<Pool> pool = MakePool("srv", o);
  ASSERT_TRUE(pool->try_submit(Task([] {})));
  pool->shutdown(ShutdownMode::kDrain);
  const Counts after = ReadCounts();
  EXPECT_EQ(after.tasks_run - before.tasks_run, 2u);
  EXPECT_EQ(after.bytes_in - before.bytes_in, 100u);
  EXPECT_EQ(after.log_lines - before.log_lines, 3u);
  EXPECT_EQ(after.pool_tasks_run - before.pool_tasks_run, 1u);
  std::FILE* f2 = std::tmpfile();
  PrintCounts(f2);
  std::rewind(f2);
  char line[256] = {};
  ASSERT_NE(std::fgets(line, sizeof(line), f2), nullptr);
  std::fclose(f2);
  EXPECT_EQ(std::string(line).rfind("serverkit components: tasks run ", 0), 0u)
      << line;
  EXPECT_NE(std::string(line).find(", pool tasks run "), std::string::npos);
}

TEST(Help, ListsOnlyTheFamiliesTaken) {
  const std::string all = Help();
  EXPECT_NE(all.find("--pool_slowdown_ns=N"), std::string::npos);
  EXPECT_NE(all.find("SERVERKIT_<FLAG>"), std::string::npos);
  const std::string some = Help(kTaskQueue | kLogger);
  EXPECT_EQ(some.find("--pool"), std::string::npos);
  EXPECT_EQ(some.find("--buffer"), std::string::npos);
  EXPECT_NE(some.find("--log_file=PATH"), std::string::npos);
}

}  // namespace
}  // namespace serverkit::components
