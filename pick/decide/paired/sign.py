# -----------------------------------------------------------------------------
# pick/decide/paired/sign.py
# -----------------------------------------------------------------------------
#
# The statistics of paired rounds, on plain numbers: a sweep in paired
# rounds runs every contender once per round, back to back, so the ratio of
# two contenders within one round cancels any host state lasting longer
# than the round. Given those per-round ratios (oriented so that > 1 means
# A is better), this module gives (pick.paired re-exports it):
#
#   - the median ratio (the median of the log ratios, so that B over A is
#     exactly 1 / (A over B)), with a distribution-free confidence interval
#     from order statistics: the sign-test interval [x_(k), x_(n-k+1)], k
#     the largest with 2 * BinomCDF(k - 1; n, 1/2) <= alpha. At alpha 0.05
#     none exists below 6 rounds (2 / 2^5 = 0.0625);
#   - the exact two-sided sign test, ratios of exactly 1 counted against
#     the rejection (the interval keeps them too, so the two never
#     disagree: no p of 0.016 beside an interval whose lower end is 1.00);
#   - the standing of the interval against a margin (margin.py);
#   - the 1-D two-means split of a list of values (host states: rounds
#     split by the log of the floor measured before them).
#
# decide/paired_rounds.py applies these to a class's cells. The middle of
# pick's layers
# (see __main__.py), standard library only.

from __future__ import annotations

import math
import statistics
from typing import Optional

from pick.decide.paired.ratio import PairedRatio

# The fewest rounds with a 95% sign-test interval.
MIN_ROUNDS = 6


def binom_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), exact."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(min(k, n) + 1)) / 2.0 ** n


def interval_rank(n: int, alpha: float = 0.05) -> Optional[int]:
    """The largest k >= 1 with 2 * BinomCDF(k - 1; n) <= alpha: the interval
    is [x_(k), x_(n-k+1)]; None when even k = 1 is too wide a bet."""
    k = 0
    while k + 1 <= (n + 1) // 2 and 2 * binom_cdf(k, n) <= alpha:
        k += 1
    return k or None


def sign_test_p(ratios: list[float]) -> Optional[float]:
    """The exact two-sided sign test of "the median ratio is 1", ratios of
    exactly 1 counted on the side of the fewer (conservative, and
    consistent with the interval, which keeps them); None without
    ratios."""
    above = sum(1 for x in ratios if x > 1)
    below = sum(1 for x in ratios if x < 1)
    n = len(ratios)
    if n == 0:
        return None
    return min(1.0, 2 * binom_cdf(min(above, below) + n - above - below, n))


def log_median(xs: list[float]) -> float:
    """The median on a log scale (the geometric mean of the middle two for
    an even count)."""
    if not xs:
        return math.nan
    return math.exp(statistics.median(math.log(x) for x in xs))


def paired(ratios: list[float], alpha: float = 0.05) -> PairedRatio:
    """The median of the per-round ratios with its sign-test interval and
    the sign test's p."""
    xs = sorted(x for x in ratios if x > 0 and math.isfinite(x))
    n = len(xs)
    k = interval_rank(n, alpha)
    lo = hi = cover = eq_lo = eq_hi = None
    if k is not None:
        lo, hi = xs[k - 1], xs[n - k]
        cover = 1 - 2 * binom_cdf(k - 1, n)
    k2 = interval_rank(n, 2 * alpha)
    if k2 is not None:
        eq_lo, eq_hi = xs[k2 - 1], xs[n - k2]
    return PairedRatio(n=n, ratio=log_median(xs), lo=lo, hi=hi,
                       coverage=cover, p=sign_test_p(xs), eq_lo=eq_lo,
                       eq_hi=eq_hi)


def two_means_split(values: list[float]) -> int:
    """Sorted `values` split in two where the within-part sum of squares is
    least: the count of the lower part (0 for fewer than two values)."""
    xs = sorted(values)
    best, cut = math.inf, 0
    for i in range(1, len(xs)):
        ss = sum(_ss(part) for part in (xs[:i], xs[i:]))
        if ss < best:
            best, cut = ss, i
    return cut


def _ss(xs: list[float]) -> float:
    m = statistics.fmean(xs)
    return sum((x - m) ** 2 for x in xs)


def fmt_p(p: Optional[float]) -> str:
    if p is None:
        return "-"
    return "< 0.0001" if p < 0.0001 else "%.2g" % p


def fmt_interval(x: PairedRatio) -> str:
    """'1.32x [1.21, 1.45]'; '1.32x' without an interval."""
    if math.isnan(x.ratio):
        return "-"
    if x.lo is None or x.hi is None:
        return "%.2fx" % x.ratio
    return "%.2fx [%.2f, %.2f]" % (x.ratio, x.lo, x.hi)
