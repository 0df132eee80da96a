// -----------------------------------------------------------------------------
// servers/chat/loadtest_phases.cc
// -----------------------------------------------------------------------------
//
// Connect, join, rounds (loadtest_phases.h), and the CPU they cost.

#include "servers/chat/loadtest_phases.h"

#include <dirent.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "servers/common/process.h"

namespace serverkit::chat::loadtest {
namespace {

constexpr int kConnectWindow = 256;

// CPU seconds (user + system) of this process so far.
double SelfCpuSeconds() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// CPU seconds of another process, all its threads: the sum of the first
// field (ns on the CPU) of /proc/PID/task/*/schedstat, which is exact where
// /proc/PID/stat counts clock ticks; -1 when unreadable.
double ProcCpuSeconds(long pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return -1;
  unsigned long long ns = 0;
  bool any = false;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream f(dir + "/" + e->d_name + "/schedstat");
    unsigned long long t = 0;
    if (f >> t) {
      ns += t;
      any = true;
    }
  }
  ::closedir(d);
  return any ? static_cast<double>(ns) / 1e9 : -1;
}

// Connects every client (main thread); returns an error text or "".
std::string ConnectAll(const Options& opt, const sockaddr_in& addr,
                       std::vector<Client>* clients, double* seconds) {
  const auto start = Clock::now();
  const int ep = ::epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return std::string("epoll_create1: ") + std::strerror(errno);
  std::size_t next = 0;
  int inflight = 0;
  std::size_t done = 0;
  auto last_progress = Clock::now();
  const auto budget = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(opt.timeout));
  epoll_event events[256];
  std::string error;
  while (done < clients->size() && error.empty()) {
    while (inflight < kConnectWindow && next < clients->size()) {
      Client& c = (*clients)[next];
      c.id = static_cast<int>(next++);
      c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (c.fd < 0) {
        error = "client " + std::to_string(c.id) +
                ": socket: " + std::strerror(errno);
        break;
      }
      const int one = 1;
      ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      const int rc = ::connect(c.fd, reinterpret_cast<const sockaddr*>(&addr),
                               sizeof(addr));
      if (rc == 0) {
        ++done;
        continue;
      }
      if (errno != EINPROGRESS) {
        error = "client " + std::to_string(c.id) +
                ": connect: " + std::strerror(errno);
        break;
      }
      epoll_event e{};
      e.events = EPOLLOUT;
      e.data.ptr = &c;
      ::epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &e);
      ++inflight;
    }
    if (!error.empty() || inflight == 0) continue;
    const int n = ::epoll_wait(ep, events, 256, 20);
    for (int i = 0; i < n; ++i) {
      Client& c = *static_cast<Client*>(events[i].data.ptr);
      int err = 0;
      socklen_t len = sizeof(err);
      if (::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
      }
      ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
      --inflight;
      if (err != 0 || (events[i].events & (EPOLLERR | EPOLLHUP)) != 0) {
        error = "client " + std::to_string(c.id) +
                ": connect: " + std::strerror(err != 0 ? err : ECONNRESET);
        break;
      }
      ++done;
      last_progress = Clock::now();
    }
    if (Clock::now() - last_progress > budget) {
      error = std::to_string(clients->size() - done) + " of " +
              std::to_string(clients->size()) +
              " clients still connecting after " + std::to_string(opt.timeout) +
              " s without progress";
    }
  }
  ::close(ep);
  *seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return error;
}

