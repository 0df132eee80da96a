# -----------------------------------------------------------------------------
# pick/decide/paired/process.py
# -----------------------------------------------------------------------------
#
# Paired rounds from several fresh processes, summarised at the process
# level (pick.paired re-exports it). Rounds inside one process share its
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
# Standard library only.

from __future__ import annotations

import math
import statistics
from typing import Optional, Sequence

from pick.decide.paired.ratio import PairedRatio

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
