# -----------------------------------------------------------------------------
# pick/decide/paired.py
# -----------------------------------------------------------------------------
#
# The statistics of paired rounds, one module for every caller: per-round
# ratios of two contenders run back to back, summarised three ways, each
# answer a PairedRatio. In four sections, in this order:
#
#   PairedRatio     the one answer every test returns and every reporter
#                   reads (estimate, interval, p, n, method, processes,
#                   between-process share, MDE)
#   the sign test   the median ratio with its sign-test interval and exact
#                   sign test (paired, fmt_interval, fmt_p): what pick's
#                   rounds, tables and repro read
#   processes       the same ratios from several fresh processes, at the
#                   process level: a t interval over the processes'
#                   medians, the between-process share of the variance,
#                   the lag-1 autocorrelation (process_paired)
#   signed rank     the Hodges-Lehmann ratio with its exact Wilcoxon
#                   signed-rank interval, p and MDE (rank_paired,
#                   fmt_rank_paired): what the end-to-end validation and
#                   the servers' side-by-side drivers read
#
# Callers import the module (`from pick.decide import paired`) or its names
# (`from pick.decide.paired import PairedRatio`). Standard library and
# pick's bottom layers (margin, records).

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math
import random
import statistics
from typing import Optional, Sequence, Union

from pick.records import PairedStats
from pick.margin import Standing, standing, words


# -----------------------------------------------------------------------------
# PairedRatio: the one answer
# -----------------------------------------------------------------------------
#
# PairedRatio: one paired answer, whichever test gave it. A's ratio over B
# from paired rounds (> 1: A better), its interval, p and count, and how
# they were had ("method"):
#
#   sign          the median per-round ratio, the sign test's interval and
#                 exact p (paired(): the sweeps' rounds in one process)
#   process       the mean over fresh processes of each one's median log
#                 ratio, its t interval over the processes, their
#                 between-process share of the variance and the rounds'
#                 lag-1 autocorrelation (process_paired(): the
#                 confirmation)
#   signed-rank   the Hodges-Lehmann ratio, the exact Wilcoxon signed-rank
#                 interval and p, and the MDE (rank_paired(): the
#                 end-to-end validation and the servers' side by side)
#
# Every test returns it and every reporter reads it: standing() and
# words() against a margin (margin.py), as_dict() for winners.json's
# PairedStats ("lo"/"hi", null where there is no interval), as_json() for
# the validation rows ("low"/"high": an unbounded lower end is 0, an
# unbounded upper end null). lo and hi are None where the test gives no
# end; low and high read them as 0 and inf.

METHODS = ("sign", "process", "signed-rank")


def _end(x: Optional[float]) -> Optional[float]:
    """An interval end, None where it is unbounded (0, inf or nan)."""
    return x if x is not None and math.isfinite(x) and x > 0 else None


