# -----------------------------------------------------------------------------
# servers/soak/trend.py
# -----------------------------------------------------------------------------
#
# Does a series sampled during the soak trend upward? Pure functions on
# (times, values), standard library only:
#
#   - `mann_kendall_p`: the one-sided Mann-Kendall test for an upward
#     trend (S = sum of sign(x_j - x_i) over i < j; its variance with the
#     correction for ties; the normal approximation with a continuity
#     correction). A constant series, or one with fewer than 3 samples,
#     has p = 1.
#   - `theil_sen_slope`: the median of the pairwise slopes (x_j - x_i) /
#     (t_j - t_i), robust to outliers and to a single step.
#   - `judge`: the verdict on one series after its warm-up. A series leaks
#     when all three hold:
#       1. Mann-Kendall's one-sided p < alpha (0.01) on the post-warm-up
#          samples: the rise is not noise;
#       2. the Theil-Sen slope times the post-warm-up duration (`rise`)
#          exceeds the series' practical limit: it matters;
#       3. it is sustained: the median of each third of the window exceeds
#          the median of the third before by more than limit / 4 (a rise
#          just at the limit gives each third limit / 3; `thirds` holds
#          the two differences). The medians are median_low, a sample.
#     Condition 3 is what lets a single step up pass wherever it falls
#     (one allocation that stays, a pool that reached its size): a step
#     lifts at most one of the two boundaries between the thirds' medians,
#     while a leak lifts both, and so does a staircase of steps (a leak).
#     With noise of sd 0.3 MiB, steps of 5 to 100 MiB at every position of
#     a 10-minute window never failed in 4,230 tries (1.3% at sd 0.5 MiB).
#     Growth that stops before the last third passes too.
#   - `limit_for`: the practical limits: RSS max(4 MiB, 10% of the
#     window's starting level), descriptors 8, threads 2.
#
# Fewer than MIN_SAMPLES (8) samples after the warm-up cannot be judged: the
# verdict is "too-short", which fails the soak.
#
# The bottom layer of servers/soak: standard library only.

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Sequence

ALPHA = 0.01
MIN_SAMPLES = 8
RSS_FLOOR_KIB = 4096
RSS_FRACTION = 0.10
FDS_LIMIT = 8
THREADS_LIMIT = 2
# The series the driver samples, in the order the tables print them.
SERIES = ("rss_kib", "fds", "threads")


@dataclasses.dataclass(frozen=True)
class Trend:
    """The verdict on one series: its level (start, end, max of the whole
    run), the post-warm-up window (n samples, from window_start_s), the
    Theil-Sen slope per minute, the rise it implies over the window, how
    much each third's median exceeds the previous third's (thirds), the
    practical limit,
    Mann-Kendall's one-sided p, and the verdict: "pass", "leak" or
    "too-short", with the reason in words."""
    series: str
    n: int
    window_start_s: float
    window_s: float
    start: float
    end: float
    max: float
    slope_per_min: float
    rise: float
    thirds: tuple[float, float]
    limit: float
    p: float
    verdict: str
    reason: str

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


def _normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def mann_kendall_s(values: Sequence[float]) -> int:
    """Kendall's S: pairs that rise less pairs that fall."""
    s = 0
    n = len(values)
    for i in range(n - 1):
        vi = values[i]
        for j in range(i + 1, n):
            d = values[j] - vi
            if d > 0:
                s += 1
            elif d < 0:
                s -= 1
    return s


def mann_kendall_variance(values: Sequence[float]) -> float:
    """Var(S) under no trend, corrected for groups of tied values."""
    n = len(values)
    ties = sum(t * (t - 1) * (2 * t + 5)
               for t in _tie_counts(values) if t > 1)
    return (n * (n - 1) * (2 * n + 5) - ties) / 18.0


