// -----------------------------------------------------------------------------
// servers/loadgen/report.h
// -----------------------------------------------------------------------------
//
// `Report`: the merged result of a run, the verdict on it, and its two
// forms, one JSON object and a short human summary.
//
// The verdict:
//   - void: the generator could not keep its own schedule (send lag p99 over
//     --max_lag_us, or scheduled requests never sent), so the latencies
//     describe the generator, not the server. Exit status 3.
//   - not ok: a failure (`error`), errors, or unanswered requests. Exit 1.
//   - ok: none of these. Exit 0.
//
// Thread-safety: thread-compatible.

#ifndef SERVERKIT_SERVERS_LOADGEN_REPORT_H_
#define SERVERKIT_SERVERS_LOADGEN_REPORT_H_

#include <string>

#include "servers/loadgen/flags.h"
#include "servers/loadgen/worker.h"

namespace serverkit::loadgen {

struct Report {
  Options options;
  WorkerResult totals;  // every worker's, merged
  std::string error;    // a failure that ended the run, else empty
  bool is_void = false;
  std::string void_reason;
  bool ok = false;
};

// Adds one worker's result into `report->totals`.
void MergeInto(Report* report, const WorkerResult& worker);

// Sets is_void, void_reason and ok from the totals and error; also copies
// the first connection error into `error` when there is no other.
void Judge(Report* report);

std::string ToJson(const Report& report);
std::string Summary(const Report& report);
int ExitStatus(const Report& report);

}  // namespace serverkit::loadgen

#endif  // SERVERKIT_SERVERS_LOADGEN_REPORT_H_