@dataclasses.dataclass(frozen=True)
class PairedRatio:
    """A's paired ratio over B: the count of rounds (or log ratios) used,
    the estimate, the interval (None where unbounded or below the test's
    fewest rounds), its coverage (>= 1 - alpha), p, the method (METHODS),
    and what the methods add: processes, between-process share, lag-1
    autocorrelation, each process's ratio, the 1 - 2 alpha interval that
    decides equivalence (TOST) and the minimum detectable effect."""

    n: int
    ratio: float
    lo: Optional[float]
    hi: Optional[float]
    coverage: Optional[float] = None
    p: Optional[float] = None
    method: str = "sign"
    processes: int = 1
    between_share: Optional[float] = None
    lag1: Optional[float] = None
    per_process: tuple[float, ...] = ()
    eq_lo: Optional[float] = None
    eq_hi: Optional[float] = None
    # relative, at the spread's upper 95% bound (signed-rank); inf where
    # there are too few rounds for a test at all
    mde: Optional[float] = None

    @property
    def low(self) -> float:
        """The lower end, 0 where unbounded."""
        return self.lo if self.lo is not None else 0.0

    @property
    def high(self) -> float:
        """The upper end, inf where unbounded."""
        return self.hi if self.hi is not None else math.inf

    def with_ends(self, low: float, high: float) -> PairedRatio:
        """The same answer with another interval (the validation's, carried
        for dependence between rounds); 0 and inf for unbounded ends."""
        return dataclasses.replace(self, lo=_end(low), hi=_end(high))

    def covers(self, x: float) -> bool:
        return self.low <= x <= self.high

    def inverted(self) -> PairedRatio:
        """B over A."""
        return dataclasses.replace(
            self, ratio=1 / self.ratio if self.ratio else math.nan,
            lo=1 / self.hi if self.hi else None,
            hi=1 / self.lo if self.lo else None,
            eq_lo=1 / self.eq_hi if self.eq_hi else None,
            eq_hi=1 / self.eq_lo if self.eq_lo else None,
            per_process=tuple(1 / x for x in self.per_process))

    def disagree(self) -> bool:
        """Some process puts A ahead and another puts B ahead."""
        return any(x > 1 for x in self.per_process) and \
            any(x < 1 for x in self.per_process)

    def disagreement(self, a: str, b: str) -> str:
        """'the processes disagree: 3 of 4 put a ahead (1.12x, 1.09x,
        1.15x), 1 puts b ahead (1.03x)'."""
        ahead = [x for x in self.per_process if x > 1]
        behind = [x for x in self.per_process if x < 1]
        return "the processes disagree: %d of %d put %s ahead (%s), %d " \
            "put%s %s ahead (%s)" % (
                len(ahead), len(self.per_process), a,
                ", ".join("%.2fx" % x for x in ahead), len(behind),
                "s" if len(behind) == 1 else "", b,
                ", ".join("%.2fx" % (1 / x) for x in behind))

    def standing(self, margin: float) -> Standing:
        """What the interval says of A against B at the margin
        (margin.standing(): ahead by more than it, ahead, equivalent
        within it, not told apart, or behind); UNKNOWN without one."""
        return standing(self.lo, self.hi, margin, (self.eq_lo, self.eq_hi))

    def words(self, a: str, b: str, margin: float) -> str:
        """The standing in words (margin.words())."""
        return words(a, b, self.lo, self.hi, margin,
                     (self.eq_lo, self.eq_hi))

    @classmethod
    def from_dict(cls, d: PairedStats) -> PairedRatio:
        """as_dict()'s inverse (a file from before the processes reads as
        one process's sign test)."""
        return cls(n=d["n"], ratio=d["ratio"], lo=d["lo"], hi=d["hi"],
                   coverage=d.get("coverage"), p=d.get("p"),
                   method=d.get("method", "sign"),
                   processes=d.get("processes", 1),
                   between_share=d.get("between_share"),
                   lag1=d.get("lag1"),
                   per_process=tuple(d.get("per_process") or ()),
                   eq_lo=d.get("eq_lo"), eq_hi=d.get("eq_hi"))

    def as_dict(self) -> PairedStats:
        """winners.json's form (PairedStats)."""
        return PairedStats(n=self.n, ratio=self.ratio, lo=self.lo,
                           hi=self.hi, coverage=self.coverage, p=self.p,
                           method=self.method, processes=self.processes,
                           between_share=self.between_share, lag1=self.lag1,
                           per_process=list(self.per_process),
                           eq_lo=self.eq_lo, eq_hi=self.eq_hi)

    def as_json(self) -> dict[str, Union[float, int, None]]:
        """The validation rows' form: ratio, low, high, p, n, mde; an
        unbounded lower end as 0, anything else not finite as null."""
        def num(x: Optional[float]) -> Optional[float]:
            return x if x is not None and math.isfinite(x) else None
        return {"ratio": num(self.ratio), "low": self.low,
                "high": num(self.high), "p": num(self.p), "n": self.n,
                "mde": num(self.mde)}


