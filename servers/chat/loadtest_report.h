// -----------------------------------------------------------------------------
// servers/chat/loadtest_report.h
// -----------------------------------------------------------------------------
//
// The load test's statistics over the rounds, and its two outputs: the
// summary on stdout (or the failure on stderr) and the --json record.

#ifndef SERVERKIT_SERVERS_CHAT_LOADTEST_REPORT_H_
#define SERVERKIT_SERVERS_CHAT_LOADTEST_REPORT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "servers/chat/loadtest_flags.h"
#include "servers/chat/loadtest_phases.h"
#include "servers/chat/loadtest_worker.h"

namespace serverkit::chat::loadtest {

struct Stats {
  double p50 = 0, min = 0, max = 0, p99 = 0;
};

// Statistics over the rounds: the time until every client had a round
// (ms), and each delivery's latency (us).
struct Summary {
  std::uint32_t rounds_done = 0;
  Stats rs, ds;
  std::uint64_t deliveries = 0;
};

// The rounds' times and the deliveries' latencies, merged over `workers`.
Summary Summarize(const std::vector<std::unique_ptr<Worker>>& workers,
                  std::uint32_t rounds_done);

// The summary line on stdout, or the failure on stderr.
void PrintSummary(const Options& opt, const RunResult& r, const Summary& s);

// Writes the run's record to --json. False (after saying why) when the file
// cannot be opened.
bool WriteJson(const Options& opt, long fd_limit, const RunResult& r,
               const Summary& s);

}  // namespace serverkit::chat::loadtest

#endif  // SERVERKIT_SERVERS_CHAT_LOADTEST_REPORT_H_
