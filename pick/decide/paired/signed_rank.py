# -----------------------------------------------------------------------------
# pick/decide/paired/signed_rank.py
# -----------------------------------------------------------------------------
#
# The statistics of the end-to-end validation's paired rounds
# (validation/run.py; pick.paired re-exports them), standard library only,
# deterministic. Each round runs the baseline, the
# candidate and the control back to back; its log ratio d = log(candidate /
# baseline) on the case's metric is oriented so that d > 0 is better, and
# the verdict comes from these per-round d:
#
#   signed_rank_p(d)      the exact two-sided p of the Wilcoxon signed-rank
#                         test that the d are centred on 0, every d kept:
#                         W = the count of Walsh averages (d_i + d_j) / 2,
#                         i <= j, on the side against the claim, a Walsh
#                         average of exactly 0 counted against it (so zeros
#                         take Pratt's ranks and favour neither side);
#                         p = 2 P(W <= min(#{<= 0}, #{>= 0})) under the
#                         exact null of n untied ranks. Without ties or
#                         zeros it is the classic exact test
#   min_rounds(alpha)     the fewest rounds (no ties) for which that test
#                         can give p < alpha at all: 6 at 0.05
#   hodges_lehmann(d)     the estimate that goes with the test: the median
#                         of the Walsh averages (d_i + d_j) / 2, i <= j
#   hl_interval(d, level) the exact distribution-free interval for the
#                         centre: [W_(k+1), W_(M-k)] of the M sorted Walsh
#                         averages, k the largest with P(W+ <= k) <= (1 -
#                         level) / 2 under the exact null for this n; it
#                         excludes 0 exactly when the test gives p <= 1 -
#                         level, zeros and ties included (one handling:
#                         both count the Walsh averages; zeros and 0.01
#                         to 0.06 give p 0.18 and [0, 0.03], not p 0.03)
#   spread(d)             max(sample SD, 1.4826 MAD about the median): never
#                         below the SD, so one wild round, which inflates
#                         the SD, makes it larger (conservative), not
#                         smaller; the MAD term guards the other way, rounds
#                         whose SD happens to come out small
#   spread_upper(d)       the upper 95% confidence bound on the spread:
#                         spread(d) sqrt((n - 1) / chi2_0.05(n - 1)), the
#                         chi-square quantile by Wilson-Hilferty
#   mde_sigma_units(n)    k(n): the shift, in standard deviations of normal
#                         d, that the exact test at ALPHA detects (p < ALPHA,
#                         in the shift's direction) with power POWER at n
#                         rounds; by Monte Carlo (below); memoized per n
#   mde(d)                the relative MDE of the ratio at the spread's upper
#                         95% bound: exp(k(n) spread_upper) - 1
#   rank_paired(d)        all of it for one side, a PairedRatio: exp(HL) as
#                         the ratio, the interval's ends as ratios, p, n
#                         (every d, zeros included) and the MDE
#   fmt_rank_paired(x)    one line of it: '0.97x [0.94, 1.01] p 0.21 n 48'
#
# Why these: the rounds of one case are few (5 to 30) and their
# distribution is unknown, but a round's three runs share its conditions, so
# the per-round log ratios are paired differences; the signed-rank test
# needs only their symmetry under the null, and its exact null costs one
# product of polynomials (Python's big integers, one coefficient per doubled
# rank sum) for any n up to a few hundred, ties included. The Hodges-Lehmann
# estimate and interval invert that same test, so the interval and the p
# never disagree. The MDE is what its name says, for this very test at this
# n: the analytic z-based MDE used before (the t-test's shift times the
# asymptotic efficiency) had only 59% power in simulation at n = 5, because
# an exact test's discreteness costs far more power at small n than any
# asymptotic formula says.
#
# k(n) by Monte Carlo: a fixed seed per n, DRAWS samples of n standard
# normals reused for every shift (common random numbers). Shifting a sample
# by s shifts its Walsh averages by s, and the test rejects upward exactly
# when at most c of them are <= 0 (c the exact critical value for n: the
# largest with 2 P(W+ <= c) < ALPHA), so each sample rejects for every shift
# above its own threshold and the simulated power is nondecreasing in the
# shift; bisection finds where it first reaches the target. The target is
# POWER plus two Monte Carlo standard errors (0.813 at 4000 draws), so a
# true effect of the reported MDE is detected with power >= POWER despite
# the simulation's own noise; the MDE errs high by about 1%, not low.
# Rejections in the other direction are not counted as detections.
#
# Why the spread's upper bound: an MDE from the rounds' own spread is
# biased low wherever the rounds stop, or are read, when that spread came
# out small (issue 36: cases that stopped on an MDE target reported 5% when
# their true MDE was 6.5%). At the upper 95% bound it errs high instead;
# every printed MDE says so ("MDE at the spread's upper 95% bound").

