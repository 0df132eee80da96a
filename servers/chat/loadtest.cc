// -----------------------------------------------------------------------------
// servers/chat/loadtest.cc
// -----------------------------------------------------------------------------
//
// The chat load test, used unchanged against every chat server.
//
//   loadtest <host> <port> <connections> [threads] [--rounds=R]
//            [--message_size=N] [--json=PATH] [--timeout=S]
//            [--server_pid=PID]
//
// muduo's arguments first (examples/asio/chat/loadtest.cc). Written directly
// on epoll: one level-triggered epoll loop per thread, clients spread
// round-robin, one read() of up to 64 KiB per readiness event.
//
//   1. Connect: K clients (non-blocking connects, at most 256 in flight). It
//      raises its soft RLIMIT_NOFILE to the hard limit first, and fails at
//      once, saying so, when K clients cannot fit under it.
//   2. Join: a client's connect completes before the server has registered
//      it, so client 0 sends join probes (one every 20 ms at first, backing
//      off to 1 s) until every client has received the latest one. Probes
//      are then discarded; none is in flight any more.
//   3. R measured rounds, one after the other: in round r client r mod K
//      sends a message (--message_size bytes, default 64) whose body carries
//      r and the send time (steady clock, ns). Every client, the sender
//      included (as in muduo's chat), records the arrival; the receiver that
//      completes round r sends round r + 1 at once.
//
// Checks: every client receives every round's message exactly once and in
// order, with the right length and filler bytes; a duplicate, a gap (loss or
// reordering), a malformed frame, a connection closed by the server, or a
// phase that makes no progress for --timeout seconds (default 30) fails the
// run. After the last round it waits 50 ms for stray duplicates.
//
// Reports the time until all K had each round (p50, min, max over rounds)
// and the per-receiver delivery latency over all rounds (p50, p99, max),
// the load test's own CPU over the measured rounds (client_cpu_s) and, with
// --server_pid, the server's over the same interval (server_cpu_rounds_s,
// from /proc/PID/task/*/schedstat; -1 when unreadable).
//
// Output: one human summary on stdout and, with --json=PATH, one JSON
// object. Exit status 0 when the run was clean, 1 when it failed (the reason
// on stderr and in the JSON's "error"), 2 on usage.

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/cache_line.h"
#include "base/percentile.h"
#include "servers/chat/codec.h"
#include "servers/pingpong/common.h"

namespace serverkit::chat {
namespace {

using Clock = std::chrono::steady_clock;
using pingpong::ParseLong;

constexpr std::size_t kReadSize = 64 * 1024;
constexpr int kConnectWindow = 256;

struct Options {
  std::string host;
  int port = 0;
  int clients = 0;
  int threads = 1;
  std::uint32_t rounds = 100;
  std::size_t message_size = 64;
  std::string json;
  double timeout = 30;
  long server_pid = 0;
};

[[noreturn]] void Usage(int code) {
  std::FILE* out = code == 0 ? stdout : stderr;
  std::fprintf(
      out,
      "usage: loadtest <host> <port> <connections> [threads] [--rounds=R] "
      "[--message_size=N]\n"
      "                [--json=PATH] [--timeout=S] [--server_pid=PID]\n"
      "  Connects <connections> chat clients, waits until the server has "
      "them all (join probes),\n"
      "  then runs R rounds (default 100): one client sends a message of N "
      "bytes (default 64,\n"
      "  at least %zu), every client must receive it exactly once and in "
      "order.\n"
      "  Reports per-round time until all had it and per-receiver delivery "
      "percentiles.\n"
      "  --timeout: seconds any phase may go without progress (default "
      "30).\n"
      "  --server_pid: also report that process's CPU over the rounds.\n",
      kMinBody);
  std::exit(code);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  std::vector<std::string_view> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") Usage(0);
    if (a.rfind("--rounds=", 0) == 0) {
      const auto v = ParseLong(a.substr(9));
      if (!v || *v < 1 || *v > 10'000'000) Usage(2);
      o.rounds = static_cast<std::uint32_t>(*v);
    } else if (a.rfind("--message_size=", 0) == 0) {
      const auto v = ParseLong(a.substr(15));
      if (!v || *v < static_cast<long>(kMinBody) || *v > (16 << 20)) {
        Usage(2);
      }
      o.message_size = static_cast<std::size_t>(*v);
    } else if (a.rfind("--json=", 0) == 0) {
      o.json = std::string(a.substr(7));
    } else if (a.rfind("--timeout=", 0) == 0) {
      o.timeout = std::atof(std::string(a.substr(10)).c_str());
      if (!(o.timeout > 0)) Usage(2);
    } else if (a.rfind("--server_pid=", 0) == 0) {
      const auto v = ParseLong(a.substr(13));
      if (!v || *v < 1) Usage(2);
      o.server_pid = *v;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "loadtest: unknown flag %s\n", argv[i]);
      Usage(2);
    } else {
      pos.push_back(a);
    }
  }
  if (pos.size() != 3 && pos.size() != 4) Usage(2);
  o.host = std::string(pos[0]);
  const auto port = ParseLong(pos[1]);
  const auto clients = ParseLong(pos[2]);
  const auto threads = pos.size() == 4 ? ParseLong(pos[3]) : 1L;
  if (!port || *port < 1 || *port > 65535 || !clients || *clients < 1 ||
      *clients > 1'000'000 || !threads || *threads < 1 || *threads > 256) {
    Usage(2);
  }
  o.port = static_cast<int>(*port);
  o.clients = static_cast<int>(*clients);
  o.threads = static_cast<int>(*threads);
  return o;
}