# -----------------------------------------------------------------------------
# The sign test: one process's rounds
# -----------------------------------------------------------------------------
#
# The statistics of paired rounds, on plain numbers: a sweep in paired
# rounds runs every contender once per round, back to back, so the ratio of
# two contenders within one round cancels any host state lasting longer
# than the round. Given those per-round ratios (oriented so that > 1 means
# A is better), this section gives:
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
# decide/paired_rounds.py applies these to a class's cells.

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


# -----------------------------------------------------------------------------
# Processes: rounds from several fresh processes
# -----------------------------------------------------------------------------
#
# Paired rounds from several fresh processes, summarised at the process
# level. Rounds inside one process share its
# heap layout, its placement on the vCPUs and the host's state of that
# minute, so they are not independent draws: an interval from the rounds
# alone is too narrow by the design effect 1 + (n - 1) ICC, and a drift
# across consecutive rounds (lag-1 autocorrelation) narrows it further.
#
#   process_paired(keys, ratios)   each process's median log ratio, then a
#                                  Student t interval over those medians
#                                  (P - 1 degrees of freedom) and the t
#                                  test's p: a PairedRatio, method "process"
#   between_share(groups)          the share of the log ratios' variance
#                                  that lies between processes (one-way
#                                  random effects, ANOVA estimator)
#   lag1(series)                   the lag-1 autocorrelation of the log
#                                  ratios in round order, pooled over the
#                                  processes (each about its own mean) of
#                                  6 rounds or more
#   t_p(t, df), t_quantile(level, df)   Student's t, two-sided
#   processes_for_equivalence(x, m)   how many processes of the same
#                                  spread a true ratio of 1 would need for
#                                  its 90% interval to fit in ±m (TOST)
#
# Why the t interval on per-process medians: the processes are the
# independent units, so any dependence inside one (a per-process shift of
# an implementation, rounds that drift together) only widens the spread of
# the process medians, which the interval reads; the median of a process's
# few rounds keeps one wild round from deciding it. Its price is few
# degrees of freedom (t 3.18 at 4 processes): docs/methods.md, "Processes".

# The fewest processes with an interval: 2 give t(1) = 12.7, no answer.
MIN_PROCESSES = 3
# The shortest series lag1() reads: about its own mean, a series of n
# independent values has a lag-1 autocorrelation of about -1/n (-0.33 at
# the confirmation's 3 rounds), which would pass for an anti-correlation.
LAG_MIN_ROUNDS = 6