from __future__ import annotations

import bisect
import functools
import itertools
import math
import random
import statistics
from typing import Sequence

from pick.decide.paired.ratio import PairedRatio

ALPHA = 0.05
POWER = 0.8
DRAWS = 4000        # Monte Carlo samples per n for mde_sigma_units
SEED = 20260214
MC_MARGIN = 2.0     # standard errors of the simulated power above POWER
MAD_SCALE = 1.4826  # MAD to SD for normal data
_REL_TOL = 1e-9     # the bisection's relative width on the shift


def _finite(d: Sequence[float]) -> list[float]:
    xs = [float(x) for x in d]
    if not all(math.isfinite(x) for x in xs):
        raise ValueError("log ratios must be finite: %r" % (xs,))
    return xs


@functools.lru_cache(maxsize=256)
def _null_cdf(ranks2: tuple[int, ...]) -> tuple[int, ...]:
    """cdf[s]: how many of the 2^n equally likely sign patterns of the
    (doubled) ranks ranks2 have a doubled W+ <= s, s = 0 .. sum(ranks2).
    The counts are the coefficients of prod(1 + x^r), each held in its own
    field of one big integer, wide enough that none can carry over."""
    width = len(ranks2) // 8 + 1      # bytes: every count is <= 2^n
    gen = 1
    for r in ranks2:
        gen += gen << (8 * width * r)
    raw = gen.to_bytes(width * (sum(ranks2) + 1), "little")
    counts = (int.from_bytes(raw[i:i + width], "little")
              for i in range(0, len(raw), width))
    return tuple(itertools.accumulate(counts))


def _untied_cdf(n: int) -> tuple[int, ...]:
    """_null_cdf for ranks 1 .. n; W+ <= w is index 2 w."""
    return _null_cdf(tuple(range(2, 2 * n + 1, 2)))


def signed_rank_p(d: Sequence[float]) -> float:
    """Exact two-sided p of the Wilcoxon signed-rank test of d against 0,
    every d kept (the header's W); 1.0 when d is empty."""
    xs = _finite(d)
    if not xs:
        return 1.0
    # The Walsh averages on each side, 0 counted on both: exactly the
    # counts that hl_interval's ends are read from.
    low = _count_at_most(sorted(xs), 0.0)
    high = _count_at_most(sorted(-x for x in xs), 0.0)
    cdf = _untied_cdf(len(xs))
    return min(1.0, 2 * cdf[2 * min(low, high)] / (1 << len(xs)))


def min_rounds(alpha: float = ALPHA) -> int:
    """The fewest untied d for which signed_rank_p can be < alpha:
    all of one sign, the most extreme outcome, has p = 2 / 2^n."""
    if not 0.0 < alpha <= 1.0:
        raise ValueError("alpha must be in (0, 1]: %r" % alpha)
    n = 1
    while 2.0 ** (1 - n) >= alpha:
        n += 1
    return n


def _lower_critical(n: int, tail: float, strict: bool) -> int:
    """The largest w with P(W+ <= w) < tail (strict) or <= tail under the
    exact null for n untied ranks; -1 when there is none."""
    cdf, scale = _untied_cdf(n), 1 << n
    w = -1
    while 2 * (w + 1) < len(cdf):
        prob = cdf[2 * (w + 1)] / scale
        if prob > tail or (strict and prob == tail):
            break
        w += 1
    return w


