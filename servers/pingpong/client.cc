// -----------------------------------------------------------------------------
// servers/pingpong/client.cc
// -----------------------------------------------------------------------------
//
// The one ping-pong client, used unchanged against every server.
//
//   client <ip> <port> <threads> <blocksize> <sessions> <time>
//          [--protocol=echo|header] [--count=N] [--json=PATH] [--verify]
//          [--connect_timeout=S]
//
// muduo's positional arguments first. Written directly on epoll (one
// level-triggered epoll loop per thread, sessions spread round-robin, one
// read() of up to 64 KiB per readiness event and one send() back) rather than
// on Asio or libevent, so that the client belongs to none of the servers it
// compares and costs about two syscalls per message.
//
// Measurement. All sessions connect first (non-blocking connects, at most 256
// in flight per thread, one connect deadline for the whole phase; failures are
// counted, never waited on). The measured interval starts when every session
// is connected or has failed, and only then does any session send:
//   - echo: each session sends one `blocksize` block (byte i = i mod 128) and
//     echoes whatever it reads. After `time` seconds the client snapshots the
//     bytes read by all sessions and the elapsed time: MiB/s =
//     bytes / seconds / 2^20 over the measured seconds (muduo divides by the
//     nominal time and counts from before the connects).
//   - header: each session sends {body_size=100, packet_count=1} + body, checks
//     every reply (same header, body byte i = (packet_count + i) mod 256), and
//     answers with body_size + 1, packet_count + 1 until packet_count reaches
//     `count`. `time` is then the limit on the whole run. Reports the total
//     time (last completion), messages/s, and p50/p99 of per-session
//     completion times.
//
// Output: one human line on stdout and, with --json=PATH, one JSON object.
// Exit status 0 when the run was clean, 1 when some session failed (connect
// failure, verification error, closed by the server, unfinished), 2 on usage.

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <latch>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/cache_line.h"
#include "base/percentile.h"
#include "servers/pingpong/common.h"

namespace serverkit::pingpong {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadSize = 64 * 1024;
constexpr int kConnectWindow =
    256;  // non-blocking connects in flight per thread

struct ClientOptions {
  std::string ip;
  int port = 0;
  int threads = 1;
  std::size_t blocksize = 0;
  int sessions = 0;
  double seconds = 0;
  Protocol protocol = Protocol::kEcho;
  std::uint32_t count = 8192;
  std::string json;
  bool verify = false;
  double connect_timeout = -1;  // < 0: 10 s + 1 ms per session
};

[[noreturn]] void Usage(int code) {
  std::FILE* out = code == 0 ? stdout : stderr;
  std::fprintf(
      out,
      "usage: client <ip> <port> <threads> <blocksize> <sessions> <time>\n"
      "              [--protocol=echo|header] [--count=N] [--json=PATH] "
      "[--verify]\n"
      "              [--connect_timeout=S]\n"
      "  echo (default): each session sends one <blocksize> block, then echoes "
      "what it reads;\n"
      "         reports MiB/s read over <time> seconds measured from the "
      "moment all sessions are connected.\n"
      "         --verify checks every byte read against the block pattern.\n"
      "  header: {uint32 body_size, uint32 packet_count} + body round trips, "
      "body 100 bytes growing by 1,\n"
      "         until packet_count reaches --count (default 8192); <time> "
      "bounds the run; replies are verified.\n"
      "  --connect_timeout: seconds for the whole connect phase (default 10 + "
      "sessions/1000).\n");
  std::exit(code);
}

ClientOptions ParseArgs(int argc, char** argv) {
  ClientOptions o;
  std::vector<std::string_view> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") Usage(0);
    if (a.rfind("--protocol=", 0) == 0) {
      const auto p = ParseProtocol(a.substr(11));
      if (!p) Usage(2);
      o.protocol = *p;
    } else if (a.rfind("--count=", 0) == 0) {
      const auto v = ParseLong(a.substr(8));
      if (!v || *v < 1 || *v > 100'000'000) Usage(2);
      o.count = static_cast<std::uint32_t>(*v);
    } else if (a.rfind("--json=", 0) == 0) {
      o.json = std::string(a.substr(7));
    } else if (a == "--verify") {
      o.verify = true;
    } else if (a.rfind("--connect_timeout=", 0) == 0) {
      o.connect_timeout = std::atof(std::string(a.substr(18)).c_str());
      if (o.connect_timeout <= 0) Usage(2);
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "client: unknown flag %s\n", argv[i]);
      Usage(2);
    } else {
      pos.push_back(a);
    }
  }
  if (pos.size() != 6) Usage(2);
  o.ip = std::string(pos[0]);
  const auto port = ParseLong(pos[1]);
  const auto threads = ParseLong(pos[2]);
  const auto block = ParseLong(pos[3]);
  const auto sessions = ParseLong(pos[4]);
  o.seconds = std::atof(std::string(pos[5]).c_str());
  if (!port || *port < 1 || *port > 65535 || !threads || *threads < 1 ||
      *threads > 256 || !block || *block < 1 || *block > (64 << 20) ||
      !sessions || *sessions < 1 || *sessions > 1'000'000 || !(o.seconds > 0)) {
    Usage(2);
  }
  o.port = static_cast<int>(*port);
  o.threads = static_cast<int>(*threads);
  o.blocksize = static_cast<std::size_t>(*block);
  o.sessions = static_cast<int>(*sessions);
  if (o.connect_timeout < 0) o.connect_timeout = 10.0 + o.sessions / 1000.0;
  return o;
}

