# -----------------------------------------------------------------------------
# bench/pingpong/validate_stats.py
# -----------------------------------------------------------------------------
#
# The statistics of the end-to-end validation (validate.py), standard library
# only, deterministic:
#
#   u_test(a, b)         the two-sided Mann-Whitney U test's p: exact (every
#                        split of the pooled ranks enumerated, ties by mid-
#                        ranks) while the samples are small (n + m <= 20),
#                        else the normal approximation with tie correction
#   ratio_interval(a, b) a percentile bootstrap 95% interval of
#                        median(b) / median(a), from a fixed seed
#   mde(a, b)            the minimum detectable effect: the relative change
#                        that a run with these samples' noise would detect
#                        with 80% power at alpha 0.05, from the robust
#                        relative spread (1.4826 MAD / median) of each side
#   min_p(n, m)          the smallest p the exact test can give: with too
#                        few runs nothing can be detected at all
#
# Why these: the runs of one case are few (5 to 9 per side) and noisy, and
# their distribution unknown; a rank test assumes nothing about it, and a
# bootstrap interval says how far the ratio could move. The MDE is what a
# "no difference" is worth: a case that could not have seen a 10% change
# says nothing about a 3% one.

from __future__ import annotations

import itertools
import math
import random
import statistics
from typing import Sequence

ALPHA = 0.05
POWER_Z = 0.8416   # the normal quantile of 80% power
ALPHA_Z = 1.9600   # the normal quantile of 1 - ALPHA / 2
EXACT_MAX = 20     # n + m up to which u_test enumerates
BOOTSTRAP = 2000
SEED = 20261123


def _ranks(pooled: Sequence[float]) -> list[float]:
    """Mid-ranks (1-based) of pooled values."""
    order = sorted(range(len(pooled)), key=lambda i: pooled[i])
    ranks = [0.0] * len(pooled)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and pooled[order[j + 1]] == pooled[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def u_test(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p of the Mann-Whitney U test of a against b; 1.0 when a
    side is empty."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return 1.0
    ranks = _ranks(list(a) + list(b))
    mean = n * (n + m + 1) / 2.0
    observed = abs(sum(ranks[:n]) - mean)
    if n + m <= EXACT_MAX:
        hits = total = 0
        for split in itertools.combinations(ranks, n):
            total += 1
            if abs(sum(split) - mean) >= observed - 1e-9:
                hits += 1
        return hits / total
    ties: dict[float, int] = {}
    for r in ranks:
        ties[r] = ties.get(r, 0) + 1
    n_all = n + m
    tie_term = sum(t ** 3 - t for t in ties.values()) / (n_all * (n_all - 1))
    var = n * m / 12.0 * ((n_all + 1) - tie_term)
    if var <= 0:
        return 1.0
    z = (observed - 0.5) / math.sqrt(var)  # continuity correction
    return max(0.0, min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2))))


def min_p(n: int, m: int) -> float:
    """The smallest two-sided p the exact test gives with n and m runs."""
    if n == 0 or m == 0:
        return 1.0
    return min(1.0, 2.0 / math.comb(n + m, n))


def ratio_interval(a: Sequence[float], b: Sequence[float],
                   level: float = 0.95, resamples: int = BOOTSTRAP
                   ) -> tuple[float, float]:
    """Percentile bootstrap interval of median(b) / median(a)."""
    if not a or not b:
        return (math.nan, math.nan)
    rng = random.Random(SEED)
    ratios = []
    for _ in range(resamples):
        ma = statistics.median(rng.choices(a, k=len(a)))
        mb = statistics.median(rng.choices(b, k=len(b)))
        if ma > 0:
            ratios.append(mb / ma)
    if not ratios:
        return (math.nan, math.nan)
    ratios.sort()
    lo = ratios[int(math.floor((1 - level) / 2 * (len(ratios) - 1)))]
    hi = ratios[int(math.ceil((1 + level) / 2 * (len(ratios) - 1)))]
    return (lo, hi)


def relative_spread(x: Sequence[float]) -> float:
    """1.4826 * MAD / median: a CV that one wild run does not blow up."""
    if len(x) < 2:
        return math.nan
    med = statistics.median(x)
    if med == 0:
        return math.nan
    mad = statistics.median(abs(v - med) for v in x)
    return 1.4826 * mad / abs(med)


def mde(a: Sequence[float], b: Sequence[float]) -> float:
    """The relative change detectable with 80% power at ALPHA (two-sided)
    given the two sides' spreads; inf when the runs are too few for the
    exact test to ever reach ALPHA."""
    n, m = len(a), len(b)
    if n < 2 or m < 2 or min_p(n, m) >= ALPHA:
        return math.inf
    s = [v for v in (relative_spread(a), relative_spread(b))
         if not math.isnan(v)]
    if not s:
        return math.inf
    # A rank test on few runs is about as efficient as the t-test on normal
    # data (3/pi asymptotically); the t-test's detectable shift is used, from
    # the larger spread, so the MDE errs high rather than low.
    spread = max(s)
    return (ALPHA_Z + POWER_Z) * spread * math.sqrt(1.0 / n + 1.0 / m) \
        * math.sqrt(math.pi / 3)
