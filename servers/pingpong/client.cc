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
//
// The parts: client_flags.h (the command line), client_worker.h (the
// sessions and their loop threads), client_report.h (the figures, the
// summary line and the JSON).

#include <arpa/inet.h>
#include <sys/resource.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <latch>
#include <memory>
#include <thread>
#include <vector>

#include "servers/common/process.h"
#include "servers/pingpong/client_flags.h"
#include "servers/pingpong/client_report.h"
#include "servers/pingpong/client_worker.h"
#include "servers/pingpong/common.h"

namespace serverkit::pingpong::client {
namespace {

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
  const long fd_limit = servers::RaiseFdLimit();
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
}  // namespace serverkit::pingpong::client

int main(int argc, char** argv) {
  return serverkit::pingpong::client::Main(argc, argv);
}