// State shared by the main thread and the loop threads.
// Memory ordering: `go` and `stop` are release-stored by the main thread and
// acquire-loaded by the loops; `start` is written before `go` is released.
struct Shared {
  const ClientOptions* opt = nullptr;
  sockaddr_in addr{};
  Clock::time_point connect_deadline;
  std::string echo_block2;   // the echo block twice (verification window)
  std::string body_pattern;  // header bodies (see BodyPattern)
  std::latch* connected = nullptr;  // counted down once per loop thread
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  Clock::time_point start;
};

struct Session {
  enum class State : std::uint8_t {
    kIdle,
    kConnecting,
    kConnected,
    kDone,
    kClosed
  };
  int fd = -1;
  State state = State::kIdle;
  bool want_write = false;  // EPOLLOUT registered
  std::string out;          // bytes the socket did not take yet
  std::size_t out_off = 0;
  std::uint64_t stream_off = 0;  // echo --verify: bytes read so far
  std::string in;                // header: a reply not complete yet
  Header sent{0, 0};             // header: the message awaiting its reply
};

// One epoll loop thread and the sessions it owns. Everything but the atomics
// is touched only by the loop thread until it is joined.
class Worker {
 public:
  Worker(Shared* shared, int sessions)
      : sh_(shared), sessions_(static_cast<std::size_t>(sessions)) {
    scratch_.reset(new char[kReadSize]);
  }
  ~Worker() {
    for (Session& s : sessions_) {
      if (s.fd >= 0) ::close(s.fd);
    }
    if (ep_ >= 0) ::close(ep_);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Run() {
    ep_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (ep_ < 0) {
      std::perror("client: epoll_create1");
      connect_failures.store(static_cast<int>(sessions_.size()));
      sh_->connected->count_down();
      return;
    }
    ConnectAll();
    connect_failures.store(connect_failures_local_, std::memory_order_relaxed);
    connected.store(connected_local_, std::memory_order_relaxed);
    sh_->connected->count_down();
    sh_->go.wait(false, std::memory_order_acquire);
    if (sh_->stop.load(std::memory_order_acquire)) return;
    for (Session& s : sessions_) {
      if (s.state != Session::State::kConnected) continue;
      if (sh_->opt->protocol == Protocol::kEcho) {
        Send(s, sh_->echo_block2.data(), sh_->opt->blocksize);
      } else {
        SendMessage(s, Header{kFirstBodySize, 1});
      }
    }
    Loop();
  }

  // Results. Written by the loop thread; `bytes` and `messages` are also read
  // by the main thread while the loop runs (relaxed: a snapshot).
  alignas(kCacheLineSize) std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> messages{0};
  std::atomic<int> connected{0};
  std::atomic<int> connect_failures{0};
  std::atomic<int> finished{0};  // header: sessions done or closed
  // Read after join.
  int errors = 0;
  int peer_closed = 0;
  int first_errno = 0;
  std::vector<double> completion_seconds;  // header: per finished session

 private:
  void ConnectAll() {
    std::size_t next = 0;
    int inflight = 0;
    epoll_event events[256];
    auto last_scan = Clock::now();
    while (next < sessions_.size() || inflight > 0) {
      while (inflight < kConnectWindow && next < sessions_.size()) {
        if (StartConnect(sessions_[next++])) ++inflight;
      }
      if (inflight == 0) continue;
      const int n = ::epoll_wait(ep_, events, 256, 20);
      for (int i = 0; i < n; ++i) {
        Session& s = *static_cast<Session*>(events[i].data.ptr);
        if (s.state != Session::State::kConnecting) continue;
        --inflight;
        int err = 0;
        socklen_t len = sizeof(err);
        if (::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
          err = errno;
        }
        if (err == 0 && (events[i].events & (EPOLLERR | EPOLLHUP)) == 0) {
          s.state = Session::State::kConnected;
          ++connected_local_;
          Watch(s, EPOLLIN);
        } else {
          FailConnect(s, err != 0 ? err : ECONNRESET);
        }
      }
      const auto now = Clock::now();
      if (now >= sh_->connect_deadline ||
          now - last_scan >= std::chrono::milliseconds(100)) {
        last_scan = now;
        if (now >= sh_->connect_deadline) {
          for (std::size_t i = 0; i < next; ++i) {
            if (sessions_[i].state == Session::State::kConnecting) {
              FailConnect(sessions_[i], ETIMEDOUT);
              --inflight;
            }
          }
          for (; next < sessions_.size(); ++next) {
            ++connect_failures_local_;
            sessions_[next].state = Session::State::kClosed;
          }
        }
      }
    }
  }

  // Returns true when a connect is in flight.
  bool StartConnect(Session& s) {
    if (Clock::now() >= sh_->connect_deadline) {
      FailConnect(s, ETIMEDOUT);
      return false;
    }
    s.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s.fd < 0) {
      FailConnect(s, errno);
      return false;
    }
    const int one = 1;
    ::setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    const int rc = ::connect(
        s.fd, reinterpret_cast<const sockaddr*>(&sh_->addr), sizeof(sh_->addr));
    if (rc == 0) {
      s.state = Session::State::kConnected;
      ++connected_local_;
      Add(s, EPOLLIN);
      return false;
    }
    if (errno != EINPROGRESS) {
      FailConnect(s, errno);
      return false;
    }
    s.state = Session::State::kConnecting;
    Add(s, EPOLLOUT);
    return true;
  }

