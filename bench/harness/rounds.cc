#include "bench/harness/rounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace serverkit::bench {

namespace {

// P(Binomial(n, 1/2) <= k), summed in doubles (n stays in the hundreds).
double BinomialHalfCdf(int n, int k) {
  double term = std::pow(0.5, n);  // C(n, 0) / 2^n
  double sum = 0;
  for (int i = 0; i <= k; ++i) {
    sum += term;
    term = term * (n - i) / (i + 1);
  }
  return sum;
}

}  // namespace

double Median(std::vector<double> xs) {
  std::erase_if(xs, [](double x) { return std::isnan(x); });
  if (xs.empty()) return NAN;
  std::sort(xs.begin(), xs.end());
  const std::size_t n = xs.size();
  return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

std::optional<RatioInterval> MedianInterval(std::vector<double> ratios,
                                            double alpha) {
  const int n = static_cast<int>(ratios.size());
  if (n == 0) return std::nullopt;
  for (double r : ratios) {
    if (!(r > 0) || !std::isfinite(r)) return std::nullopt;
  }
  int k = 0;
  while (k + 1 <= n / 2 && 2 * BinomialHalfCdf(n, k) <= alpha) ++k;
  if (k == 0) return std::nullopt;
  std::sort(ratios.begin(), ratios.end());
  return RatioInterval{n, Median(ratios),
                       ratios[static_cast<std::size_t>(k - 1)],
                       ratios[static_cast<std::size_t>(n - k)]};
}

double HalfWidth(const RatioInterval& interval) {
  return std::sqrt(interval.hi / interval.lo) - 1;
}

std::optional<LeadingPair> Leading(
    const std::map<std::string, RoundValues>& by_impl, bool higher_is_better,
    const std::set<std::string>& references, double alpha) {
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [impl, rounds] : by_impl) {
    if (references.count(impl) > 0) continue;
    std::vector<double> values;
    for (const auto& [round, v] : rounds) {
      if (std::isfinite(v) && v > 0) values.push_back(v);
    }
    if (values.empty()) continue;
    const double m = Median(values);
    ranked.push_back({higher_is_better ? -m : m, impl});
  }
  if (ranked.size() < 2) return std::nullopt;
  std::sort(ranked.begin(), ranked.end());
  LeadingPair pair{ranked[0].second, ranked[1].second, std::nullopt};
  const RoundValues& a = by_impl.at(pair.first);
  const RoundValues& b = by_impl.at(pair.second);
  std::vector<double> ratios;
  for (const auto& [round, va] : a) {
    auto it = b.find(round);
    if (it == b.end()) continue;
    const double vb = it->second;
    if (!(va > 0) || !(vb > 0) || !std::isfinite(va) || !std::isfinite(vb)) {
      continue;
    }
    ratios.push_back(higher_is_better ? va / vb : vb / va);
  }
  pair.ratio = MedianInterval(std::move(ratios), alpha);
  return pair;
}

int NextUnit(std::vector<UnitState>& units, const RoundsConfig& config,
             double elapsed_s) {
  // The minimum first: the unit with the fewest rounds.
  int fewest = -1;
  for (int i = 0; i < static_cast<int>(units.size()); ++i) {
    if (units[i].rounds < config.min_rounds &&
        (fewest < 0 || units[i].rounds < units[fewest].rounds)) {
      fewest = i;
    }
  }
  if (fewest >= 0) return fewest;

  int best = -1;
  double best_gain = -1;
  for (int i = 0; i < static_cast<int>(units.size()); ++i) {
    UnitState& u = units[i];
    if (!u.stop.empty()) continue;
    if (u.half_width && *u.half_width <= config.target) {
      u.stop = "target";
      continue;
    }
    if (u.rounds >= config.max_rounds) {
      u.stop = "max_rounds";
      continue;
    }
    const double per_round = u.rounds > 0 ? u.seconds / u.rounds : 0;
    if (elapsed_s + per_round > config.budget_s) {
      u.stop = "budget";
      continue;
    }
    // An interval narrows about as 1 / sqrt(rounds): what one more round
    // should take off this unit's width, per second it costs.
    const double gain = !u.half_width
                            ? std::numeric_limits<double>::infinity()
                            : *u.half_width *
                                  (1 - std::sqrt(static_cast<double>(u.rounds) /
                                                 (u.rounds + 1))) /
                                  std::max(per_round, 1e-3);
    if (gain > best_gain) {
      best = i;
      best_gain = gain;
    }
  }
  return best;
}

}  // namespace serverkit::bench
