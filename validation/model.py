# -----------------------------------------------------------------------------
# validation/model.py
# -----------------------------------------------------------------------------
#
# Predict, then check: the arithmetic that turns a micro benchmark's cost
# per operation into a predicted end-to-end ratio (docs/methods.md, "Predict,
# then check"). Standard library and pick.decide.paired's Hodges-Lehmann
# estimate; predict.py and loadmap.py feed it their rounds, check.py
# reads its resamples.
#
# The model. The server's cost per unit of work (CPU per message, request
# or delivery, or 1/throughput) is C = C0 + k * c, where c is the cost of one
# operation of the component (a task popped, a KiB consumed, a log line)
# and k the exchange rate: what one more nanosecond per operation costs the
# server per unit. The positive controls measure k directly: each injects d
# ns of busy wait per operation into the baseline, and k is the slope of C
# on d (per round, least squares through the baseline at d = 0; the median
# over rounds). Then, with n operations per unit (the servers' counters):
#   amplification = k / n      (1: a nanosecond in the component costs the
#                               server one; > 1 contention multiplies it;
#                               < 1 it hides in idle time)
#   share         = k * c_base / C       (the baseline component's part)
#   predicted(x)  = C / (C + k * (c_x - c_base))   (> 1: x is better)
# where c_x is implementation x's micro cost per operation.
#
# Intervals: a percentile bootstrap (BOOTSTRAP resamples, a fixed seed) over
# the validation's rounds and, jointly with it, over the micro benchmark's
# rounds (each resample draws rounds of both, with replacement), so every
# figure carries the noise of every input. Where a round also ran the
# candidate, its cost rides along with the round: each resample then gives
# the measured ratio (exp of the Hodges-Lehmann estimate of the per-round
# log(baseline cost / candidate cost), the row's e2e estimate) beside every
# prediction, and the model keeps the resamples (Model.draws) for the
# check (check.py), which compares the two through one joint resampling.
# Rounds with and without the candidate (the load map's check pools both)
# are drawn separately, so that every resample has as many of each.

from __future__ import annotations

import dataclasses
import math
import random
import statistics
from typing import Callable, Optional, Sequence

from pick.decide import paired