  void FailConnect(Session& s, int err) {
    ++connect_failures_local_;
    if (first_errno == 0) first_errno = err;
    if (s.fd >= 0) ::close(s.fd);  // also leaves the epoll set
    s.fd = -1;
    s.state = Session::State::kClosed;
  }

  void Add(Session& s, std::uint32_t ev) {
    epoll_event e{};
    e.events = ev;
    e.data.ptr = &s;
    ::epoll_ctl(ep_, EPOLL_CTL_ADD, s.fd, &e);
  }

  void Watch(Session& s, std::uint32_t ev) {
    epoll_event e{};
    e.events = ev;
    e.data.ptr = &s;
    ::epoll_ctl(ep_, EPOLL_CTL_MOD, s.fd, &e);
    s.want_write = (ev & EPOLLOUT) != 0;
  }

  void Close(Session& s, bool finished_ok) {
    if (s.fd >= 0) ::close(s.fd);
    s.fd = -1;
    s.state = finished_ok ? Session::State::kDone : Session::State::kClosed;
    finished.store(finished.load(std::memory_order_relaxed) + 1,
                   std::memory_order_relaxed);
  }

  void Fail(Session& s) {
    ++errors;
    Close(s, false);
  }

  void Loop() {
    epoll_event events[1024];
    while (!sh_->stop.load(std::memory_order_acquire)) {
      const int n = ::epoll_wait(ep_, events, 1024, 50);
      for (int i = 0; i < n; ++i) {
        Session& s = *static_cast<Session*>(events[i].data.ptr);
        if (s.state != Session::State::kConnected) continue;
        const std::uint32_t ev = events[i].events;
        if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) HandleRead(s);
        if ((ev & EPOLLOUT) && s.state == Session::State::kConnected) {
          HandleWrite(s);
        }
      }
    }
  }

  void HandleRead(Session& s) {
    const ssize_t n = ::read(s.fd, scratch_.get(), kReadSize);
    if (n > 0) {
      if (sh_->opt->protocol == Protocol::kEcho) {
        OnEchoData(s, scratch_.get(), static_cast<std::size_t>(n));
      } else {
        OnHeaderData(s, scratch_.get(), static_cast<std::size_t>(n));
      }
      return;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (sh_->stop.load(std::memory_order_relaxed)) return;
    ++peer_closed;
    if (first_errno == 0) first_errno = n == 0 ? ECONNRESET : errno;
    Close(s, false);
  }

  void OnEchoData(Session& s, const char* data, std::size_t n) {
    bytes.store(bytes.load(std::memory_order_relaxed) + n,
                std::memory_order_relaxed);
    messages.store(messages.load(std::memory_order_relaxed) + 1,
                   std::memory_order_relaxed);
    if (sh_->opt->verify && !VerifyEcho(s, data, n)) {
      Fail(s);
      return;
    }
    Send(s, data, n);
  }

  bool VerifyEcho(Session& s, const char* data, std::size_t n) {
    const std::size_t block = sh_->opt->blocksize;
    std::size_t pos = s.stream_off % block;
    s.stream_off += n;
    while (n > 0) {
      const std::size_t m = std::min(n, block);
      if (std::memcmp(data, sh_->echo_block2.data() + pos, m) != 0) {
        return false;
      }
      data += m;
      n -= m;
      pos = (pos + m) % block;
    }
    return true;
  }

  void OnHeaderData(Session& s, const char* data, std::size_t n) {
    // Usually one read holds exactly one reply; buffer only partial ones.
    std::string_view view(data, n);
    if (!s.in.empty()) {
      s.in.append(data, n);
      view = s.in;
    }
    if (view.size() < kHeaderSize) {
      if (s.in.empty()) s.in.assign(data, n);
      return;
    }
    const Header h = DecodeHeader(view.data());
    if (h.body_size != s.sent.body_size ||
        h.packet_count != s.sent.packet_count) {
      Fail(s);
      return;
    }
    const std::size_t need = kHeaderSize + h.body_size;
    if (view.size() < need) {
      if (s.in.empty()) s.in.assign(data, n);
      return;
    }
    if (view.size() > need ||
        std::memcmp(view.data() + kHeaderSize,
                    BodyOf(sh_->body_pattern, h.packet_count),
                    h.body_size) != 0) {
      Fail(s);  // more than one reply, or a wrong body
      return;
    }
    s.in.clear();
    bytes.store(bytes.load(std::memory_order_relaxed) + need,
                std::memory_order_relaxed);
    messages.store(messages.load(std::memory_order_relaxed) + 1,
                   std::memory_order_relaxed);
    if (h.packet_count >= sh_->opt->count) {
      completion_seconds.push_back(
          std::chrono::duration<double>(Clock::now() - sh_->start).count());
      Close(s, true);
      return;
    }
    SendMessage(s, Header{h.body_size + 1, h.packet_count + 1});
  }

  void SendMessage(Session& s, Header h) {
    s.sent = h;
    const std::size_t size = kHeaderSize + h.body_size;
    if (msg_.size() < size) msg_.resize(size);
    EncodeHeader(h, msg_.data());
    std::memcpy(msg_.data() + kHeaderSize,
                BodyOf(sh_->body_pattern, h.packet_count), h.body_size);
    Send(s, msg_.data(), size);
  }

  void Send(Session& s, const char* data, std::size_t n) {
    if (s.out_off < s.out.size()) {  // earlier bytes still queued
      s.out.append(data, n);
      return;
    }
    const ssize_t w = ::send(s.fd, data, n, MSG_NOSIGNAL);
    if (w == static_cast<ssize_t>(n)) return;
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
      if (!sh_->stop.load(std::memory_order_relaxed)) {
        ++peer_closed;
        if (first_errno == 0) first_errno = errno;
      }
      Close(s, false);
      return;
    }
    const std::size_t done = w > 0 ? static_cast<std::size_t>(w) : 0;
    s.out.assign(data + done, n - done);
    s.out_off = 0;
    Watch(s, EPOLLIN | EPOLLOUT);
  }

  void HandleWrite(Session& s) {
    while (s.out_off < s.out.size()) {
      const ssize_t w = ::send(s.fd, s.out.data() + s.out_off,
                               s.out.size() - s.out_off, MSG_NOSIGNAL);
      if (w > 0) {
        s.out_off += static_cast<std::size_t>(w);
        continue;
      }
      if (w < 0 && (errno == EAGAIN || errno == EINTR)) return;
      if (!sh_->stop.load(std::memory_order_relaxed)) {
        ++peer_closed;
        if (first_errno == 0) first_errno = errno;
      }
      Close(s, false);
      return;
    }
    s.out.clear();
    s.out_off = 0;
    Watch(s, EPOLLIN);
  }

  Shared* sh_;
  std::vector<Session> sessions_;
  std::unique_ptr<char[]> scratch_;
  std::vector<char> msg_;
  int ep_ = -1;
  int connected_local_ = 0;
  int connect_failures_local_ = 0;
};

