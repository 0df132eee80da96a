#include "reactor/poller_stats.h"

#include <bit>
#include <cstdio>
#include <string>

namespace serverkit::reactor {
namespace {

template <std::size_t N>
void AddTo(std::array<std::uint64_t, N>& to,
           const std::array<std::uint64_t, N>& from) {
  for (std::size_t i = 0; i < N; ++i) to[i] += from[i];
}

// A time bucket's label: its upper bound, "<8us"; the last, ">=16384us".
std::string TimeLabel(std::size_t i) {
  if (i + 1 == PollerStats::kTimeBuckets) {
    return ">=" + std::to_string(std::uint64_t{1} << (i - 1)) + "us";
  }
  return "<" + std::to_string(std::uint64_t{1} << i) + "us";
}

std::string CountLabel(std::size_t i) {
  if (i == 0) return "0";
  if (i == 1) return "1";
  const std::uint64_t lo = std::uint64_t{1} << (i - 1);
  if (i + 1 == PollerStats::kCountBuckets) return std::to_string(lo) + "+";
  return std::to_string(lo) + "-" + std::to_string(2 * lo - 1);
}

// The bucket that holds quantile q: its label, so "p99 <64us" reads as
// "99% took under 64 µs".
template <std::size_t N, typename Label>
std::string Quantile(const std::array<std::uint64_t, N>& h, double q,
                     Label label) {
  std::uint64_t total = 0;
  for (std::uint64_t n : h) total += n;
  if (total == 0) return "-";
  const auto want = static_cast<std::uint64_t>(q * static_cast<double>(total));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < N; ++i) {
    seen += h[i];
    if (seen > want) return label(i);
  }
  return label(N - 1);
}

template <std::size_t N, typename Label>
std::string Buckets(const std::array<std::uint64_t, N>& h, Label label) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (h[i] == 0) continue;
    if (!out.empty()) out += ' ';
    out += label(i) + ":" + std::to_string(h[i]);
  }
  return "{" + out + "}";
}

std::string TimeSummary(const PollerStats::TimeHistogram& h) {
  return "p50 " + Quantile(h, 0.5, TimeLabel) + " p99 " +
         Quantile(h, 0.99, TimeLabel) + " p99.9 " +
         Quantile(h, 0.999, TimeLabel) + " " + Buckets(h, TimeLabel);
}

}  // namespace

std::size_t PollerStats::TimeBucket(std::chrono::nanoseconds d) {
  const std::int64_t us = d.count() / 1000;
  if (us <= 0) return 0;
  // [2^(k-1), 2^k) µs is bucket k.
  const auto k =
      static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(us)));
  return k < kTimeBuckets ? k : kTimeBuckets - 1;
}

std::size_t PollerStats::CountBucket(std::uint64_t n) {
  const auto k = static_cast<std::size_t>(std::bit_width(n));
  return k < kCountBuckets ? k : kCountBuckets - 1;
}

void PollerStats::add(const PollerStats& o) {
  loops += o.loops;
  polls += o.polls;
  AddTo(busy_us, o.busy_us);
  enters += o.enters;
  enter_ns += o.enter_ns;
  AddTo(enter_us, o.enter_us);
  AddTo(completions, o.completions);
  sends += o.sends;
  AddTo(sends_per_submit, o.sends_per_submit);
  AddTo(send_wait_us, o.send_wait_us);
  sends_late += o.sends_late;
  send_flushes += o.send_flushes;
  enobufs += o.enobufs;
  recv_rearms += o.recv_rearms;
  sq_full += o.sq_full;
  sq_refused += o.sq_refused;
}

std::string FormatUringStats(const PollerStats& s) {
  auto n = [](std::uint64_t v) { return std::to_string(v); };
  char inside[32];
  std::snprintf(inside, sizeof(inside), "%.3f",
                static_cast<double>(s.enter_ns) / 1e9);
  return "serverkit uring: loops " + n(s.loops) + ", polls " + n(s.polls) +
         ", busy per iteration " + TimeSummary(s.busy_us) +
         "; io_uring_enter " + n(s.enters) + " calls, " + inside +
         " s inside, " + TimeSummary(s.enter_us) +
         "; completions per enter p50 " +
         Quantile(s.completions, 0.5, CountLabel) + " p99 " +
         Quantile(s.completions, 0.99, CountLabel) + " " +
         Buckets(s.completions, CountLabel) + "; sends " + n(s.sends) +
         ", per submit " + Buckets(s.sends_per_submit, CountLabel) +
         ", oldest's wait to submit " + TimeSummary(s.send_wait_us) +
         ", late " + n(s.sends_late) + ", early submits " + n(s.send_flushes) +
         "; enobufs " + n(s.enobufs) + ", receive re-arms " + n(s.recv_rearms) +
         ", sq full " + n(s.sq_full) + ", refused " + n(s.sq_refused);
}

std::string FormatEpollStats(const PollerStats& s) {
  return "serverkit epoll: loops " + std::to_string(s.loops) + ", polls " +
         std::to_string(s.polls) + ", busy per iteration " +
         TimeSummary(s.busy_us) + "; events per poll p50 " +
         Quantile(s.completions, 0.5, CountLabel) + " p99 " +
         Quantile(s.completions, 0.99, CountLabel) + " " +
         Buckets(s.completions, CountLabel);
}

}  // namespace serverkit::reactor
