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
// muduo's arguments first (muduo/examples/asio/chat/loadtest.cc). Written
// directly on epoll: one level-triggered epoll loop per thread, clients spread
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
//
// The parts: loadtest_flags.h (the command line), loadtest_worker.h (the
// clients and the threads that read them), loadtest_phases.h (connect, join,
// rounds), loadtest_report.h (the statistics, the summary and the JSON).

#include <arpa/inet.h>
#include <netinet/in.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "servers/chat/loadtest_flags.h"
#include "servers/chat/loadtest_phases.h"
#include "servers/chat/loadtest_report.h"
#include "servers/chat/loadtest_worker.h"

namespace serverkit::chat::loadtest {
namespace {

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
}  // namespace serverkit::chat::loadtest

int main(int argc, char** argv) {
  return serverkit::chat::loadtest::Main(argc, argv);
}
