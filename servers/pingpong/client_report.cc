// -----------------------------------------------------------------------------
// servers/pingpong/client_report.cc
// -----------------------------------------------------------------------------
//
// The figures, the summary line and the JSON record (client_report.h).

#include "servers/pingpong/client_report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/percentile.h"

namespace serverkit::pingpong::client {

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

}  // namespace serverkit::pingpong::client
