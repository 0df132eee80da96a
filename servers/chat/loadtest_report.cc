// -----------------------------------------------------------------------------
// servers/chat/loadtest_report.cc
// -----------------------------------------------------------------------------
//
// The statistics, the summary and the JSON record (loadtest_report.h).

#include "servers/chat/loadtest_report.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "base/percentile.h"

namespace serverkit::chat::loadtest {

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

}  // namespace serverkit::chat::loadtest