std::int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

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

struct Client {
  int fd = -1;
  int id = 0;
  std::uint32_t expected = 0;  // the next round it must receive
  std::uint32_t last_probe = 0;
  bool saw_probe = false;
  std::string in;  // bytes of an incomplete frame
};

// State shared by the main thread and the loop threads.
// Memory ordering: `probe_state`, `remaining`, `rounds_done`, `finished`,
// `failed` and `stop` are atomics; a round's message is sent only after
// `remaining` was reset for it, so no receipt of round r + 1 can be counted
// against round r. The error text is under `mu`.
struct Shared {
  const Options* opt = nullptr;
  std::vector<Client>* clients = nullptr;
  std::string filler_frame;  // a frame of the right size, body rewritten
  // The latest probe (high 32 bits) and how many clients have seen it (low
  // 32 bits): one word, so a late receipt of an older probe can never be
  // counted for the newer one.
  alignas(kCacheLineSize) std::atomic<std::uint64_t> probe_state{~0ull << 32};
  alignas(kCacheLineSize) std::atomic<int> remaining{0};
  std::atomic<std::uint32_t> rounds_done{0};
  std::atomic<bool> finished{false};
  std::int64_t finish_ns = 0;  // written before `finished` is released
  alignas(kCacheLineSize) std::atomic<bool> failed{false};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::string error;

  void Fail(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    std::lock_guard<std::mutex> lock(mu);
    if (error.empty()) error = buf;
    failed.store(true, std::memory_order_release);
  }
};

// Writes all of `frame` to fd (the socket's send buffer is normally empty:
// a client sends one small message per round); waits with poll() when the
// socket is full. Returns false on error.
bool SendAll(int fd, const std::string& frame, double timeout) {
  std::size_t off = 0;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(timeout));
  while (off < frame.size()) {
    const ssize_t w =
        ::send(fd, frame.data() + off, frame.size() - off, MSG_NOSIGNAL);
    if (w > 0) {
      off += static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (Clock::now() >= deadline) return false;
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 10);
      continue;
    }
    return false;
  }
  return true;
}

std::string MakeFrame(const Options& opt, BodyKind kind, std::uint32_t seq) {
  return EncodeFrame(EncodeBody(Body{kind, seq, NowNs()}, opt.message_size));
}

// Sends round r from client r mod K.
void SendRound(Shared* sh, std::uint32_t r) {
  Client& c = (*sh->clients)[r % sh->clients->size()];
  if (!SendAll(c.fd, MakeFrame(*sh->opt, BodyKind::kRound, r),
               sh->opt->timeout)) {
    sh->Fail("round %u: client %d could not send: %s", r, c.id,
             std::strerror(errno));
  }
}

