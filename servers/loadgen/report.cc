#include "servers/loadgen/report.h"

#include <cinttypes>
#include <cstdio>

namespace serverkit::loadgen {
namespace {

std::string Format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += Format("\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

double Us(double ns) { return ns / 1000.0; }

std::string LatencyJson(const Histogram& h) {
  return Format(
      "{\"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"p999\": %.3f, "
      "\"p9999\": %.3f, \"max\": %.3f, \"mean\": %.3f, \"count\": %" PRIu64 "}",
      Us(h.Percentile(0.5)), Us(h.Percentile(0.9)), Us(h.Percentile(0.99)),
      Us(h.Percentile(0.999)), Us(h.Percentile(0.9999)),
      Us(static_cast<double>(h.max())), Us(h.mean()), h.count());
}

std::string LatencyLine(const char* name, const Histogram& h) {
  return Format(
      "  %-12s p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  p99.99 %.1f  "
      "max %.1f  mean %.1f us\n",
      name, Us(h.Percentile(0.5)), Us(h.Percentile(0.9)),
      Us(h.Percentile(0.99)), Us(h.Percentile(0.999)), Us(h.Percentile(0.9999)),
      Us(static_cast<double>(h.max())), Us(h.mean()));
}

}  // namespace

void MergeInto(Report* report, const WorkerResult& w) {
  WorkerResult& t = report->totals;
  t.latency.Merge(w.latency);
  t.uncorrected.Merge(w.uncorrected);
  t.lag.Merge(w.lag);
  t.read_lag.Merge(w.read_lag);
  t.scheduled += w.scheduled;
  t.sent += w.sent;
  t.completed += w.completed;
  t.errors += w.errors;
  t.unanswered += w.unanswered;
  t.unsent += w.unsent;
  t.held += w.held;
  if (t.first_error.empty()) t.first_error = w.first_error;
  if (t.fatal.empty()) t.fatal = w.fatal;
}

void Judge(Report* r) {
  const WorkerResult& t = r->totals;
  if (r->error.empty()) r->error = t.fatal;
  std::string reason;
  const double lag_p99 = t.lag.Percentile(0.99);
  if (r->error.empty() &&
      lag_p99 > static_cast<double>(r->options.max_lag_us) * 1000) {
    reason = Format("send lag p99 %.1f us exceeds --max_lag_us=%" PRId64
                    ": the generator could not keep its schedule",
                    Us(lag_p99), r->options.max_lag_us);
  }
  if (r->error.empty() && t.unsent > 0) {
    if (!reason.empty()) reason += "; ";
    reason += Format("%" PRIu64 " of %" PRIu64
                     " scheduled requests were never sent (the generator "
                     "fell behind)",
                     t.unsent, t.scheduled);
  }
  r->is_void = !reason.empty();
  r->void_reason = reason;
  if (r->error.empty() && t.errors > 0) {
    r->error = Format("%" PRIu64 " requests failed; first: ", t.errors) +
               t.first_error;
  }
  if (r->error.empty() && t.unanswered > 0) {
    r->error =
        Format("%" PRIu64 " requests unanswered at the end", t.unanswered);
  }
  r->ok = !r->is_void && r->error.empty();
}

int ExitStatus(const Report& r) {
  if (r.ok) return 0;
  return r.is_void ? 3 : 1;
}

std::string ToJson(const Report& r) {
  const Options& o = r.options;
  const WorkerResult& t = r.totals;
  std::string j = "{";
  j += Format("\"ok\": %s, ", r.ok ? "true" : "false");
  j += Format("\"void\": %s, ", r.is_void ? "true" : "false");
  j += "\"void_reason\": " + JsonString(r.void_reason) + ", ";
  j += Format("\"protocol\": \"%s\", ", ProtocolName(o.protocol).data());
  j += Format("\"rate\": %.17g, ", o.rate);
  j += Format("\"arrivals\": \"%s\", ", ArrivalsName(o.arrivals).data());
  j += Format("\"mode\": \"%s\", ", ModeName(o.mode).data());
  j += Format("\"connections\": %d, \"threads\": %d, ", o.connections,
              o.threads);
  j += Format("\"duration_s\": %.17g, \"warmup_s\": %.17g, ", o.duration_s,
              o.warmup_s);
  j += Format("\"scheduled\": %" PRIu64 ", \"sent\": %" PRIu64
              ", \"completed\": %" PRIu64 ", \"errors\": %" PRIu64
              ", \"unanswered\": %" PRIu64 ", \"unsent\": %" PRIu64
              ", \"held\": %" PRIu64 ", ",
              t.scheduled, t.sent, t.completed, t.errors, t.unanswered,
              t.unsent, t.held);
  j += Format("\"achieved_rate\": %.3f, ",
              static_cast<double>(t.completed) / o.duration_s);
  j += "\"latency_us\": " + LatencyJson(t.latency) + ", ";
  j += "\"uncorrected_us\": " + LatencyJson(t.uncorrected) + ", ";
  j += Format("\"lag_us\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}, ",
              Us(t.lag.Percentile(0.5)), Us(t.lag.Percentile(0.99)),
              Us(static_cast<double>(t.lag.max())));
  j +=
      Format("\"read_lag_us\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}, ",
             Us(t.read_lag.Percentile(0.5)), Us(t.read_lag.Percentile(0.99)),
             Us(static_cast<double>(t.read_lag.max())));
  if (o.count_above_us > 0) {
    const auto ns = static_cast<std::uint64_t>(o.count_above_us) * 1000;
    j += Format("\"above_us\": {\"threshold\": %" PRId64
                ", \"latency\": %" PRIu64 ", \"uncorrected\": %" PRIu64 "}, ",
                o.count_above_us, t.latency.CountAtOrAbove(ns),
                t.uncorrected.CountAtOrAbove(ns));
  }
  j += "\"error\": " + JsonString(r.error) + "}\n";
  return j;
}

std::string Summary(const Report& r) {
  const Options& o = r.options;
  const WorkerResult& t = r.totals;
  std::string s = Format(
      "loadgen: %s %s:%d, rate %.0f/s %s, %s, connections %d, threads %d, "
      "%.1f s measured after %.1f s warm-up\n",
      ProtocolName(o.protocol).data(), o.host.c_str(), o.port, o.rate,
      ArrivalsName(o.arrivals).data(),
      o.mode == Mode::kSerial ? "serial (one request in flight per connection)"
                              : "pipelined",
      o.connections, o.threads, o.duration_s, o.warmup_s);
  s += Format(
      "  sent %" PRIu64 ", completed %" PRIu64 " (%.1f/s), errors %" PRIu64
      ", unanswered %" PRIu64 ", held behind a reply %" PRIu64 "\n",
      t.sent, t.completed, static_cast<double>(t.completed) / o.duration_s,
      t.errors, t.unanswered, t.held);
  s += LatencyLine("latency", t.latency);
  s += LatencyLine("uncorrected", t.uncorrected);
  s += Format("  send lag     p50 %.1f  p99 %.1f  max %.1f us\n",
              Us(t.lag.Percentile(0.5)), Us(t.lag.Percentile(0.99)),
              Us(static_cast<double>(t.lag.max())));
  s += Format("  read lag     p50 %.1f  p99 %.1f  max %.1f us\n",
              Us(t.read_lag.Percentile(0.5)), Us(t.read_lag.Percentile(0.99)),
              Us(static_cast<double>(t.read_lag.max())));
  if (o.count_above_us > 0) {
    const auto ns = static_cast<std::uint64_t>(o.count_above_us) * 1000;
    s += Format("  at or above %" PRId64 " us: %" PRIu64 " corrected, %" PRIu64
                " uncorrected\n",
                o.count_above_us, t.latency.CountAtOrAbove(ns),
                t.uncorrected.CountAtOrAbove(ns));
  }
  if (r.is_void) s += "  VOID: " + r.void_reason + "\n";
  if (!r.error.empty()) s += "  ERROR: " + r.error + "\n";
  if (r.ok) s += "  ok\n";
  return s;
}

}  // namespace serverkit::loadgen