def _walsh(xs: Sequence[float]) -> list[float]:
    """The sorted Walsh averages (x_i + x_j) / 2, i <= j."""
    return sorted((x + y) / 2.0 for i, x in enumerate(xs) for y in xs[i:])


def hodges_lehmann(d: Sequence[float]) -> float:
    """The median of the Walsh averages of d; nan when d is empty."""
    xs = _finite(d)
    return statistics.median(_walsh(xs)) if xs else math.nan


def hl_interval(d: Sequence[float], level: float = 0.95
                ) -> tuple[float, float]:
    """The exact distribution-free interval for the centre of d (all of
    its values, zeros included) from the ordered Walsh averages; (-inf,
    inf) when d is too short for any interval at this level. Exact for
    continuous d; with ties its coverage is near the level."""
    if not 0.0 < level < 1.0:
        raise ValueError("level must be in (0, 1): %r" % level)
    xs = _finite(d)
    k = _lower_critical(len(xs), (1.0 - level) / 2.0, False) if xs else -1
    if k < 0:
        return (-math.inf, math.inf)
    w = _walsh(xs)
    return (w[k], w[len(w) - 1 - k])


def spread(d: Sequence[float]) -> float:
    """max(sample SD, 1.4826 * MAD about the median); nan for fewer than 2
    values. Not robust to a wild round: one wild round inflates the SD,
    so the spread is conservative (larger), never below the SD."""
    xs = _finite(d)
    if len(xs) < 2:
        return math.nan
    med = statistics.median(xs)
    mad = statistics.median(abs(x - med) for x in xs)
    return max(statistics.stdev(xs), MAD_SCALE * mad)


def chi2_quantile(p: float, df: int) -> float:
    """The p quantile of the chi-square distribution with df degrees of
    freedom, by Wilson-Hilferty: df (1 - 2 / (9 df) + z_p sqrt(2 / (9
    df)))^3. At p = 0.05 it is within 2% of the exact quantile for df >= 5
    and below it (an upper bound built on it errs high) for df < 5."""
    if df < 1 or not 0.0 < p < 1.0:
        raise ValueError("chi2_quantile(%r, %r)" % (p, df))
    z = statistics.NormalDist().inv_cdf(p)
    c = 2.0 / (9.0 * df)
    return df * max(0.0, 1.0 - c + z * math.sqrt(c)) ** 3


def spread_upper(d: Sequence[float], level: float = 0.95) -> float:
    """The upper `level` confidence bound on the spread of d: spread(d)
    sqrt((n - 1) / chi2_(1 - level)(n - 1)); nan for fewer than 2 values,
    inf where the quantile is 0."""
    s = spread(d)
    n = len(d)
    if math.isnan(s):
        return math.nan
    q = chi2_quantile(1.0 - level, n - 1)
    return math.inf if q <= 0.0 else s * math.sqrt((n - 1) / q)


def _count_at_most(z: list[float], c: float) -> int:
    """#{i <= j: z_i + z_j <= c} for sorted z: the ordered pairs by one
    bisection per z_i, each unordered pair counted twice, the diagonal
    once."""
    ordered = sum(map(bisect.bisect_right, itertools.repeat(z, len(z)),
                      map(c.__sub__, z)))
    return (ordered + bisect.bisect_right(z, c / 2.0)) // 2


