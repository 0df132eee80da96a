# -----------------------------------------------------------------------------
# pick/decide/stats.py
# -----------------------------------------------------------------------------
#
# The statistics pick decides with: ratios oriented so that > 1 is better,
# the geometric mean, the U-test, the noise rule, and the drift rule.
#
# Noise (noise(), the one place the rule lives): in each group the winner's
# repetitions are tested against the runner-up's with the two-sided
# Mann-Whitney U test (utest(): our own, exact up to 80 values, so that no
# verdict depends on whether scipy is installed); the margin is "above
# noise" in a group when p < alpha, the margin exceeds the larger of the two
# coefficients of variation, and it exceeds MIN_MARGIN (5%; --min-margin).
# With one repetition (--profile=smoke) the noise is unknown and the table
# says so. A file merged from a sweep run as N processes
# (read/sweeps.py, merge_parts()) adds one condition: the winner's median
# must be ahead in every process, so that a process-level effect makes a
# tie, never a confident winner.
#
# The floor and drift: every family file has a reference row
# <family>/floor/cache-line (two pinned threads bouncing cache lines, the
# next of 64 each round trip), ranked on its own, never in a class, and the
# floor measured before and after the sweep (results.floor_summary()). A
# family "drifted" when the before/after p50 differ by more than the
# threshold (max/min - 1 > 0.20) or the CV of the interleaved row's p50
# repetitions exceeds it; drift()
# computes this from the numbers, never from a flag in the file. The
# threshold is the file's unless the caller passes one (--drift-threshold).
# A drifted family of a file without paired rounds names no winner ("host
# drifted: rerun") and the reactor keeps its baselines for it
# (drift_veto(), the one place that decides the veto).

from __future__ import annotations

import functools
import math
from typing import Optional, TypedDict

from pick.read import sweeps
from pick.records import Noise as Noise
from pick.margin import MARGIN
from typing import Sequence
from pick import records

# The margin m (margin.py's, the one source): the noise rule's minimum
# margin for files without rounds, and the band of every standing
# (--margin overrides it).
MIN_MARGIN = MARGIN


# noise()'s verdict on one group: shapes.Noise (ClassPick lists them).


class Drift(TypedDict):
    """drift()'s verdict on one family's floor."""
    drifted: bool
    reason: Optional[str]    # the rules that fired, "; "-joined
    verdict: Optional[str]   # "host drifted: rerun (...)" when drifted


def better_ratio(a: Optional[float], b: Optional[float],
                 higher: bool) -> float:
    """How many times better a is than b (> 1: a is better)."""
    if a is None or b is None or math.isnan(a) or math.isnan(b) or \
            a <= 0 or b <= 0:
        return math.nan
    return a / b if higher else b / a


def geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x and x > 0 and not math.isnan(x)]
    if not xs:
        return math.nan
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def fmt_ratio(x: Optional[float]) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return "%.2fx" % x


@functools.lru_cache(maxsize=64)
def _rank_sum_counts(ranks2: tuple[int, ...], m: int) -> tuple[int, ...]:
    """counts[s]: how many of the C(N, m) equally likely ways to pick m of
    the N (doubled) ranks have a doubled rank sum of s. One big integer
    per subset size holds the counts as fields wide enough never to
    carry."""
    width = len(ranks2) + 1            # bits: every count is <= 2^N
    total = sum(ranks2)
    poly = [1] + [0] * m
    for i, r in enumerate(ranks2):
        for k in range(min(i + 1, m), 0, -1):
            poly[k] += poly[k - 1] << (width * r)
    mask = (1 << width) - 1
    return tuple((poly[m] >> (width * s)) & mask for s in range(total + 1))


# Above this many values in all, the U-test uses the normal approximation
# (with the tie correction): the exact count grows as N^3 and is within
# 0.005 of it there.
EXACT_MAX = 80


def utest(xs: list[float], ys: list[float]) -> Optional[float]:
    """The two-sided Mann-Whitney U test's p, the same on every machine:
    exact (the permutation null over the mid-ranks, ties included) up to
    EXACT_MAX values in all, else the normal approximation with the tie
    and continuity corrections. None with fewer than 2 values a side."""
    if len(xs) < 2 or len(ys) < 2:
        return None
    vals = list(xs) + list(ys)
    ranks2 = doubled_midranks(vals)
    n, m = len(vals), len(xs)
    total = sum(ranks2)
    observed = sum(ranks2[:m])
    mean2 = total * m / n                 # doubled rank sum's mean
    dev = abs(observed - mean2)
    if dev == 0:
        return 1.0
    if n <= EXACT_MAX:
        counts = _rank_sum_counts(tuple(sorted(ranks2)), m)
        hit = sum(c for s, c in enumerate(counts) if abs(s - mean2) >=
                  dev - 1e-9)
        return min(1.0, hit / math.comb(n, m))
    # Normal approximation on the (undoubled) rank sum.
    ranks = [r / 2 for r in ranks2]
    ties = sum(t ** 3 - t for t in _tie_sizes(ranks))
    var = m * (n - m) / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (dev / 2 - 0.5) / math.sqrt(var)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def _tie_sizes(ranks: list[float]) -> list[int]:
    seen: dict[float, int] = {}
    for r in ranks:
        seen[r] = seen.get(r, 0) + 1
    return [t for t in seen.values() if t > 1]