// CPU seconds (user + system) of this process so far.
double CpuSeconds() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// Raises the descriptor limit and warns when the sessions need more than it
// allows. Returns the limit (negative when unknown), reported in the JSON.
long CheckFdLimit(const ClientOptions& opt) {
  const long fd_limit = RaiseFdLimit();
  const long fds_needed = opt.sessions + 2L * opt.threads + 16;
  if (fd_limit >= 0 && fds_needed > fd_limit) {
    std::fprintf(stderr,
                 "client: %d sessions need about %ld descriptors but "
                 "RLIMIT_NOFILE allows %ld (soft raised to the hard limit); "
                 "the sessions beyond it will fail to connect\n",
                 opt.sessions, fds_needed, fd_limit);
  }
  return fd_limit;
}

// Fills in the server's address and the payloads the protocol checks
// against. False (after saying why) when the address is not IPv4.
bool PrepareShared(const ClientOptions& opt, Shared& sh) {
  sh.opt = &opt;
  sh.addr.sin_family = AF_INET;
  sh.addr.sin_port = htons(static_cast<std::uint16_t>(opt.port));
  if (::inet_pton(AF_INET, opt.ip.c_str(), &sh.addr.sin_addr) != 1) {
    std::fprintf(stderr, "client: bad IPv4 address %s\n", opt.ip.c_str());
    return false;
  }
  if (opt.protocol == Protocol::kEcho) {
    sh.echo_block2 = EchoBlock(opt.blocksize);
    sh.echo_block2 += sh.echo_block2;
  } else {
    sh.body_pattern = BodyPattern(kFirstBodySize + opt.count);
  }
  return true;
}