// One epoll loop thread and its clients. Everything but the atomics of
// Shared is touched only by this thread until it is joined.
class Worker {
 public:
  Worker(Shared* sh, std::vector<Client*> clients)
      : sh_(sh),
        clients_(std::move(clients)),
        scratch_(new char[kReadSize]),
        round_max_ns_(sh->opt->rounds, 0) {
    samples_us.reserve(clients_.size() * sh->opt->rounds);
  }
  ~Worker() {
    if (ep_ >= 0) ::close(ep_);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  bool Init() {
    ep_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (ep_ < 0) return false;
    for (Client* c : clients_) {
      epoll_event e{};
      e.events = EPOLLIN;
      e.data.ptr = c;
      if (::epoll_ctl(ep_, EPOLL_CTL_ADD, c->fd, &e) != 0) return false;
    }
    return true;
  }

  void Run() {
    epoll_event events[1024];
    while (!sh_->stop.load(std::memory_order_acquire)) {
      const int n = ::epoll_wait(ep_, events, 1024, 20);
      for (int i = 0; i < n; ++i) {
        HandleRead(*static_cast<Client*>(events[i].data.ptr));
      }
    }
  }

  // Read after join.
  std::vector<double> samples_us;  // every receipt of every round
  const std::vector<std::int64_t>& round_max_ns() const {
    return round_max_ns_;
  }

 private:
  void HandleRead(Client& c) {
    if (c.fd < 0) return;
    const ssize_t n = ::read(c.fd, scratch_.get(), kReadSize);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
      if (!sh_->stop.load(std::memory_order_relaxed)) {
        sh_->Fail(
            "client %d: connection closed by the server (%s) after "
            "%u rounds",
            c.id, n == 0 ? "EOF" : std::strerror(errno), c.expected);
      }
      ::epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
      return;
    }
    const std::int64_t now = NowNs();
    std::string_view view(scratch_.get(), static_cast<std::size_t>(n));
    if (!c.in.empty()) {
      c.in.append(view);
      view = c.in;
    }
    std::size_t pos = 0;
    while (view.size() - pos >= kHeaderLen) {
      const std::uint32_t len = DecodeLength(view.data() + pos);
      if (len != sh_->opt->message_size) {
        sh_->Fail("client %d: frame of %u bytes, expected %zu", c.id, len,
                  sh_->opt->message_size);
        return;
      }
      if (view.size() - pos < kHeaderLen + len) break;
      OnMessage(c, view.substr(pos + kHeaderLen, len), now);
      pos += kHeaderLen + len;
    }
    if (c.in.empty()) {
      if (pos < view.size()) c.in.assign(view.substr(pos));
    } else {
      c.in.erase(0, pos);
    }
  }

  void OnMessage(Client& c, std::string_view body, std::int64_t now) {
    const std::optional<Body> b = DecodeBody(body, sh_->opt->message_size);
    if (!b) {
      sh_->Fail("client %d: malformed message (after %u rounds)", c.id,
                c.expected);
      return;
    }
    if (b->kind == BodyKind::kProbe) {
      if (c.expected > 0 || (c.saw_probe && b->seq <= c.last_probe)) {
        sh_->Fail(
            "client %d: join probe %u out of order (last probe %u, "
            "%u rounds received)",
            c.id, b->seq, c.last_probe, c.expected);
        return;
      }
      c.saw_probe = true;
      c.last_probe = b->seq;
      std::uint64_t s = sh_->probe_state.load(std::memory_order_acquire);
      while ((s >> 32) == b->seq && !sh_->probe_state.compare_exchange_weak(
                                        s, s + 1, std::memory_order_acq_rel)) {
      }
      return;
    }
    const std::uint32_t r = b->seq;
    if (r != c.expected) {
      sh_->Fail("client %d: received round %u, expected round %u (%s)", c.id, r,
                c.expected,
                r < c.expected ? "a duplicate" : "a round lost or reordered");
      return;
    }
    if (r >= sh_->opt->rounds) {
      sh_->Fail("client %d: received round %u of %u", c.id, r,
                sh_->opt->rounds);
      return;
    }
    ++c.expected;
    const std::int64_t lat = now - b->sent_ns;
    samples_us.push_back(static_cast<double>(lat) / 1e3);
    round_max_ns_[r] = std::max(round_max_ns_[r], lat);
    if (sh_->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      sh_->rounds_done.store(r + 1, std::memory_order_release);
      if (r + 1 < sh_->opt->rounds) {
        sh_->remaining.store(static_cast<int>(sh_->clients->size()),
                             std::memory_order_release);
        SendRound(sh_, r + 1);
      } else {
        sh_->finish_ns = NowNs();
        sh_->finished.store(true, std::memory_order_release);
      }
    }
  }

  Shared* sh_;
  std::vector<Client*> clients_;
  std::unique_ptr<char[]> scratch_;
  std::vector<std::int64_t> round_max_ns_;
  int ep_ = -1;
};

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

struct Stats {
  double p50 = 0, min = 0, max = 0, p99 = 0;
};

