// SERVERKIT_PROBE: off by default and when the variable is malformed; on, it
// counts every pass of a named site from any thread and spins its stated CPU;
// the counts reach the file at exit.

#include "probe/probe.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace serverkit::probe {
namespace {

void SiteA() { SERVERKIT_PROBE("site_a"); }
void SiteB() { SERVERKIT_PROBE("site_b"); }

double ThreadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

class ProbeTest : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("SERVERKIT_PROBE");
    internal::ResetForTest();
  }
};

TEST_F(ProbeTest, OffWithoutTheVariable) {
  unsetenv("SERVERKIT_PROBE");
  internal::ResetForTest();
  for (int i = 0; i < 100; ++i) SiteA();
  EXPECT_EQ(internal::g_state.load(), kOff);
  EXPECT_EQ(internal::PassesOf("site_a"), 0u);
}

TEST_F(ProbeTest, CountsNamedSitesFromEveryThread) {
  setenv("SERVERKIT_PROBE", "site_a:0", 1);
  internal::ResetForTest();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) SiteA();
      for (int i = 0; i < 7; ++i) SiteB();  // not named: not counted
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(internal::PassesOf("site_a"), 4000u);
  EXPECT_EQ(internal::PassesOf("site_b"), 0u);
}

TEST_F(ProbeTest, SpinsItsStatedCpu) {
  setenv("SERVERKIT_PROBE", "site_b:200000", 1);  // 0.2 ms a pass
  internal::ResetForTest();
  const double t0 = ThreadCpuNs();
  for (int i = 0; i < 10; ++i) SiteB();
  EXPECT_GE(ThreadCpuNs() - t0, 10 * 200000.0);  // at least, never less
  EXPECT_EQ(internal::PassesOf("site_b"), 10u);
}

TEST_F(ProbeTest, MalformedVariableTurnsEveryProbeOff) {
  for (const char* bad : {"site_a", "site_a:", ":5", "site_a:5x", "a:1,,"}) {
    setenv("SERVERKIT_PROBE", bad, 1);
    internal::ResetForTest();
    SiteA();
    EXPECT_EQ(internal::g_state.load(), kOff) << bad;
    EXPECT_EQ(internal::PassesOf("site_a"), 0u) << bad;
  }
}

TEST_F(ProbeTest, CountsReachTheFileAtExit) {
  const std::string out = ::testing::TempDir() + "/probe_counts.txt";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("SERVERKIT_PROBE", "site_a:0,never:5", 1);
    setenv("SERVERKIT_PROBE_OUT", out.c_str(), 1);
    internal::ResetForTest();
    for (int i = 0; i < 3; ++i) SiteA();
    std::exit(0);  // runs the atexit report
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::ifstream f(out);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str(),
            "probe site_a passes 3 ns 0\nprobe never passes 0 ns 5\n");
}

}  // namespace
}  // namespace serverkit::probe