// What one run measured, summed over the worker threads.
struct RunTotals {
  int connected = 0;
  int connect_failures = 0;
  double connect_seconds = 0;
  double cpu_seconds = 0;  // client CPU over the measured interval
  std::uint64_t bytes = 0;
  std::uint64_t messages = 0;
  Clock::time_point end;
  int errors = 0;
  int peer_closed = 0;
  int first_errno = 0;
  std::vector<double> completion;  // header: each finished session's time
};

// Waits until the measured interval is over: its length (echo), or every
// connected session finished (header).
void WaitForEnd(const ClientOptions& opt,
                const std::vector<std::unique_ptr<Worker>>& workers,
                int connected, Clock::time_point limit) {
  if (opt.protocol == Protocol::kEcho) {
    std::this_thread::sleep_until(limit);
    return;
  }
  while (Clock::now() < limit) {
    int finished = 0;
    for (auto& w : workers) {
      finished += w->finished.load(std::memory_order_relaxed);
    }
    if (finished >= connected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Connects every session, releases them at once, measures, stops and joins
// the workers.
RunTotals RunWorkers(const ClientOptions& opt, Shared& sh) {
  RunTotals r;
  std::latch connected_latch(opt.threads);
  sh.connected = &connected_latch;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < opt.threads; ++t) {
    // Round-robin: session i goes to thread i % threads.
    const int n = opt.sessions / opt.threads + (t < opt.sessions % opt.threads);
    workers.push_back(std::make_unique<Worker>(&sh, n));
  }
  const auto connect_start = Clock::now();
  sh.connect_deadline =
      connect_start + std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double>(opt.connect_timeout));
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->Run(); });
  connected_latch.wait();

  for (auto& w : workers) {
    r.connected += w->connected.load(std::memory_order_relaxed);
    r.connect_failures += w->connect_failures.load(std::memory_order_relaxed);
  }
  r.connect_seconds =
      std::chrono::duration<double>(Clock::now() - connect_start).count();

  const double cpu_start = CpuSeconds();
  sh.start = Clock::now();
  const auto limit = sh.start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(opt.seconds));
  sh.go.store(true, std::memory_order_release);
  sh.go.notify_all();

  r.end = sh.start;
  if (r.connected > 0) {
    WaitForEnd(opt, workers, r.connected, limit);
    r.end = Clock::now();
    for (auto& w : workers) {
      r.bytes += w->bytes.load(std::memory_order_relaxed);
      r.messages += w->messages.load(std::memory_order_relaxed);
    }
  }
  // Client CPU over the measured interval, in cores: near `threads` means the
  // client, not the server, may be what limits the figure.
  r.cpu_seconds = CpuSeconds() - cpu_start;
  sh.stop.store(true, std::memory_order_release);
  sh.go.notify_all();
  for (auto& t : threads) t.join();

  for (auto& w : workers) {
    r.errors += w->errors;
    r.peer_closed += w->peer_closed;
    if (r.first_errno == 0) r.first_errno = w->first_errno;
    r.completion.insert(r.completion.end(), w->completion_seconds.begin(),
                        w->completion_seconds.end());
  }
  return r;
}