// False (after saying why) when the clients need more descriptors than the
// limit allows even raised; `*fd_limit` is the limit (negative: unknown).
bool EnoughDescriptors(const Options& opt, long* fd_limit) {
  *fd_limit = pingpong::RaiseFdLimit();
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

// What one run measured, and the first thing that went wrong ("" if none).
struct RunResult {
  std::string error;
  double connect_seconds = 0, join_seconds = 0;
  int probes = 0;
  double client_cpu = 0, server_cpu = -1, seconds = 0;
};

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

// Statistics over the rounds: the time until every client had a round
// (ms), and each delivery's latency (us).
struct Summary {
  std::uint32_t rounds_done = 0;
  Stats rs, ds;
  std::uint64_t deliveries = 0;
};

Summary Summarize(const std::vector<std::unique_ptr<Worker>>& workers,
                  std::uint32_t rounds_done) {
  Summary s;
  s.rounds_done = rounds_done;
  std::vector<double> round_ms(rounds_done, 0.0);
  std::vector<double> samples;
  for (auto& w : workers) {
    for (std::uint32_t r = 0; r < rounds_done; ++r) {
      round_ms[r] = std::max(round_ms[r],
                             static_cast<double>(w->round_max_ns()[r]) / 1e6);
    }
    samples.insert(samples.end(), w->samples_us.begin(), w->samples_us.end());
  }
  std::sort(round_ms.begin(), round_ms.end());
  if (!round_ms.empty()) {
    s.rs.p50 = Percentile(round_ms, 0.5, true);
    s.rs.min = round_ms.front();
    s.rs.max = round_ms.back();
  }
  std::sort(samples.begin(), samples.end());
  if (!samples.empty()) {
    s.ds.p50 = Percentile(samples, 0.5, true);
    s.ds.p99 = Percentile(samples, 0.99, true);
    s.ds.max = samples.back();
  }
  s.deliveries = samples.size();
  return s;
}

void PrintSummary(const Options& opt, const RunResult& r, const Summary& s) {
  if (r.error.empty()) {
    std::printf(
        "loadtest: %d clients, %d thread(s), %u rounds of %zu-byte messages: "
        "time until all had it p50 %.3f ms (min %.3f, max %.3f); delivery "
        "p50 %.1f us, p99 %.1f us, max %.1f us; %llu deliveries in %.3f s, "
        "load test CPU %.2f cores; connect %.2f s, join %.3f s (%d probes)\n",
        opt.clients, opt.threads, opt.rounds, opt.message_size, s.rs.p50,
        s.rs.min, s.rs.max, s.ds.p50, s.ds.p99, s.ds.max,
        static_cast<unsigned long long>(s.deliveries), r.seconds,
        r.seconds > 0 ? r.client_cpu / r.seconds : 0.0, r.connect_seconds,
        r.join_seconds, r.probes);
  } else {
    std::fprintf(stderr, "loadtest: FAILED: %s\n", r.error.c_str());
  }
}

// Writes the run's record to --json. False (after saying why) when the file
// cannot be opened.
bool WriteJson(const Options& opt, long fd_limit, const RunResult& r,
               const Summary& s) {
  std::FILE* f = std::fopen(opt.json.c_str(), "w");
  if (f == nullptr) {
    std::perror(opt.json.c_str());
    return false;
  }
  std::string esc;
  for (char ch : r.error) {
    if (ch == '"' || ch == '\\') esc += '\\';
    esc += (static_cast<unsigned char>(ch) < 0x20) ? ' ' : ch;
  }
  std::fprintf(
      f,
      "{\"ok\": %s, \"error\": \"%s\", \"clients\": %d, \"threads\": %d, "
      "\"rounds\": %u, \"rounds_done\": %u, \"message_size\": %zu, "
      "\"connect_seconds\": %.6f, \"join_seconds\": %.6f, "
      "\"join_probes\": %d, \"seconds\": %.6f, \"deliveries\": %llu, "
      "\"round_ms\": {\"p50\": %.6f, \"min\": %.6f, \"max\": %.6f}, "
      "\"delivery_us\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}, "
      "\"client_cpu_s\": %.6f, \"server_cpu_rounds_s\": %.6f, "
      "\"fd_limit\": %ld}\n",
      r.error.empty() ? "true" : "false", esc.c_str(), opt.clients, opt.threads,
      opt.rounds, s.rounds_done, opt.message_size, r.connect_seconds,
      r.join_seconds, r.probes, r.seconds,
      static_cast<unsigned long long>(s.deliveries), s.rs.p50, s.rs.min,
      s.rs.max, s.ds.p50, s.ds.p99, s.ds.max, r.client_cpu, r.server_cpu,
      fd_limit);
  std::fclose(f);
  return true;
}

int Main(int argc, char** argv) {
  const Options opt = ParseArgs(argc, argv);
  std::signal(SIGPIPE, SIG_IGN);

  long fd_limit = -1;
  if (!EnoughDescriptors(opt, &fd_limit)) return 1;

  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(opt.port));
  if (::inet_pton(AF_INET, opt.host.c_str(), &addr.sin_addr) != 1) {
    std::fprintf(stderr, "loadtest: bad IPv4 address %s\n", opt.host.c_str());
    return 2;
  }

  std::vector<Client> clients(static_cast<std::size_t>(opt.clients));
  Shared sh;
  sh.opt = &opt;
  sh.clients = &clients;
  std::vector<std::unique_ptr<Worker>> workers;
  const RunResult r = RunLoad(opt, addr, &sh, clients, &workers);
  const Summary s = Summarize(workers, sh.rounds_done.load());
  PrintSummary(opt, r, s);
  if (!opt.json.empty() && !WriteJson(opt, fd_limit, r, s)) return 1;
  return r.error.empty() ? 0 : 1;
}

}  // namespace
}  // namespace serverkit::chat

int main(int argc, char** argv) { return serverkit::chat::Main(argc, argv); }