_EPS = 3e-14
_TINY = 1e-300


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified
    Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    if df <= 0:
        raise ValueError("df must be positive: %r" % df)
    if math.isinf(t):
        return 0.0
    return _betai(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(level: float, df: float) -> float:
    """The t with P(|T| <= t) = level (two-sided), by bisection on t_p."""
    if not 0.0 < level < 1.0:
        raise ValueError("level must be in (0, 1): %r" % level)
    lo, hi = 0.0, 1.0
    while t_p(hi, df) > 1.0 - level:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_p(mid, df) > 1.0 - level:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * hi:
            break
    return hi


def between_share(groups: Sequence[Sequence[float]]) -> Optional[float]:
    """The between-process share of the variance, sigma_b^2 / (sigma_b^2 +
    sigma_w^2), by the one-way ANOVA estimator (clipped at 0); None with
    fewer than 2 groups or no within-group degrees of freedom."""
    gs = [list(g) for g in groups if g]
    big_n = sum(len(g) for g in gs)
    k = len(gs)
    if k < 2 or big_n <= k:
        return None
    grand = statistics.fmean(x for g in gs for x in g)
    means = [statistics.fmean(g) for g in gs]
    msb = sum(len(g) * (m - grand) ** 2 for g, m in zip(gs, means)) / (k - 1)
    msw = sum((x - m) ** 2 for g, m in zip(gs, means) for x in g) / \
        (big_n - k)
    n0 = (big_n - sum(len(g) ** 2 for g in gs) / big_n) / (k - 1)
    sb2 = max(0.0, (msb - msw) / n0)
    total = sb2 + msw
    return sb2 / total if total > 0 else 0.0


def lag1(series: Sequence[Sequence[float]], min_pairs: int = 4,
         min_len: int = LAG_MIN_ROUNDS) -> Optional[float]:
    """The lag-1 autocorrelation of values in round order, pooled over the
    series of min_len or more values (each about its own mean); None with
    fewer than min_pairs lag pairs or no spread."""
    num = den = 0.0
    pairs = 0
    for s in series:
        if len(s) < max(2, min_len):
            continue
        m = statistics.fmean(s)
        num += sum((a - m) * (b - m) for a, b in zip(s, s[1:]))
        den += sum((a - m) ** 2 for a in s)
        pairs += len(s) - 1
    if pairs < min_pairs or den <= 0:
        return None
    return num / den


def by_process(keys: Sequence[tuple[int, int]], ratios: Sequence[float]
               ) -> dict[int, list[float]]:
    """The log ratios per process, in round order."""
    out: dict[int, list[tuple[int, float]]] = {}
    for (proc, rnd), x in zip(keys, ratios):
        if x > 0 and math.isfinite(x):
            out.setdefault(proc, []).append((rnd, math.log(x)))
    return {p: [v for _, v in sorted(xs)] for p, xs in sorted(out.items())}


def process_paired(keys: Sequence[tuple[int, int]], ratios: Sequence[float],
                   alpha: float = 0.05) -> PairedRatio:
    """A over B from rounds keyed (process, round): the mean over the
    processes of each one's median log ratio, its t interval and p (none
    under MIN_PROCESSES), the between-process share and the lag-1
    autocorrelation (the header)."""
    groups = by_process(keys, ratios)
    meds = [statistics.median(g) for g in groups.values()]
    n = sum(len(g) for g in groups.values())
    lo = hi = cover = p = eq_lo = eq_hi = None
    ratio = math.exp(statistics.fmean(meds)) if meds else math.nan
    if len(meds) >= MIN_PROCESSES:
        df = len(meds) - 1
        centre = statistics.fmean(meds)
        se = statistics.stdev(meds) / math.sqrt(len(meds))
        half = t_quantile(1.0 - alpha, df) * se
        lo, hi = math.exp(centre - half), math.exp(centre + half)
        half = t_quantile(1.0 - 2.0 * alpha, df) * se
        eq_lo, eq_hi = math.exp(centre - half), math.exp(centre + half)
        cover = 1.0 - alpha
        p = 1.0 if se == 0 and centre == 0 else \
            0.0 if se == 0 else t_p(centre / se, df)
    return PairedRatio(n=n, ratio=ratio, lo=lo, hi=hi, coverage=cover, p=p,
                       method="process", processes=len(meds),
                       between_share=between_share(list(groups.values())),
                       lag1=lag1(list(groups.values())),
                       per_process=tuple(math.exp(m) for m in meds),
                       eq_lo=eq_lo, eq_hi=eq_hi)


def processes_for_equivalence(x: PairedRatio, margin: float,
                              alpha: float = 0.05, most: int = 64
                              ) -> Optional[int]:
    """The fewest processes whose 1 - 2 alpha t interval, at the spread of
    x's process medians and a true ratio of 1, fits inside ±margin; None
    without a process-level interval, or beyond `most`."""
    if x.method != "process" or x.eq_lo is None or x.eq_hi is None or \
            x.processes < MIN_PROCESSES:
        return None
    p = x.processes
    half = (math.log(x.eq_hi) - math.log(x.eq_lo)) / 2.0
    sd = half * math.sqrt(p) / t_quantile(1.0 - 2.0 * alpha, p - 1)
    for k in range(MIN_PROCESSES, most + 1):
        if t_quantile(1.0 - 2.0 * alpha, k - 1) * sd / math.sqrt(k) <= \
                math.log1p(margin):
            return k
    return None


# -----------------------------------------------------------------------------
# Signed rank: the end-to-end validation's rounds
# -----------------------------------------------------------------------------
#
# The statistics of the end-to-end validation's paired rounds
# (validation/run.py), deterministic. Each round runs the baseline, the
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