// The figures the summary line and the JSON report.
struct Figures {
  int completed = 0;
  double seconds = 0;
  double mib_per_s = 0;
  double messages_per_s = 0;
  double p50 = 0;
  double p99 = 0;
  double pmax = 0;
  int unfinished = 0;
  const char* errno_text = "";
};

// Sorts `r.completion` (Percentile does) on the way.
Figures ComputeFigures(const ClientOptions& opt, const Shared& sh,
                       RunTotals& r) {
  Figures f;
  f.completed = static_cast<int>(r.completion.size());
  f.seconds = std::chrono::duration<double>(r.end - sh.start).count();
  if (opt.protocol == Protocol::kHeader && f.completed == r.connected &&
      f.completed > 0) {
    f.seconds = *std::max_element(r.completion.begin(), r.completion.end());
  }
  f.mib_per_s =
      f.seconds > 0 ? static_cast<double>(r.bytes) / f.seconds / (1 << 20) : 0;
  f.messages_per_s =
      f.seconds > 0 ? static_cast<double>(r.messages) / f.seconds : 0;
  f.p50 = Percentile(r.completion, 0.50);
  f.p99 = Percentile(r.completion, 0.99);
  f.pmax = r.completion.empty() ? 0 : r.completion.back();
  f.unfinished =
      opt.protocol == Protocol::kHeader ? r.connected - f.completed : 0;
  f.errno_text = r.first_errno != 0 ? std::strerror(r.first_errno) : "";
  return f;
}

