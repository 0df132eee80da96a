# -----------------------------------------------------------------------------
# validation/dependence.py
# -----------------------------------------------------------------------------
#
# When a case's rounds are not independent draws (decide.py's header says
# why it matters): the lag-1 autocorrelation of the per-round log ratios,
# and the interval that carries it and the spread between the case's
# blocks (runs of consecutive rounds separated in time: run.py's passes).
#
#   lag1(d, blocks)       the lag-1 autocorrelation of d, pooled over the
#                         blocks, each about its own mean; nan below 3
#                         rounds (a pair of neighbours in each block)
#   rho_used(d, blocks)   lag1 corrected for its small-sample bias (for an
#                         AR(1) about its estimated mean, rho - (1 + 3
#                         rho) / n to (1 + 4 rho) / n, n the block's
#                         rounds: Marriott and Pope 1954; we take the
#                         larger, since the smaller left AR(1) 0.7's
#                         coverage at 92.8%), so rho = (n r + 1) / (n - 4),
#                         held to [0, RHO_MAX]
#   deff(rho)             the design effect (1 + rho) / (1 - rho): the
#                         effective rounds are n / deff
#   carried(d, blocks)    the Hodges-Lehmann centre of every round with its
#                         exact 95% and 90% intervals, each end's distance
#                         from the centre times sqrt(deff(rho_used)) and
#                         the ratio of t quantiles at the effective and
#                         the actual rounds (n / deff - 1 against n - 1
#                         degrees of freedom: fewer effective rounds, a
#                         longer tail); then,
#                         with two or more blocks, widened again where the
#                         spread of the blocks' own centres says the centre
#                         is less certain than that (their SD / sqrt(B),
#                         against the widened half-width over the normal
#                         quantile), and the blocks' own intervals
#
# Always applied, not only above a threshold: a pre-test (widen only when
# lag1 looks material) undercovers exactly where rho is moderate, since the
# estimate is noisy at 15 to 30 rounds (its SD about 1/sqrt(n), 0.2 to
# 0.25). RHO_MATERIAL is the threshold at which the row's words call it
# material: from rho 0.2 the interval is 22% wider or more. Standard library
# and pick.decide.paired only.

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Optional, Sequence

from pick.decide import paired

RHO_MAX = 0.9        # deff 19: beyond it the rounds say too little to tell
RHO_MATERIAL = 0.2   # sqrt(deff) 1.22: the words say "material" from here
LEVELS = (0.95, 0.90)


def _split(d: Sequence[float], blocks: Optional[Sequence[int]]
           ) -> list[list[float]]:
    """d cut into its blocks in the order they first appear; one block
    when blocks is None."""
    if blocks is None:
        return [list(d)] if d else []
    if len(blocks) != len(d):
        raise ValueError("one block key per round: %d for %d" % (
            len(blocks), len(d)))
    out: dict[int, list[float]] = {}
    for b, x in zip(blocks, d):
        out.setdefault(b, []).append(x)
    return list(out.values())


def lag1(d: Sequence[float], blocks: Optional[Sequence[int]] = None
         ) -> float:
    """The pooled lag-1 autocorrelation within the blocks (each about its
    own mean, pick.decide.paired.lag1); nan with fewer than 2 pairs of
    neighbours or every d equal."""
    r = paired.lag1(_split(d, blocks), min_pairs=2, min_len=2)
    return math.nan if r is None else r


def rho_used(d: Sequence[float], blocks: Optional[Sequence[int]] = None
             ) -> float:
    """lag1 less its small-sample bias, in [0, RHO_MAX]; 0 when lag1 is
    undefined or the blocks are too short to correct."""
    r = lag1(d, blocks)
    parts = [len(xs) for xs in _split(d, blocks) if len(xs) >= 2]
    if math.isnan(r) or not parts:
        return 0.0
    n = statistics.fmean(parts)
    if n <= 5:
        return 0.0
    return min(RHO_MAX, max(0.0, (n * r + 1.0) / (n - 4.0)))


def deff(rho: float) -> float:
    return (1.0 + rho) / (1.0 - rho)


@dataclasses.dataclass(frozen=True)
class Carried:
    """One side's rounds, every interval in log units (> 0 better)."""
    centre: float                       # Hodges-Lehmann of every round
    lo: float                           # the carried 95% interval
    hi: float
    lo90: float                         # the carried 90% interval (TOST)
    hi90: float
    rho: float                          # lag1, nan when undefined
    rho_used: float
    widen: float                        # hi-lo over the rounds-only's
    blocks: tuple[tuple[float, float, float], ...] = ()  # per block


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile by its Cornish-Fisher expansion in 1 / df
    (at p 0.975: 1% low at 5 degrees of freedom, 4% at 3); df held
    >= 2."""
    z = statistics.NormalDist().inv_cdf(p)
    v = max(2.0, df)
    return z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) \
        / (96 * v * v)


def _widened(xs: list[float], centre: float, level: float, rho: float
             ) -> tuple[float, float]:
    """The exact interval at level, each end moved from the centre by the
    header's factor for rho."""
    lo, hi = paired.hl_interval(xs, level)
    f = 1.0
    if rho > 0.0 and len(xs) > 2:
        q, n = 0.5 + level / 2.0, len(xs)
        f = math.sqrt(deff(rho)) * t_quantile(q, n / deff(rho) - 1.0) / \
            t_quantile(q, n - 1.0)
    return centre - f * (centre - lo), centre + f * (hi - centre)


def carried(d: Sequence[float], blocks: Optional[Sequence[int]] = None,
            widen: bool = True) -> Carried:
    """The header's interval; widen=False: the rounds-only one (the rule
    before issue 47, kept for the calibration's liberal check)."""
    xs = [float(x) for x in d]
    parts = _split(xs, blocks)
    centre = paired.hodges_lehmann(xs) if xs else math.nan
    rho = lag1(xs, blocks) if xs else math.nan
    used = rho_used(xs, blocks) if widen and xs else 0.0
    ends = [_widened(xs, centre, lv, used) if xs else (-math.inf, math.inf)
            for lv in LEVELS]
    per: list[tuple[float, float, float]] = []
    if widen and len(parts) >= 2:
        for p in parts:
            c = paired.hodges_lehmann(p)
            per.append((c,) + _widened(p, c, LEVELS[0], rho_used(p)))
        between = statistics.stdev(c for c, _, _ in per) / math.sqrt(
            len(parts))
        for i, lv in enumerate(LEVELS):
            lo, hi = ends[i]
            z = statistics.NormalDist().inv_cdf(0.5 + lv / 2.0)
            within = (hi - lo) / (2.0 * z)
            if math.isfinite(within) and between > within > 0.0:
                g = between / within
                ends[i] = (centre - g * (centre - lo),
                           centre + g * (hi - centre))
    base = paired.hl_interval(xs) if xs else (-math.inf, math.inf)
    w = (ends[0][1] - ends[0][0]) / (base[1] - base[0]) \
        if math.isfinite(base[1] - base[0]) and base[1] > base[0] else 1.0
    return Carried(centre, ends[0][0], ends[0][1], ends[1][0], ends[1][1],
                   rho, used, w, tuple(per))