def noise(cw: records.Cell, cr: records.Cell, metric: str, higher: bool,
          alpha: float,
          min_margin: float = MIN_MARGIN) -> Noise:
    """Is cw's margin over cr in one group above noise? (The winner's over
    the runner-up's, or one implementation's over another's.) Above: the
    U-test's p < alpha, and the margin exceeds both the larger CV and
    `min_margin`. In a
    file merged from several processes, also: cw's median is better than
    cr's in every process (else "split" says where it is not)."""
    sw, sr = cw.reps(metric), cr.reps(metric)
    ratio = better_ratio(cw.median(metric), cr.median(metric), higher)
    cvs = [c for c in (cw.cv(metric), cr.cv(metric)) if c is not None]
    cvmax = max(cvs) if cvs else None
    n = min(len(sw), len(sr))
    out = Noise(ratio=ratio, cv=cvmax, reps=n, p=None)
    if n < 2:
        out["state"] = "unknown"
        return out
    p = utest(sw, sr)
    out["p"] = p
    margin = ratio - 1 if not math.isnan(ratio) else 0.0
    above = p is not None and p < alpha and \
        margin > max(cvmax or 0.0, min_margin)
    # A sweep run as several processes: every process must agree.
    pw, pr = cw.process_medians(metric), cr.process_medians(metric)
    procs = sorted(set(pw) & set(pr))
    out["processes"] = len(procs)
    out["split"] = None
    if len(procs) >= 2:
        per = [(k, better_ratio(pw[k], pr[k], higher)) for k in procs]
        behind = [(k, x) for k, x in per if not x > 1]
        if above and behind:
            above = False
            out["split"] = "behind in process %s" % ", ".join(
                "%d (%s)" % (k, fmt_ratio(x)) for k, x in behind)
    out["state"] = "above" if above else "within"
    return out


def noise_rule(alpha: float, min_margin: float) -> str:
    return ("U-test p < %g and margin > max(the larger CV, min margin %g); "
            "and ahead in every process of a sweep run as several" % (
                alpha, min_margin))


# --- the floor: did the host drift? ------------------------------------

def _ns(x: Optional[float]) -> str:
    return "-" if x is None else "%.0f" % x


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else "%.1f%%" % (100 * x)


def floor_detail(fl: records.FloorSummary) -> str:
    """'floor p50 561 ns before, 575 ns after; interleaved CV 1.2%'"""
    return "floor p50 %s ns before, %s ns after; interleaved CV %s" % (
        _ns(fl.before_p50_ns), _ns(fl.after_p50_ns), _pct(fl.row_cv))


def drift(fl: records.FloorSummary,
          threshold: Optional[float] = None) -> Drift:
    """Did the host drift during the sweep? From a floor summary
    (results.floor_summary), never from a flag in the file: the before and
    after p50 differ by more than the threshold (max / min - 1), or the CV
    of the interleaved floor row's p50 repetitions exceeds it. The
    threshold: `threshold` when given (--drift-threshold), else the
    file's. Returns dict(drifted, reason (the rules that fired), verdict)."""
    t = fl.threshold if threshold is None else threshold
    fired = []
    b, a = fl.before_p50_ns, fl.after_p50_ns
    if b and a:
        change = max(b, a) / min(b, a) - 1
        if change > t:
            fired.append("before/after p50 differ by %.0f%% > %.0f%%" % (
                100 * change, 100 * t))
    if fl.row_cv is not None and fl.row_cv > t:
        fired.append("interleaved CV %.1f%% > %.0f%%" % (
            100 * fl.row_cv, 100 * t))
    out = Drift(drifted=bool(fired), reason="; ".join(fired) or None,
                verdict=None)
    if fired:
        out["verdict"] = "host drifted: rerun (%s): %s" % (
            floor_detail(fl), out["reason"])
    return out


def family_drift(fr: sweeps.FamilyResults,
                 threshold: Optional[float] = None) -> Drift:
    return drift(fr.floor_summary(), threshold)


def drift_veto(fr: sweeps.FamilyResults,
               threshold: Optional[float] = None) -> Optional[Drift]:
    """The family's drift when it withholds the family's winners, else None:
    only a file without paired rounds is vetoed (paired rounds check the
    host's states class by class instead, rounds.py)."""
    if fr.rounds() is not None:
        return None
    dr = family_drift(fr, threshold)
    return dr if dr["drifted"] else None


# Mid-ranks for the rank tests: pick's U-test (stats.utest) and the
# validation's signed-rank test (pick/decide/paired.py), which
# imports it as pick.ranks. At pick's bottom layer, standard library only.

def doubled_midranks(values: Sequence[float]) -> list[int]:
    """Twice the 1-based mid-ranks of values, in their order: integers, so
    that ties need no fractions (a tie of ranks 2 and 3 gets 5 each)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == \
                values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = i + j + 2
        i = j + 1
    return out
