#include "bench/harness/floor.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "base/cache_line.h"
#include "base/percentile.h"
#include "bench/harness/harness.h"

namespace serverkit::bench {
namespace {

// One of the lines the two threads bounce, alone in its pair of cache lines
// (an adjacent-line prefetch of one never brings in another).
struct alignas(2 * kCacheLineSize) PaddedCounter {
  std::atomic<std::uint64_t> value{0};
};
static_assert(sizeof(PaddedCounter) == 2 * kCacheLineSize);

// Round trip i bounces line i % kLines. One line alone is not a stable
// reference: its round trip moved with where it was allocated, while many
// lines cycled held still (docs/methods.md, "Why 64 lines"). A queue's items
// cross many lines, so many lines are its reference. 64 x 128 bytes stay in
// L1.
constexpr std::size_t kLines = 64;

constexpr std::uint64_t kWarmup = 1000;

}  // namespace

std::optional<std::pair<int, int>> FloorCpus() {
  const std::vector<int> cpus = AllowedCpus();
  if (cpus.size() < 2) return std::nullopt;
  return std::make_pair(cpus[0], cpus[1]);
}

std::optional<FloorSample> MeasureFloor(std::uint64_t round_trips,
                                        std::vector<double>* samples_out,
                                        FloorLines shape) {
  const auto cpus = FloorCpus();
  if (!cpus || round_trips == 0) return std::nullopt;

  cpu_set_t saved;
  CPU_ZERO(&saved);
  const bool have_saved =
      pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved) == 0;

  // The requests go on `ask`'s lines; the replies on the same lines
  // (kSameLine) or on `answer`'s (kTwoLines).
  const std::unique_ptr<PaddedCounter[]> ask(new PaddedCounter[kLines]);
  const std::unique_ptr<PaddedCounter[]> own_answer(
      shape == FloorLines::kTwoLines ? new PaddedCounter[kLines] : nullptr);
  PaddedCounter* const answer = own_answer ? own_answer.get() : ask.get();
  std::atomic<int> echo_pinned{0};  // 1: pinned, 2: refused
  std::atomic<int> go{0};           // 1: start, 2: give up
  const std::uint64_t total = kWarmup + round_trips;
  // `total` by value: through a reference the echo thread would load it
  // from this frame every round trip, from a line this thread may write
  // (queue_benchmark's latency scenario did, see there).
  std::thread echo([in = ask.get(), out = answer, &echo_pinned, &go, total] {
    echo_pinned.store(PinToCore(1) ? 1 : 2, std::memory_order_release);
    int state;
    while ((state = go.load(std::memory_order_acquire)) == 0) CpuRelax();
    if (state != 1) return;
    for (std::uint64_t i = 0; i < total; ++i) {
      const std::uint64_t ping = 2 * i + 1;
      while (in[i % kLines].value.load(std::memory_order_acquire) != ping) {
      }
      out[i % kLines].value.store(ping + 1, std::memory_order_release);
    }
  });

  const bool pinned = PinToCore(0);
  while (echo_pinned.load(std::memory_order_acquire) == 0) CpuRelax();
  std::vector<double> samples;
  if (pinned && echo_pinned.load(std::memory_order_acquire) == 1) {
    samples.reserve(round_trips);
    go.store(1, std::memory_order_release);
    for (std::uint64_t i = 0; i < total; ++i) {
      const std::uint64_t ping = 2 * i + 1;
      std::atomic<std::uint64_t>& request = ask[i % kLines].value;
      std::atomic<std::uint64_t>& reply = answer[i % kLines].value;
      const auto t0 = std::chrono::steady_clock::now();
      request.store(ping, std::memory_order_release);
      while (reply.load(std::memory_order_acquire) != ping + 1) {
      }
      const auto t1 = std::chrono::steady_clock::now();
      if (i >= kWarmup) {
        samples.push_back(
            std::chrono::duration<double, std::nano>(t1 - t0).count());
      }
    }
  } else {
    go.store(2, std::memory_order_release);
  }
  echo.join();
  if (have_saved) {
    pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
  } else {
    UnpinThread();
  }
  if (samples.empty()) return std::nullopt;

  std::sort(samples.begin(), samples.end());
  FloorSample f;
  f.cpu_a = cpus->first;
  f.cpu_b = cpus->second;
  f.round_trips = round_trips;
  f.p50_ns = Percentile(samples, 0.50, true);
  f.p99_ns = Percentile(samples, 0.99, true);
  f.p999_ns = Percentile(samples, 0.999, true);
  if (samples_out != nullptr) *samples_out = std::move(samples);
  return f;
}

std::vector<std::string> FloorDrift(std::optional<double> before_p50_ns,
                                    std::optional<double> after_p50_ns,
                                    std::optional<double> row_cv,
                                    double threshold) {
  std::vector<std::string> reasons;
  char buf[160];
  if (before_p50_ns && after_p50_ns && *before_p50_ns > 0 &&
      *after_p50_ns > 0) {
    const double lo = std::min(*before_p50_ns, *after_p50_ns);
    const double hi = std::max(*before_p50_ns, *after_p50_ns);
    if (hi / lo - 1 > threshold) {
      std::snprintf(buf, sizeof(buf),
                    "the floor's p50 moved from %.0f ns before the sweep to "
                    "%.0f ns after it (%.0f%% apart, more than %.0f%%)",
                    *before_p50_ns, *after_p50_ns, (hi / lo - 1) * 100,
                    threshold * 100);
      reasons.emplace_back(buf);
    }
  }
  if (row_cv && *row_cv > threshold) {
    std::snprintf(buf, sizeof(buf),
                  "the floor's interleaved repetitions vary by CV %.0f%% "
                  "(more than %.0f%%)",
                  *row_cv * 100, threshold * 100);
    reasons.emplace_back(buf);
  }
  return reasons;
}

}  // namespace serverkit::bench
