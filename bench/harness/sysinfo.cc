// -----------------------------------------------------------------------------
// bench/harness/sysinfo.cc
// -----------------------------------------------------------------------------
//
// The CPUs this process may run on, pinning threads to them, the process's
// CPU time and the CPU model (harness.h, internal/sysinfo.h).

#include "bench/harness/internal/sysinfo.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <cstddef>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness/harness.h"

namespace serverkit::bench {

namespace {
bool g_pin_failed = false;
}  // namespace

int Cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

std::vector<int> AllowedCpus() {
  static const std::vector<int> cpus = [] {
    std::vector<int> out;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
      for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &set)) out.push_back(c);
      }
    }
    return out;
  }();
  return cpus;
}

bool PinToCore(int index) {
  const std::vector<int> cpus = AllowedCpus();
  if (cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus[static_cast<std::size_t>(index) % cpus.size()], &set);
  const bool ok =
      pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
  if (!ok) g_pin_failed = true;
  return ok;
}

void UnpinThread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : AllowedCpus()) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void ThreadCounters(benchmark::State& state, int threads) {
  state.counters["threads"] = threads;
  state.counters["oversubscribed"] = threads > Cores() ? 1 : 0;
}

double ProcessCpuNanos() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

namespace internal {

bool PinningRefused() { return g_pin_failed; }

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "unknown";
}

}  // namespace internal
}  // namespace serverkit::bench
