// -----------------------------------------------------------------------------
// bench/harness/rounds.h
// -----------------------------------------------------------------------------
//
// Paired rounds, the sweep's schedule (docs/methods.md, "Paired rounds").
//
// A sweep runs its benchmarks in rounds instead of repetitions. A round of a
// benchmark group (one scenario with one set of parameters) runs every
// implementation of the group once, back to back, in a fresh random order.
// The ratio of two implementations within one round cancels any host state
// that lasts longer than the round; pick decides from those per-round
// ratios. A round unit is a set of scenarios that advance together (usually
// one scenario; a workload class spanning two scenarios shares one unit), so
// that round k exists in every group of a unit once the unit ran k rounds.
//
// This header holds the parts with no Google Benchmark in them, so they are
// unit-tested: the median of paired ratios with its distribution-free
// interval, the leading pair of a group, and which unit runs next.
//
// Thread-safety: none needed; the sweep's main thread uses all of it.

#ifndef SERVERKIT_BENCH_HARNESS_ROUNDS_H_
#define SERVERKIT_BENCH_HARNESS_ROUNDS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace serverkit::bench {

// A median ratio with its interval: n paired values, lo <= median <= hi.
struct RatioInterval {
  int n = 0;
  double median = 0;
  double lo = 0;
  double hi = 0;
};

// The median of `ratios` (positive numbers) with the sign test's interval
// for a median at confidence 1 - alpha: [x_(k), x_(n-k+1)] of the sorted
// values, with the largest k such that 2 * P(Binomial(n, 1/2) <= k - 1) <=
// alpha. nullopt when no k exists (fewer than 6 values at alpha 0.05) or a
// value is not positive. No assumption about the shape of the ratios: the
// host's states make them bimodal at times.
std::optional<RatioInterval> MedianInterval(std::vector<double> ratios,
                                            double alpha = 0.05);

// The interval's half-width on a log scale, as a fraction: sqrt(hi / lo) -
// 1. At most m exactly when the interval is narrow enough to lie inside
// the equivalence band [1/(1+m), 1+m] were it centred on 1: the same "±m"
// as pick's answers (pick/margin.py).
double HalfWidth(const RatioInterval& interval);

// The median of the values that are not NaN (the mean of the middle two
// for an even count); NaN when none is left.
double Median(std::vector<double> values);

// One implementation's value in each round of one group: round -> value.
using RoundValues = std::map<int, double>;

// The two best implementations of a group by their median over rounds
// (`references` never lead), and their paired ratio (first over second,
// oriented so that > 1 means the first is better) with its interval over
// the rounds both ran. nullopt with fewer than two contenders.
struct LeadingPair {
  std::string first;
  std::string second;
  std::optional<RatioInterval> ratio;  // nullopt: too few rounds
};
std::optional<LeadingPair> Leading(
    const std::map<std::string, RoundValues>& by_impl, bool higher_is_better,
    const std::set<std::string>& references, double alpha = 0.05);

// The schedule's knobs for one process.
struct RoundsConfig {
  double budget_s = 0;  // the time after which no unit starts a new round
  int min_rounds = 1;   // every unit runs these, whatever the budget
  int max_rounds = 1;
  double target = 0.05;  // a unit is done when its widest leading-pair
                         // interval is narrow enough to decide
                         // equivalence at ±target (HalfWidth)
};

// Where one unit stands. `stop` is empty while it may run again, else why
// it ended: "target", "budget" or "max_rounds".
struct UnitState {
  int rounds = 0;
  double seconds = 0;                // spent in its rounds so far
  std::optional<double> half_width;  // nullopt: not known yet
  std::string stop;
};

// The unit to run next, or -1 when every unit is done (and then each one's
// `stop` is set). First every unit runs `min_rounds` (the fewest rounds
// first, so the units' rounds interleave in time). Then a unit within
// ±target stops ("target"); among the others, the one whose next round
// should narrow its widest interval the most per second (width x (1 -
// sqrt(n / (n + 1))) / seconds a round; unknown widths first) runs next,
// if a round of it (its mean so far) fits in the time left; one that does
// not fit stops ("budget"), as does one at max_rounds.
int NextUnit(std::vector<UnitState>& units, const RoundsConfig& config,
             double elapsed_s);

}  // namespace serverkit::bench

#endif  // SERVERKIT_BENCH_HARNESS_ROUNDS_H_
