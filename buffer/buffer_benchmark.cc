// The buffer sweep: `bazel run -c opt //bench:buffer`, then optionally
// `-- --profile=full` (the long sweep) or `-- --profile=smoke` (a moment).
//
// Every buffer in buffer/all_buffers.h, called through its concrete type (no
// virtual calls), runs every scenario:
//
//   burger    Burger's RingBuffer benchmark done honestly. One iteration:
//             retrieve_all, append a 64 KiB block, retrieve part of it, append
//             that much less 8, prepend 8. kept_pct is the share of the first
//             block still readable when the second append comes, which is what
//             a linear buffer must move back (Burger's "95%+ / 50% / 5%
//             moved" columns). The source bytes are allocated once, outside
//             the timed loop; bytes_per_second counts every byte appended,
//             prepended and retrieved (2 x (64 KiB + part) per iteration,
//             where Burger counted a flat 64 KiB); moved_per_iter is what the
//             buffer copied inside itself. Buffers start default-constructed
//             and are warmed up by one untimed iteration, which grows each to
//             64 KiB: the workload sizes them.
//   fd_echo   read_fd / write_fd through an AF_UNIX socketpair. One iteration:
//             the peer writes `bytes`, the buffer read_fd()s them, write_fd()s
//             them back, the peer reads them. bytes_per_second counts the bytes
//             the buffer read and wrote (2 x bytes). Its CPU time includes
//             the peer's write and read (server_echo leaves them out).
//   server_echo  the server's half of fd_echo, what the ping-pong server does
//             per message with a connection's input buffer: one read_fd,
//             then each readable span written with write() and retrieved
//             (reactor/tcp_connection.h, send(B*)). kConnections
//             socketpairs, one buffer each; the peer fills them all and
//             drains them outside the timed region, which is the server
//             thread's own CPU clock around the server's calls (manual
//             time). One iteration is one message; cpu_ns_per_msg is that
//             CPU per message, system calls included; clock_ns_per_msg the
//             share of it that is the clock's own cost (not subtracted);
//             bytes_per_second counts 2 x bytes per message, per server CPU
//             second. The validation's buffer metric (validation/micro.py).
//   framed    length-prefixed messages (4-byte length, then the body; bodies
//             of msg/2 .. 3*msg/2 bytes) arriving in `read`-byte chunks that
//             ignore message boundaries. After each chunk is appended, the
//             parser takes every complete message: the header through
//             peek_into (never moves), the message through peek(4 + length),
//             which a wrapped RingBuffer must make contiguous. The parse
//             itself is a token touch of the first and last bytes, so the
//             buffer's costs are what is measured. One iteration is one pass
//             over a fixed stream; bytes_per_second counts the stream,
//             moved_pct what the buffer moved as a share of it.
//
// Single-threaded throughout: no thread counters, no pinning. Rates
// (bytes_per_second, items_per_second) are Google Benchmark's defaults for
// single-threaded runs: per CPU second of the benchmark thread, system calls
// included, so time lost to other processes on this shared machine is not
// charged to a buffer. Repetitions run in random interleaved order (the
// harness's default).

#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bench/harness/harness.h"
#include "buffer/all_buffers.h"
#include "buffer/buffer.h"