def _shift_for_power(draws: list[list[float]], crit: int, need: int,
                     guess: float) -> float:
    """The smallest shift (to _REL_TOL) at which at least `need` of the
    sorted samples `draws` reject upward: a sample z shifted by s rejects
    when at most crit of its Walsh sums z_i + z_j + 2 s are <= 0. A sample
    that rejects at a shift rejects at every larger one, so a bisection
    needs to look again only at the samples not yet decided."""
    def split(zs: list[list[float]], s: float
              ) -> tuple[list[list[float]], list[list[float]]]:
        yes: list[list[float]] = []
        no: list[list[float]] = []
        for z in zs:
            (yes if _count_at_most(z, -2.0 * s) <= crit else no).append(z)
        return yes, no

    # Invariant: `below` samples reject at lo, fewer than need; those and
    # `undecided` reject at hi, at least need.
    at_zero, undecided = split(draws, 0.0)
    below = len(at_zero)
    if below >= need:
        return 0.0
    lo, hi = 0.0, guess
    while True:
        yes, no = split(undecided, hi)
        if below + len(yes) >= need:
            undecided = yes
            break
        lo, below, undecided, hi = hi, below + len(yes), no, 2.0 * hi
    while hi - lo > _REL_TOL * hi:
        mid = (lo + hi) / 2.0
        yes, no = split(undecided, mid)
        if below + len(yes) >= need:
            hi, undecided = mid, yes
        else:
            lo, below, undecided = mid, below + len(yes), no
    return hi


@functools.lru_cache(maxsize=None)
def mde_sigma_units(n: int) -> float:
    """k(n): the shift, in standard deviations of normal paired d, at which
    the exact two-sided signed-rank test at ALPHA detects the shift with
    power POWER (plus MC_MARGIN standard errors) at n rounds; inf when n <
    min_rounds(). Deterministic (a fixed seed per n)."""
    if n < min_rounds():
        return math.inf
    # p < ALPHA upward exactly when W+ >= M - crit (the null is symmetric).
    crit = _lower_critical(n, ALPHA / 2.0, True)
    target = POWER + MC_MARGIN * math.sqrt(POWER * (1.0 - POWER) / DRAWS)
    need = math.ceil(target * DRAWS)
    rng = random.Random(SEED * 1000 + n)
    draws = [sorted(rng.gauss(0.0, 1.0) for _ in range(n))
             for _ in range(DRAWS)]
    # Start from the normal theory's shift (efficiency 3 / pi); the exact
    # test needs more at small n, and the bracket grows until it holds.
    unit = statistics.NormalDist()
    guess = (unit.inv_cdf(1.0 - ALPHA / 2.0) + unit.inv_cdf(target)) * \
        math.sqrt(math.pi / (3.0 * n))
    return _shift_for_power(draws, crit, need, guess)


def _exp(x: float) -> float:
    return math.inf if x > 700.0 else math.exp(x)


def mde(d: Sequence[float]) -> float:
    """The relative change of the ratio that the test detects with power
    POWER at ALPHA, at the spread's upper 95% bound and the d's number n
    (zeros included): exp(k(n) * spread_upper(d)) - 1; inf when n <
    min_rounds() or the spread is undefined."""
    xs = _finite(d)
    k = mde_sigma_units(len(xs))
    s = spread_upper(xs)
    if math.isinf(k) or math.isnan(s) or math.isinf(s):
        return math.inf
    return math.inf if k * s > 700.0 else math.expm1(k * s)


def rank_paired(d: Sequence[float]) -> PairedRatio:
    """The ratio, interval, p, n and MDE of the per-round log ratios d."""
    xs = _finite(d)
    lo, hi = hl_interval(xs)
    return PairedRatio(n=len(xs), ratio=_exp(hodges_lehmann(xs)),
                       lo=None, hi=None,
                       p=signed_rank_p(xs), method="signed-rank",
                       mde=mde(xs)).with_ends(_exp(lo), _exp(hi))


def fmt_rank_paired(x: PairedRatio) -> str:
    """'0.97x [0.94, 1.01] p 0.21 n 48'; no interval below min_rounds();
    '-' without a ratio."""
    if x.n == 0 and math.isnan(x.ratio):
        return "-"
    if x.n < min_rounds():
        return "%.2fx n %d (no interval below %d)" % (x.ratio, x.n,
                                                      min_rounds())
    p = "-" if x.p is None else "%.2g" % x.p if x.p >= 0.0001 \
        else "< 0.0001"
    return "%.2fx [%.2f, %.2f] p %s n %d" % (x.ratio, x.low, x.high, p, x.n)