void PrintSummary(const ClientOptions& opt, const RunTotals& r,
                  const Figures& f) {
  if (opt.protocol == Protocol::kEcho) {
    std::printf(
        "client: echo %d sessions x %zu B, %d threads: %.2f MiB/s (%llu bytes "
        "in %.3f s, %llu messages, avg %.0f B/message, client CPU %.2f "
        "cores; connect failures %d, closed by server %d, errors %d)\n",
        opt.sessions, opt.blocksize, opt.threads, f.mib_per_s,
        static_cast<unsigned long long>(r.bytes), f.seconds,
        static_cast<unsigned long long>(r.messages),
        r.messages > 0 ? static_cast<double>(r.bytes) / r.messages : 0.0,
        f.seconds > 0 ? r.cpu_seconds / f.seconds : 0.0, r.connect_failures,
        r.peer_closed, r.errors);
  } else {
    std::printf(
        "client: header %d sessions x %u messages, %d threads: %.3f s total, "
        "%.0f messages/s, %.2f MiB/s, session time p50 %.3f s p99 %.3f s; "
        "completed %d, unfinished %d, connect failures %d, closed by server "
        "%d, errors %d\n",
        opt.sessions, opt.count, opt.threads, f.seconds, f.messages_per_s,
        f.mib_per_s, f.p50, f.p99, f.completed, f.unfinished,
        r.connect_failures, r.peer_closed, r.errors);
  }
  if (r.first_errno != 0) {
    std::fprintf(stderr, "client: first socket error: %s\n", f.errno_text);
  }
}

// Writes the run's record to --json. False (after saying why) when the file
// cannot be opened.
bool WriteJson(const ClientOptions& opt, long fd_limit, const RunTotals& r,
               const Figures& f) {
  std::FILE* file = std::fopen(opt.json.c_str(), "w");
  if (file == nullptr) {
    std::perror(opt.json.c_str());
    return false;
  }
  std::fprintf(
      file,
      "{\"protocol\": \"%s\", \"sessions\": %d, \"blocksize\": %zu, "
      "\"threads\": %d, \"seconds\": %.6f, \"nominal_seconds\": %.6f, "
      "\"bytes\": %llu, \"mib_per_s\": %.4f, \"messages\": %llu, "
      "\"messages_per_s\": %.2f, \"connected\": %d, "
      "\"connect_failures\": %d, \"connect_seconds\": %.6f, "
      "\"closed_by_server\": %d, \"errors\": %d, \"verify\": %s, "
      "\"count\": %u, \"completed\": %d, \"unfinished\": %d, "
      "\"p50_session_s\": %.6f, \"p99_session_s\": %.6f, "
      "\"max_session_s\": %.6f, \"client_cpu_s\": %.4f, \"fd_limit\": %ld, "
      "\"first_error\": \"%s\"}\n",
      std::string(ProtocolName(opt.protocol)).c_str(), opt.sessions,
      opt.blocksize, opt.threads, f.seconds, opt.seconds,
      static_cast<unsigned long long>(r.bytes), f.mib_per_s,
      static_cast<unsigned long long>(r.messages), f.messages_per_s,
      r.connected, r.connect_failures, r.connect_seconds, r.peer_closed,
      r.errors,
      opt.protocol == Protocol::kHeader || opt.verify ? "true" : "false",
      opt.protocol == Protocol::kHeader ? opt.count : 0, f.completed,
      f.unfinished, f.p50, f.p99, f.pmax, r.cpu_seconds, fd_limit,
      f.errno_text);
  std::fclose(file);
  return true;
}

int Main(int argc, char** argv) {
  const ClientOptions opt = ParseArgs(argc, argv);
  std::signal(SIGPIPE, SIG_IGN);

  const long fd_limit = CheckFdLimit(opt);
  Shared sh;
  if (!PrepareShared(opt, sh)) return 2;
  RunTotals r = RunWorkers(opt, sh);
  const Figures f = ComputeFigures(opt, sh, r);
  PrintSummary(opt, r, f);
  if (!opt.json.empty() && !WriteJson(opt, fd_limit, r, f)) return 1;
  const bool clean = r.connected == opt.sessions && r.connect_failures == 0 &&
                     r.errors == 0 && r.peer_closed == 0 && f.unfinished == 0;
  return clean ? 0 : 1;
}

}  // namespace
}  // namespace serverkit::pingpong

int main(int argc, char** argv) {
  return serverkit::pingpong::Main(argc, argv);
}