namespace serverkit::bench {
namespace {

constexpr std::size_t kBlock = 64 * 1024;

const std::string& SourceBytes() {
  static const std::string bytes = [] {
    std::string s(4 * kBlock, '\0');
    std::mt19937_64 rng(7);
    for (char& c : s) c = static_cast<char>(rng());
    return s;
  }();
  return bytes;
}

void MovedCounter(benchmark::State& state, const char* name,
                  std::uint64_t moved) {
  state.counters[name] = benchmark::Counter(static_cast<double>(moved),
                                            benchmark::Counter::kAvgIterations);
}

// -------------------------------------------------------------------- burger

template <Buffer B>
void BurgerIteration(B& b, const char* src, std::size_t part) {
  b.retrieve_all();
  b.append(src, kBlock);
  b.retrieve(part);
  b.append(src + kBlock, part - 8);
  b.prepend(src + 2 * kBlock, 8);
}

template <Buffer B>
void BM_Burger(benchmark::State& state, int kept_pct) {
  const std::size_t part =
      kBlock * static_cast<std::size_t>(100 - kept_pct) / 100;
  const char* src = SourceBytes().data();
  B b;
  BurgerIteration(b, src, part);  // warm-up: the workload sizes the buffer
  const std::uint64_t moved_before = b.bytes_moved();
  for (auto _ : state) {
    BurgerIteration(b, src, part);
    benchmark::ClobberMemory();
  }
  if (b.readable_bytes() != kBlock) {
    state.SkipWithError("the buffer does not hold one block at the end");
    return;
  }
  // appended + prepended (kBlock + part) and retrieved (part + kBlock)
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(2 * (kBlock + part)));
  MovedCounter(state, "moved_per_iter", b.bytes_moved() - moved_before);
  state.counters["capacity"] = static_cast<double>(b.capacity());
}

// ------------------------------------------------------------------- fd_echo

bool PeerWrite(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool PeerRead(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

template <Buffer B>
bool EchoOnce(B& b, int ours, int peer, const char* src, char* sink,
              std::size_t bytes) {
  if (!PeerWrite(peer, src, bytes)) return false;
  int err = 0;
  for (std::size_t got = 0; got < bytes;) {
    const ssize_t n = b.read_fd(ours, &err);
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  while (b.readable_bytes() > 0) {
    if (b.write_fd(ours, &err) <= 0) return false;
  }
  return PeerRead(peer, sink, bytes);
}

template <Buffer B>
void BM_FdEcho(benchmark::State& state, std::size_t bytes) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    state.SkipWithError("socketpair failed");
    return;
  }
  const char* src = SourceBytes().data();
  std::vector<char> sink(bytes);
  B b;
  bool ok = EchoOnce(b, fds[0], fds[1], src, sink.data(), bytes);  // warm-up
  for (auto _ : state) {
    if (!ok) break;
    ok = EchoOnce(b, fds[0], fds[1], src, sink.data(), bytes);
  }
  ::close(fds[0]);
  ::close(fds[1]);
  if (!ok || std::memcmp(sink.data(), src, bytes) != 0) {
    state.SkipWithError("the echo failed or came back different");
    return;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(2 * bytes));
  state.counters["capacity"] = static_cast<double>(b.capacity());
}

// --------------------------------------------------------------- server_echo

// Enough connections that the clock's own cost, paid once per batch, is a
// small part of each message's; few enough that buffers and socket queues
// stay in cache at 64 KiB messages.
constexpr int kConnections = 8;

// The calling thread's CPU time: the server's own work, kernel time of its
// system calls included, and not the time other processes take from it.
std::int64_t ThreadCpuNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// What one back-to-back pair of ThreadCpuNs() reads: the part of every
// timed batch that is the clock itself (the median of a few pairs).
std::int64_t ClockPairNs() {
  std::array<std::int64_t, 33> d{};
  for (auto& x : d) {
    const std::int64_t t0 = ThreadCpuNs();
    x = ThreadCpuNs() - t0;
  }
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

// The ping-pong server's echo of one message that has arrived: read_fd
// (until the message is in), then TcpConnection::send(B*): each readable
// span written and retrieved.
template <Buffer B>
bool ServeOnce(B& b, int fd, std::size_t bytes) {
  int err = 0;
  for (std::size_t got = 0; got < bytes;) {
    const ssize_t n = b.read_fd(fd, &err);
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  while (b.readable_bytes() > 0) {
    const ReadableSpans spans = b.readable();
    const ssize_t w = ::write(fd, spans.first.data(), spans.first.size());
    if (w <= 0) return false;
    b.retrieve(static_cast<std::size_t>(w));
  }
  return true;
}

struct Conn {
  int ours = -1;
  int peer = -1;
};

// One batch: the peer writes a message to every connection (untimed), the
// server serves each (timed), the peer reads the replies (untimed). Adds
// the server's CPU to *server_ns.
template <Buffer B>
bool ServeBatch(std::vector<B>& bufs, const std::vector<Conn>& conns,
                const char* src, char* sink, std::size_t bytes,
                std::int64_t* server_ns) {
  for (const Conn& c : conns) {
    if (!PeerWrite(c.peer, src, bytes)) return false;
  }
  const std::int64_t t0 = ThreadCpuNs();
  for (std::size_t i = 0; i < conns.size(); ++i) {
    if (!ServeOnce(bufs[i], conns[i].ours, bytes)) return false;
  }
  *server_ns += ThreadCpuNs() - t0;
  for (const Conn& c : conns) {
    if (!PeerRead(c.peer, sink, bytes)) return false;
  }
  return true;
}

template <Buffer B>
void BM_ServerEcho(benchmark::State& state, std::size_t bytes) {
  std::vector<Conn> conns;
  bool ok = true;
  for (int i = 0; i < kConnections && ok; ++i) {
    int fds[2];
    ok = ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0;
    if (ok) conns.push_back({fds[0], fds[1]});
  }
  const char* src = SourceBytes().data();
  std::vector<char> sink(bytes);
  std::vector<B> bufs(conns.size());
  std::int64_t server_ns = 0;
  ok = ok && ServeBatch(bufs, conns, src, sink.data(), bytes, &server_ns);
  server_ns = 0;  // the warm-up sized every buffer
  while (ok && state.KeepRunningBatch(kConnections)) {
    const std::int64_t before = server_ns;
    ok = ServeBatch(bufs, conns, src, sink.data(), bytes, &server_ns);
    state.SetIterationTime(static_cast<double>(server_ns - before) * 1e-9);
  }
  for (const Conn& c : conns) {
    ::close(c.ours);
    ::close(c.peer);
  }
  if (!ok || std::memcmp(sink.data(), src, bytes) != 0) {
    state.SkipWithError("the echo failed or came back different");
    return;
  }
  const auto messages = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(messages * static_cast<std::int64_t>(2 * bytes));
  state.SetItemsProcessed(messages);
  state.counters["cpu_ns_per_msg"] = benchmark::Counter(
      static_cast<double>(server_ns), benchmark::Counter::kAvgIterations);
  state.counters["clock_ns_per_msg"] =
      static_cast<double>(ClockPairNs()) / kConnections;
  state.counters["capacity"] = static_cast<double>(bufs.front().capacity());
}

// -------------------------------------------------------------------- framed

struct Stream {
  std::string bytes;
  std::uint64_t messages = 0;
  std::uint64_t token = 0;  // what Parse() sums to over one pass
};

std::uint64_t Touch(std::string_view message) {
  return static_cast<unsigned char>(message[4]) +
         static_cast<unsigned char>(message.back()) + message.size();
}

Stream MakeStream(std::size_t msg, std::size_t total) {
  Stream s;
  std::mt19937_64 rng(11);
  const std::string& src = SourceBytes();
  while (s.bytes.size() < total) {
    const std::uint32_t body =
        static_cast<std::uint32_t>(msg / 2 + rng() % (msg + 1));
    char header[4];
    std::memcpy(header, &body, 4);
    s.bytes.append(header, 4);
    const std::size_t at = rng() % (src.size() - body);
    s.bytes.append(src, at, body);
    s.token +=
        Touch(std::string_view(s.bytes).substr(s.bytes.size() - body - 4));
    ++s.messages;
  }
  return s;
}

// Takes every complete message; returns the token sum.
template <Buffer B>
std::uint64_t Parse(B& b, std::uint64_t& messages) {
  std::uint64_t token = 0;
  while (b.readable_bytes() >= 4) {
    std::uint32_t body;
    b.peek_into({reinterpret_cast<char*>(&body), 4});
    if (b.readable_bytes() < 4 + std::size_t{body}) break;
    token += Touch(b.peek(4 + std::size_t{body}));
    b.retrieve(4 + std::size_t{body});
    ++messages;
  }
  return token;
}

template <Buffer B>
bool OnePass(B& b, const Stream& s, std::size_t read) {
  std::uint64_t token = 0, messages = 0;
  for (std::size_t at = 0; at < s.bytes.size(); at += read) {
    b.append(s.bytes.data() + at, std::min(read, s.bytes.size() - at));
    token += Parse(b, messages);
  }
  benchmark::DoNotOptimize(token);
  return token == s.token && messages == s.messages && b.readable_bytes() == 0;
}

template <Buffer B>
void BM_Framed(benchmark::State& state, const Stream& stream,
               std::size_t read) {
  B b;
  bool ok = OnePass(b, stream, read);  // warm-up
  const std::uint64_t moved_before = b.bytes_moved();
  for (auto _ : state) {
    if (!ok) break;
    ok = OnePass(b, stream, read);
  }
  if (!ok) {
    state.SkipWithError("the parser lost or garbled a message");
    return;
  }
  const double passes = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(stream.bytes.size()));
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * stream.messages));
  state.counters["moved_pct"] =
      100.0 * static_cast<double>(b.bytes_moved() - moved_before) /
      (passes * static_cast<double>(stream.bytes.size()));
  state.counters["capacity"] = static_cast<double>(b.capacity());
}

// -------------------------------------------------------------- registration

const Stream& StreamFor(std::size_t msg) {
  // One stream per message size, built once (outside every timed loop).
  static std::vector<std::pair<std::size_t, Stream>> streams;
  for (const auto& [m, s] : streams) {
    if (m == msg) return s;
  }
  streams.reserve(8);
  streams.emplace_back(msg, MakeStream(msg, 1 << 20));
  return streams.back().second;
}

// Short runs in the default profile: paired rounds gain more from many
// rounds than from long runs.
double MinTime(Profile profile) {
  return ByProfile(profile, 0.002, 0.05, 0.25);
}

// Scenario by scenario, every buffer in turn, so the runs being compared sit
// next to each other in time (this machine is shared and noisy).
template <Buffer B>
void RegisterBurger(Profile profile, int kept) {
  RegisterSweepBenchmark(
      BenchName("buffer", "burger", B::kName, {{"kept_pct", kept}}).c_str(),
      [=](benchmark::State& s) { BM_Burger<B>(s, kept); })
      ->MinTime(MinTime(profile))
      ->Unit(benchmark::kMicrosecond);
}

template <Buffer B>
void RegisterFdEcho(Profile profile, std::size_t bytes) {
  RegisterSweepBenchmark(BenchName("buffer", "fd_echo", B::kName,
                                   {{"bytes", static_cast<long>(bytes)}})
                             .c_str(),
                         [=](benchmark::State& s) { BM_FdEcho<B>(s, bytes); })
      ->MinTime(MinTime(profile))
      ->Unit(benchmark::kMicrosecond);
}

// Manual time counts the server's half only, so a run takes about twice its
// min_time: a quarter of the others' leaves most of the sweep's budget to
// the classes pick decides.
template <Buffer B>
void RegisterServerEcho(Profile profile, std::size_t bytes) {
  RegisterSweepBenchmark(
      BenchName("buffer", "server_echo", B::kName,
                {{"bytes", static_cast<long>(bytes)}})
          .c_str(),
      [=](benchmark::State& s) { BM_ServerEcho<B>(s, bytes); })
      ->UseManualTime()
      ->MinTime(MinTime(profile) / 4)
      ->Unit(benchmark::kMicrosecond);
}

template <Buffer B>
void RegisterFramed(Profile profile, std::size_t msg, std::size_t read) {
  const Stream* stream = &StreamFor(msg);
  RegisterSweepBenchmark(
      BenchName(
          "buffer", "framed", B::kName,
          {{"msg", static_cast<long>(msg)}, {"read", static_cast<long>(read)}})
          .c_str(),
      [=](benchmark::State& s) { BM_Framed<B>(s, *stream, read); })
      ->MinTime(MinTime(profile))
      ->Unit(benchmark::kMicrosecond);
}

// The std::string-backed reference is the conformance tests' yardstick, not
// a candidate for a server: ranked, never named the winner.
template <Buffer B>
void Describe() {
  DescribeImpl(B::kName,
               {{"contiguous", B::kAlwaysContiguous},
                {"reference", std::is_same_v<B, serverkit::StringBuffer>}});
}

template <typename... Bs>
void RegisterAll(TypeList<Bs...>, Profile profile) {
  (Describe<Bs>(), ...);
  const double min_time = MinTime(profile);
  DescribeScenario("burger",
                   {{"block_bytes", kBlock}, {"min_time_s", min_time}});
  DescribeScenario("fd_echo", {{"min_time_s", min_time}});
  DescribeScenario("server_echo", {{"min_time_s", min_time / 4},
                                   {"connections", kConnections}});
  DescribeScenario("framed", {{"min_time_s", min_time}});
  for (int kept : {5, 50, 95}) (RegisterBurger<Bs>(profile, kept), ...);

  std::vector<std::size_t> sizes = {64, 1024, 16 * 1024, 64 * 1024};
  if (profile == Profile::kFull) sizes.insert(sizes.begin() + 2, 4096);
  for (std::size_t bytes : sizes) (RegisterFdEcho<Bs>(profile, bytes), ...);
  // Every size the validation asks for (its cases and load map), in every
  // profile: the buffer's micro metric.
  constexpr std::array<std::size_t, 5> kMessages = {64, 1024, 4096, 16 * 1024,
                                                    64 * 1024};
  for (std::size_t bytes : kMessages) {
    (RegisterServerEcho<Bs>(profile, bytes), ...);
  }

  std::vector<std::pair<std::size_t, std::size_t>> framed = {{128, 4096},
                                                             {2048, 4096}};
  if (profile == Profile::kFull) {
    framed.push_back({2048, 16384});
    framed.push_back({16384, 65536});
  }
  for (auto [msg, read] : framed) (RegisterFramed<Bs>(profile, msg, read), ...);
}

}  // namespace
}  // namespace serverkit::bench