// Join probes until every client has the latest; returns an error or "".
std::string Join(Shared* sh, int* probes, double* seconds) {
  const auto start = Clock::now();
  const int k = static_cast<int>(sh->clients->size());
  auto last_progress = Clock::now();
  int best = 0;
  auto wait = std::chrono::milliseconds(20);
  for (std::uint32_t p = 0;; ++p) {
    sh->probe_state.store(std::uint64_t{p} << 32, std::memory_order_release);
    *probes = static_cast<int>(p) + 1;
    Client& c0 = (*sh->clients)[0];
    if (!SendAll(c0.fd, MakeFrame(*sh->opt, BodyKind::kProbe, p),
                 sh->opt->timeout)) {
      return std::string("join: client 0 could not send a probe: ") +
             std::strerror(errno);
    }
    const auto until = Clock::now() + wait;
    while (Clock::now() < until) {
      if (sh->failed.load(std::memory_order_acquire)) return "";
      const int seen = static_cast<int>(
          sh->probe_state.load(std::memory_order_acquire) & 0xffffffffu);
      if (seen >= k) {
        *seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return "";
      }
      if (seen > best) {
        best = seen;
        last_progress = Clock::now();
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    if (Clock::now() - last_progress >
        std::chrono::duration<double>(sh->opt->timeout)) {
      return "join: at most " + std::to_string(best) + " of " +
             std::to_string(k) + " clients received a probe (" +
             std::to_string(p + 1) + " sent), no progress for " +
             std::to_string(sh->opt->timeout) +
             " s (the server did not register them all)";
    }
    wait = std::min(wait * 2, std::chrono::milliseconds(1000));
  }
}

// Deals the clients round-robin to opt.threads workers; returns an error or
// "".
std::string MakeWorkers(Shared* sh, std::vector<Client>& clients,
                        std::vector<std::unique_ptr<Worker>>* workers) {
  const int threads = sh->opt->threads;
  for (int t = 0; t < threads; ++t) {
    std::vector<Client*> mine;
    for (std::size_t i = static_cast<std::size_t>(t); i < clients.size();
         i += static_cast<std::size_t>(threads)) {
      mine.push_back(&clients[i]);
    }
    workers->push_back(std::make_unique<Worker>(sh, std::move(mine)));
    if (!workers->back()->Init()) {
      return std::string("epoll: ") + std::strerror(errno);
    }
  }
  return "";
}

// Runs the rounds once every client has joined: sends the first, waits for
// the last (or for a round that makes no progress within the timeout), and
// records the time and CPU they took.
void RunRounds(const Options& opt, Shared* sh, RunResult* r) {
  const double cpu0 = SelfCpuSeconds();
  const double server0 =
      opt.server_pid > 0 ? ProcCpuSeconds(opt.server_pid) : -1;
  const std::int64_t start_ns = NowNs();
  sh->remaining.store(opt.clients, std::memory_order_release);
  SendRound(sh, 0);
  std::uint32_t seen_rounds = 0;
  auto last_progress = Clock::now();
  while (!sh->finished.load(std::memory_order_acquire) &&
         !sh->failed.load(std::memory_order_acquire)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::uint32_t done = sh->rounds_done.load(std::memory_order_acquire);
    if (done != seen_rounds) {
      seen_rounds = done;
      last_progress = Clock::now();
    } else if (Clock::now() - last_progress >
               std::chrono::duration<double>(opt.timeout)) {
      const int missing = sh->remaining.load();
      r->error = "round " + std::to_string(done) + ": " +
                 std::to_string(missing) + " of " +
                 std::to_string(opt.clients) +
                 " clients have not received it after " +
                 std::to_string(opt.timeout) + " s (lost)";
      break;
    }
  }
  if (sh->finished.load(std::memory_order_acquire)) {
    r->client_cpu = SelfCpuSeconds() - cpu0;
    if (server0 >= 0) {
      const double server1 = ProcCpuSeconds(opt.server_pid);
      if (server1 >= 0) r->server_cpu = server1 - server0;
    }
    r->seconds = static_cast<double>(sh->finish_ns - start_ns) / 1e9;
    // Stray duplicates of the last rounds would arrive now.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

// False (after saying why) when the clients need more descriptors than the
// limit allows even raised; `*fd_limit` is the limit (negative: unknown).
bool EnoughDescriptors(const Options& opt, long* fd_limit) {
  *fd_limit = servers::RaiseFdLimit();
  const long fds_needed = opt.clients + 2L * opt.threads + 16;
  if (*fd_limit >= 0 && fds_needed > *fd_limit) {
    std::fprintf(stderr,
                 "loadtest: %d clients need about %ld descriptors but "
                 "RLIMIT_NOFILE allows %ld even with the soft limit raised "
                 "to the hard limit; raise the hard limit (ulimit -Hn) or "
                 "use fewer clients\n",
                 opt.clients, fds_needed, *fd_limit);
    return false;
  }
  return true;
}

// Connects, joins and runs every round, then stops the workers and closes
// the clients.
RunResult RunLoad(const Options& opt, const sockaddr_in& addr, Shared* sh,
                  std::vector<Client>& clients,
                  std::vector<std::unique_ptr<Worker>>* workers) {
  RunResult r;
  r.error = ConnectAll(opt, addr, &clients, &r.connect_seconds);
  std::vector<std::thread> threads;
  if (r.error.empty()) r.error = MakeWorkers(sh, clients, workers);
  if (r.error.empty()) {
    for (auto& w : *workers) threads.emplace_back([&w] { w->Run(); });
    r.error = Join(sh, &r.probes, &r.join_seconds);
  }
  if (r.error.empty() && !sh->failed.load()) RunRounds(opt, sh, &r);
  sh->stop.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  for (Client& c : clients) {
    if (c.fd >= 0) ::close(c.fd);
  }
  if (r.error.empty() && sh->failed.load()) {
    std::lock_guard<std::mutex> lock(sh->mu);
    r.error = sh->error;
  }
  return r;
}

}  // namespace serverkit::chat::loadtest
