// -----------------------------------------------------------------------------
// servers/pingpong/client_report.h
// -----------------------------------------------------------------------------
//
// What a client run measured, and its two outputs: the summary line on
// stdout and the --json record (their fields are client.cc's header's).

#ifndef SERVERKIT_SERVERS_PINGPONG_CLIENT_REPORT_H_
#define SERVERKIT_SERVERS_PINGPONG_CLIENT_REPORT_H_

#include <cstdint>
#include <vector>

#include "servers/pingpong/client_flags.h"
#include "servers/pingpong/client_worker.h"

namespace serverkit::pingpong::client {

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
                       RunTotals& r);

// The summary line on stdout, and the first socket error on stderr.
void PrintSummary(const ClientOptions& opt, const RunTotals& r,
                  const Figures& f);

// Writes the run's record to --json. False (after saying why) when the file
// cannot be opened.
bool WriteJson(const ClientOptions& opt, long fd_limit, const RunTotals& r,
               const Figures& f);

}  // namespace serverkit::pingpong::client

#endif  // SERVERKIT_SERVERS_PINGPONG_CLIENT_REPORT_H_