int main(int argc, char** argv) {
  using namespace serverkit::bench;
  SweepSpec spec;
  spec.family = "buffer";
  spec.pins_threads = false;  // single-threaded
  spec.baseline = std::string(serverkit::LinearBuffer::kName);
  spec.rankings = {
      // pick's "stream" class joins these two: one round unit.
      {.scenario = "burger",
       .counter = "bytes_per_second",
       .higher_is_better = true,
       .unit = "B/s",
       .also_show = {"moved_per_iter"},
       .round_unit = "stream"},
      {.scenario = "fd_echo",
       .counter = "bytes_per_second",
       .higher_is_better = true,
       .unit = "B/s",
       .round_unit = "stream"},
      // Not a class of pick's: the validation's micro metric, in rounds
      // of its own.
      {.scenario = "server_echo",
       .counter = "cpu_ns_per_msg",
       .higher_is_better = false,
       .unit = "ns",
       .also_show = {"clock_ns_per_msg"}},
      {"framed",
       "bytes_per_second",
       true,
       "B/s",
       {"moved_pct", "items_per_second"}},
  };
  spec.register_benchmarks = [](Profile p) {
    RegisterAll(serverkit::AllBuffers{}, p);
  };
  spec.round_budget_s = 55;
  return RunSweep(spec, argc, argv);
}
