# -----------------------------------------------------------------------------
# pick/stats.py
# -----------------------------------------------------------------------------
#
# The statistics pick decides with: ratios oriented so that > 1 is better,
# the geometric mean, the U-test, the noise rule, and the drift rule.
#
# Noise (noise(), the one place the rule lives): in each group the winner's
# repetitions are tested against the runner-up's with the two-sided
# Mann-Whitney U test, the test Google Benchmark's compare.py runs
# (scipy.stats.mannwhitneyu); the margin is "above noise" in a group when
# p < alpha, the margin exceeds the larger of the two coefficients of
# variation, and it exceeds MIN_MARGIN (5%; --min-margin). Without scipy the
# CV rule is margin > 2 x CV (and > the minimum margin). With one repetition
# (--profile=smoke) the noise is unknown and the table says so. A file
# merged from a sweep run as N processes (merge.py) adds one condition: the
# winner's median must be ahead in every process, so that a process-level
# effect makes a tie, never a confident winner.
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
#
# scipy is imported on first use and remembered here (_mannwhitneyu()), the
# one cache of pick's; without it the rules fall back as described.

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional, TypedDict

from pick import results as R
from pick.decisions import Noise as Noise

# The noise rule's minimum margin: a winner must also beat the runner-up by
# more than this fraction (--min-margin overrides it).
MIN_MARGIN = 0.05


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


@functools.lru_cache(maxsize=None)
def _mannwhitneyu() -> Optional[Callable[..., Any]]:
    """scipy.stats.mannwhitneyu, imported once; None without scipy."""
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        return None
    found: Callable[..., Any] = mannwhitneyu
    return found


def utest(xs: list[float], ys: list[float]) -> Optional[float]:
    """Two-sided Mann-Whitney U p-value, as compare.py computes it; None when
    scipy is missing or there are too few repetitions."""
    if len(xs) < 2 or len(ys) < 2:
        return None
    test = _mannwhitneyu()
    if test is None:
        return None
    if len(set(xs) | set(ys)) == 1:
        return 1.0
    return float(test(xs, ys, alternative="two-sided").pvalue)


def scipy_available() -> bool:
    return _mannwhitneyu() is not None


def noise(cw: R.Cell, cr: R.Cell, metric: str, higher: bool, alpha: float,
          min_margin: float = MIN_MARGIN) -> Noise:
    """Is cw's margin over cr in one group above noise? (The winner's over
    the runner-up's, or one implementation's over another's.) Above: the
    U-test's p < alpha, and the margin exceeds both the larger CV and
    `min_margin`; without scipy, 2 x the larger CV and `min_margin`. In a
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
    if p is not None:
        above = p < alpha and margin > max(cvmax or 0.0, min_margin)
    else:
        above = margin > max(2 * (cvmax or 0.0), min_margin)
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
    every = "; and ahead in every process of a sweep run as several"
    if scipy_available():
        return ("U-test p < %g and margin > max(the larger CV, min margin "
                "%g)%s" % (alpha, min_margin, every))
    return ("margin > max(2 x the larger CV, min margin %g) (no scipy)%s" %
            (min_margin, every))


# --- the floor: did the host drift? ------------------------------------

def _ns(x: Optional[float]) -> str:
    return "-" if x is None else "%.0f" % x


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else "%.1f%%" % (100 * x)


def floor_detail(fl: R.FloorSummary) -> str:
    """'floor p50 561 ns before, 575 ns after; interleaved CV 1.2%'"""
    return "floor p50 %s ns before, %s ns after; interleaved CV %s" % (
        _ns(fl.before_p50_ns), _ns(fl.after_p50_ns), _pct(fl.row_cv))


def drift(fl: R.FloorSummary, threshold: Optional[float] = None) -> Drift:
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


def family_drift(fr: R.FamilyResults,
                 threshold: Optional[float] = None) -> Drift:
    return drift(fr.floor_summary(), threshold)


def drift_veto(fr: R.FamilyResults,
               threshold: Optional[float] = None) -> Optional[Drift]:
    """The family's drift when it withholds the family's winners, else None:
    only a file without paired rounds is vetoed (paired rounds check the
    host's states class by class instead, rounds.py)."""
    if fr.rounds() is not None:
        return None
    dr = family_drift(fr, threshold)
    return dr if dr["drifted"] else None