BOOTSTRAP = 1000
SEED = 20261126
LEVEL = 0.95


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A point estimate and its bootstrap interval (None when undefined)."""
    est: float
    low: float
    high: float

    def holds(self, x: float) -> bool:
        return self.low <= x <= self.high

    def as_json(self) -> dict[str, float]:
        return dict(est=self.est, low=self.low, high=self.high)


@dataclasses.dataclass(frozen=True)
class Round:
    """One round's costs per unit of work, in ns: the baseline's, and each
    control's (injected ns per operation, cost); the baseline's operations
    per unit (None where the metric's unit has no count); the candidate's
    cost (None where the round did not run it clean)."""
    base: float
    controls: tuple[tuple[float, float], ...]
    ops_per_unit: Optional[float] = None
    candidate: Optional[float] = None


def round_slope(r: Round) -> Optional[float]:
    """The round's exchange rate: least squares through (0, base) of the
    cost on the injected ns per operation."""
    den = sum(d * d for d, _ in r.controls if d > 0)
    if den <= 0:
        return None
    return sum(d * (c - r.base) for d, c in r.controls if d > 0) / den


def round_curvature(r: Round) -> Optional[float]:
    """The rise at the largest injected cost over the rise the smallest
    predicts at it: 1 where the cost is linear in d; None with fewer than
    two sizes or no rise at the smallest."""
    pts = sorted((d, c - r.base) for d, c in r.controls if d > 0)
    if len(pts) < 2 or pts[0][1] <= 0 or pts[-1][0] <= pts[0][0]:
        return None
    return (pts[-1][1] / pts[-1][0]) / (pts[0][1] / pts[0][0])


# Micro costs: {implementation: {round: ns per operation}}.
Micro = dict[str, dict[int, float]]


@dataclasses.dataclass(frozen=True)
class Point:
    """The model's figures from one set of rounds (no intervals)."""
    cost: float                      # C, ns per unit
    slope: float                     # k
    ops_per_unit: Optional[float]    # n
    amplification: Optional[float]   # k / n
    curvature: Optional[float]
    share: Optional[float]           # k c_base / C
    predicted: dict[str, float]      # x -> C / (C + k (c_x - c_base))
    measured: Optional[float] = None  # the candidate's ratio, > 1 better


def _median(xs: Sequence[float]) -> Optional[float]:
    return statistics.median(xs) if xs else None


def predict_ratio(cost: float, slope: float, c_base: float,
                  c_x: float) -> float:
    """C / (C + k (c_x - c_base)), > 1 when x is cheaper; inf where the
    model predicts a cost at or below zero (a slope the data cannot
    support)."""
    after = cost + slope * (c_x - c_base)
    return math.inf if after <= 0 else cost / after


def measured_ratio(rounds: Sequence[Round]) -> Optional[float]:
    """The candidate's measured ratio over the baseline (> 1: cheaper):
    exp of the Hodges-Lehmann estimate of the per-round log(base /
    candidate), as the row's e2e; None without a round that ran it."""
    d = [math.log(r.base / r.candidate) for r in rounds
         if r.candidate is not None and r.candidate > 0 and r.base > 0]
    return math.exp(paired.hodges_lehmann(d)) if d else None


def point(rounds: Sequence[Round], micro: Micro,
          baseline: str) -> Optional[Point]:
    """The model's point figures, or None without a round or a slope."""
    slopes = [s for s in (round_slope(r) for r in rounds) if s is not None]
    cost, k = _median([r.base for r in rounds]), _median(slopes)
    if cost is None or k is None or cost <= 0:
        return None
    n = _median([r.ops_per_unit for r in rounds
                 if r.ops_per_unit is not None and r.ops_per_unit > 0])
    curv = _median([c for c in (round_curvature(r) for r in rounds)
                    if c is not None])
    med = {x: _median(list(v.values())) for x, v in micro.items()}
    c_base = med.get(baseline)
    predicted = {} if c_base is None else {
        x: predict_ratio(cost, k, c_base, c) for x, c in med.items()
        if c is not None}
    return Point(cost=cost, slope=k, ops_per_unit=n,
                 amplification=None if not n else k / n, curvature=curv,
                 share=None if c_base is None else k * c_base / cost,
                 predicted=predicted, measured=measured_ratio(rounds))


def _resample_micro(micro: Micro, rng: random.Random) -> Micro:
    """The micro rounds drawn with replacement, jointly for every
    implementation (a round's values stay together)."""
    ids = sorted({i for v in micro.values() for i in v})
    if not ids:
        return micro
    draw = [rng.choice(ids) for _ in ids]
    out: Micro = {}
    for x, v in micro.items():
        vals = [v[i] for i in draw if i in v]
        out[x] = dict(enumerate(vals)) if vals else dict(v)
    return out


@dataclasses.dataclass(frozen=True)
class Model:
    """The model's figures with their intervals."""
    point: Point
    cost: Estimate
    slope: Estimate
    ops_per_unit: Optional[Estimate]
    amplification: Optional[Estimate]
    curvature: Optional[Estimate]
    share: Optional[Estimate]
    predicted: dict[str, Estimate]
    rounds: int
    micro_rounds: int
    resamples: int
    measured: Optional[Estimate] = None   # the candidate's, where it ran
    draws: tuple[Point, ...] = ()         # the resamples (check.py)


def percentile_ends(n: int) -> tuple[int, int]:
    """The indices of the LEVEL percentile interval's ends among n sorted
    values."""
    a = (1 - LEVEL) / 2
    return (min(n - 1, int(math.floor(a * n))),
            min(n - 1, int(math.ceil((1 - a) * n)) - 1))


def interval(est: Optional[float], xs: list[float]) -> Optional[Estimate]:
    """The percentile interval of xs (nan left out) around est; None
    without est or values."""
    xs = sorted(x for x in xs if x is not None and not math.isnan(x))
    if est is None or not xs:
        return None
    lo, hi = percentile_ends(len(xs))
    return Estimate(est, xs[lo], xs[hi])


def fit(rounds: Sequence[Round], micro: Micro, baseline: str,
        resamples: int = BOOTSTRAP, seed: int = SEED) -> Optional[Model]:
    """The model with percentile-bootstrap intervals (the header), or None
    where the rounds give no point (no round, no slope)."""
    found = point(rounds, micro, baseline)
    if found is None:
        return None
    p: Point = found
    rng = random.Random(seed)
    got: list[Point] = []
    strata = [g for g in ([r for r in rounds if r.candidate is not None],
                          [r for r in rounds if r.candidate is None]) if g]
    for _ in range(resamples):
        rs = [rng.choice(g) for g in strata for _ in g]
        q = point(rs, _resample_micro(micro, rng), baseline)
        if q is not None:
            got.append(q)

    def est(f: Callable[[Point], Optional[float]]) -> Optional[Estimate]:
        return interval(f(p), [v for v in (f(q) for q in got)
                               if v is not None])

    cost, slope = est(lambda q: q.cost), est(lambda q: q.slope)
    assert cost is not None and slope is not None

    def pred_of(x: str) -> Callable[[Point], Optional[float]]:
        return lambda q: q.predicted.get(x)

    predicted = {}
    for x in p.predicted:
        e = est(pred_of(x))
        if e is not None:
            predicted[x] = e
    return Model(point=p, cost=cost, slope=slope,
                 ops_per_unit=est(lambda q: q.ops_per_unit),
                 amplification=est(lambda q: q.amplification),
                 curvature=est(lambda q: q.curvature),
                 share=est(lambda q: q.share), predicted=predicted,
                 rounds=len(rounds),
                 micro_rounds=len({i for v in micro.values() for i in v}),
                 resamples=len(got), measured=est(lambda q: q.measured),
                 draws=tuple(got))


def model_json(m: Model) -> dict[str, object]:
    """The model as pingpong.json stores it."""
    def j(e: Optional[Estimate]) -> Optional[dict[str, float]]:
        return None if e is None else e.as_json()
    return dict(cost_ns_per_unit=j(m.cost), exchange_rate=j(m.slope),
                ops_per_unit=j(m.ops_per_unit),
                amplification=j(m.amplification),
                curvature=j(m.curvature), share=j(m.share),
                predicted={x: e.as_json() for x, e in m.predicted.items()},
                rounds=m.rounds, micro_rounds=m.micro_rounds,
                resamples=m.resamples, interval="percentile bootstrap, "
                "%d resamples over the validation's and the micro "
                "benchmark's rounds" % m.resamples)