def _tie_counts(values: Sequence[float]) -> list[int]:
    counts: dict[float, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return list(counts.values())


def mann_kendall_p(values: Sequence[float]) -> float:
    """One-sided p for an upward trend (1.0 where it cannot be told:
    under 3 samples, or every sample alike)."""
    if len(values) < 3:
        return 1.0
    var = mann_kendall_variance(values)
    if var <= 0:
        return 1.0
    s = mann_kendall_s(values)
    if s > 0:
        z = (s - 1) / math.sqrt(var)
    elif s < 0:
        z = (s + 1) / math.sqrt(var)
    else:
        z = 0.0
    return _normal_sf(z)


def theil_sen_slope(times: Sequence[float], values: Sequence[float]
                    ) -> float:
    """The median of the pairwise slopes (per unit of time); 0 for fewer
    than 2 distinct times."""
    if len(times) != len(values):
        raise ValueError("times and values differ in length")
    slopes = []
    n = len(times)
    for i in range(n - 1):
        ti, vi = times[i], values[i]
        for j in range(i + 1, n):
            dt = times[j] - ti
            if dt > 0:
                slopes.append((values[j] - vi) / dt)
    return statistics.median(slopes) if slopes else 0.0


def limit_for(series: str, window_values: Sequence[float]) -> float:
    """The practical limit on a series' rise over the window: RSS (KiB)
    max(4 MiB, 10% of the median of the window's first 5 samples),
    descriptors 8, threads 2."""
    if series == "rss_kib":
        base = statistics.median(window_values[:5]) if window_values else 0
        return max(float(RSS_FLOOR_KIB), RSS_FRACTION * base)
    if series == "fds":
        return float(FDS_LIMIT)
    if series == "threads":
        return float(THREADS_LIMIT)
    raise ValueError("unknown series %r" % series)


def judge(series: str, times: Sequence[float], values: Sequence[float],
          warmup_s: float, limit: float, alpha: float = ALPHA) -> Trend:
    """The verdict on one series: the samples at or after warmup_s (times
    in seconds from the start) make the window; see the header for the
    rule."""
    if len(times) != len(values):
        raise ValueError("times and values differ in length")
    level = (float(values[0]) if values else 0.0,
             float(values[-1]) if values else 0.0,
             float(max(values)) if values else 0.0)
    idx = [i for i, t in enumerate(times) if t >= warmup_s]
    wt = [float(times[i]) for i in idx]
    wv = [float(values[i]) for i in idx]
    if len(wt) < MIN_SAMPLES:
        return Trend(series, len(wt), warmup_s, 0.0, *level, 0.0, 0.0,
                     (0.0, 0.0), limit, 1.0, "too-short",
                     "%d samples after the warm-up, %d needed"
                     % (len(wt), MIN_SAMPLES))
    span = wt[-1] - wt[0]
    slope = theil_sen_slope(wt, wv)
    rise = slope * span
    n = len(wv)
    m = [statistics.median_low(wv[n * k // 3:n * (k + 1) // 3])
         for k in range(3)]
    thirds = (m[1] - m[0], m[2] - m[1])
    p = mann_kendall_p(wv)
    sustained = min(thirds) > limit / 4.0
    leak = p < alpha and rise > limit and sustained
    if leak:
        reason = ("rises %.4g over the window (limit %.4g), thirds +%.4g "
                  "+%.4g, p = %.2g" % (rise, limit, *thirds, p))
    elif p >= alpha:
        reason = "no upward trend (p = %.2g)" % p
    elif rise <= limit:
        reason = "trend %.4g within the limit %.4g" % (rise, limit)
    else:
        reason = ("not sustained: the thirds' medians rise %+.4g, %+.4g "
                  "(each must exceed %.4g)" % (*thirds, limit / 4.0))
    return Trend(series, len(wt), wt[0], span, *level, slope * 60.0, rise,
                 thirds, limit, p, "leak" if leak else "pass", reason)


def judge_series(series: str, times: Sequence[float],
                 values: Sequence[float], warmup_s: float,
                 alpha: float = ALPHA) -> Trend:
    """judge() with the series' practical limit (limit_for)."""
    window = [v for t, v in zip(times, values) if t >= warmup_s]
    return judge(series, times, values, warmup_s,
                 limit_for(series, window), alpha)
