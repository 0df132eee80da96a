# -----------------------------------------------------------------------------
# validation/check.py
# -----------------------------------------------------------------------------
#
# Predict, then check: the check (docs/methods.md, "The check"). The
# prediction and the measurement share the validation's rounds (the
# baseline's cost is in both), so they are compared as one quantity from
# one joint resampling (model.fit's: each resample draws the validation's
# rounds, baseline, candidate and controls together, and the micro
# benchmark's rounds; Model.draws keeps them), never by asking whether one's
# interval holds the other's point. Per resample:
#
#   log(measured / predicted)                       its percentile interval
#   gamma = (1/measured - 1) / (1/predicted - 1)    the transfer factor: how
#       many times the candidate's in-situ cost difference (relative to the
#       server's cost per unit) exceeds the one the micro costs predict
#
# gamma's interval is the set of g that the resamples do not reject: g is
# in it where the percentile interval of N - g D holds 0 (N = 1/measured
# - 1, D = 1/predicted - 1), a test inversion (Fieller's idea) that needs
# no division by D. Where D keeps its sign it is the percentile interval of
# N / D; where the prediction cannot tell the candidate from the baseline
# (D's resamples on both sides of 0) it is unbounded, and the report says
# so. The set excludes 1 exactly where the interval of log(measured /
# predicted) excludes 0.
#
# Three outcomes, with m the row's margin and GAMMA_ALT the stated
# alternative:
#   inconsistent   gamma's interval excludes 1: the server pays another
#                  difference than the micro benchmark measured
#   consistent     the interval of log(measured / predicted) lies inside
#                  ±log(1+m) where that could have failed (a server paying
#                  GAMMA_ALT times the micro difference would have landed
#                  outside the band: band_can_fail; at a 1% share it would
#                  not, and the band alone passed a wrong model half the
#                  time at 24 rounds), or gamma's interval holds 1 and lies
#                  inside
#                  (1/GAMMA_ALT, GAMMA_ALT): it excludes twice and half
#                  the micro difference (an interval down to 0 would hold
#                  "the server pays nothing", so both sides)
#   uninformative  anything else: a small predicted effect the rounds
#                  cannot resolve (what a 1% share gives)
# Only "consistent" counts as a check that holds.
#
# Precedence: "inconsistent" first. Both it and the band clause hold where
# a small, precisely measured effect differs from a small prediction (a
# tight gamma of 3 at a 1% share: measured within ±m of the prediction,
# yet three times the micro difference). The band says the miss is small
# at this share; gamma is what carries to other loads (the load map
# multiplies the micro difference by shares many times this one), so a
# gamma shown to differ from 1 is a finding about the micro benchmark that
# a small share must not hide. The gamma clause of "consistent" and
# "inconsistent" exclude each other.
#
# validation/check_calibration.py measures how often each outcome comes
# out on synthetic servers where gamma is known.

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Sequence

from pick.margin import MARGIN
from validation import model as validation_model

CONSISTENT, INCONSISTENT, UNINFORMATIVE = (
    "consistent", "inconsistent", "uninformative")
OUTCOMES = (CONSISTENT, INCONSISTENT, UNINFORMATIVE)
# The alternative the gamma clause must exclude: the server paying twice
# (or half) the micro cost difference.
GAMMA_ALT = 2.0


@dataclasses.dataclass(frozen=True)
class Check:
    """The candidate's prediction against its measured ratio (the header):
    the outcome and the figures behind it. gamma's ends are +-inf where
    unbounded, its estimate nan where the prediction is exactly 1."""
    outcome: str
    measured: validation_model.Estimate
    predicted: validation_model.Estimate
    log_ratio: validation_model.Estimate     # log(measured / predicted)
    gamma: validation_model.Estimate
    margin: float
    resamples: int

    @property
    def holds(self) -> bool:
        return self.outcome == CONSISTENT

    def words(self) -> str:
        return words(self)

    def as_json(self) -> dict[str, Any]:
        def j(e: validation_model.Estimate) -> dict[str, Optional[float]]:
            return {k: v if math.isfinite(v) else None
                    for k, v in e.as_json().items()}
        return dict(outcome=self.outcome, log_ratio=j(self.log_ratio),
                    gamma=j(self.gamma), measured=j(self.measured),
                    predicted=j(self.predicted), margin=self.margin,
                    gamma_band=[1 / GAMMA_ALT, GAMMA_ALT],
                    resamples=self.resamples, words=self.words())


def _holds_zero(neg: int, zero: int, pos: int) -> bool:
    """Whether the percentile interval of values with these sign counts
    holds 0."""
    lo, hi = validation_model.percentile_ends(neg + zero + pos)
    return neg + zero >= lo + 1 and pos + zero >= neg + zero + pos - hi


def gamma_holds(nd: Sequence[tuple[float, float]], g: float) -> bool:
    """Whether g is in gamma's interval: the percentile interval of
    N - g D over the resamples holds 0."""
    v = [n - g * d for n, d in nd]
    return _holds_zero(sum(x < 0 for x in v), sum(x == 0 for x in v),
                       sum(x > 0 for x in v))


def gamma_interval(nd: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The ends of gamma's interval (the hull of the g that gamma_holds
    keeps), +-inf where unbounded; (nan, nan) where it is empty. A sweep
    over the points where some N - g D changes sign."""
    # As g goes from -inf up, N - g D starts with the sign of D and
    # changes it at N / D; D == 0 keeps the sign of N.
    neg = sum(1 for n, d in nd if d < 0 or (d == 0 and n < 0))
    pos = sum(1 for n, d in nd if d > 0 or (d == 0 and n > 0))
    zero = len(nd) - neg - pos
    flips = sorted((n / d, d) for n, d in nd if d != 0)
    inside: list[float] = []
    if _holds_zero(neg, zero, pos):
        inside += [-math.inf] + ([] if flips else [math.inf])
    for k, (b, d) in enumerate(flips):
        # At b itself this value is 0; past it, it has the sign of -D.
        if _holds_zero(neg - (d < 0), zero + 1, pos - (d > 0)):
            inside.append(b)
        neg, pos = (neg + 1, pos - 1) if d > 0 else (neg - 1, pos + 1)
        if _holds_zero(neg, zero, pos):
            inside += [b, flips[k + 1][0] if k + 1 < len(flips)
                       else math.inf]
    if not inside:
        return (math.nan, math.nan)
    return (min(inside), max(inside))


def band_can_fail(predicted: float, margin: float) -> bool:
    """Whether the band clause could have failed: a server paying
    GAMMA_ALT times (or 1/GAMMA_ALT of) the micro difference would have
    landed outside ±log(1+m) of the predicted ratio."""
    if not math.isfinite(predicted) or predicted <= 0:
        return False
    d = 1.0 / predicted - 1.0
    for g in (GAMMA_ALT, 1.0 / GAMMA_ALT):
        alt = 1.0 + g * d
        if alt <= 0 or abs(math.log((1.0 + d) / alt)) > math.log1p(margin):
            return True
    return False


def outcome_of(log_ratio: validation_model.Estimate,
               gamma: validation_model.Estimate, one_in: bool,
               margin: float, predicted: float) -> str:
    """The header's rule: one_in says whether gamma's interval holds 1;
    predicted, the candidate's predicted ratio (the band clause counts
    only where band_can_fail())."""
    if not one_in:
        return INCONSISTENT
    band = math.log1p(margin)
    if -band <= log_ratio.low and log_ratio.high <= band and \
            band_can_fail(predicted, margin):
        return CONSISTENT
    if 1 / GAMMA_ALT < gamma.low and gamma.high < GAMMA_ALT:
        return CONSISTENT
    return UNINFORMATIVE


def _inv(x: float) -> float:
    """1/x; 0 for the infinite ratio of a predicted cost at or below 0."""
    return 0.0 if math.isinf(x) else 1.0 / x


def _log_ratio(measured: float, predicted: float) -> float:
    return -math.inf if math.isinf(predicted) else \
        math.log(measured) - math.log(predicted)


def check(model: validation_model.Model, candidate: str,
          margin: float = MARGIN) -> Optional[Check]:
    """The check of the candidate's prediction from the model's resamples;
    None without a measured ratio or a prediction for the candidate."""
    p = model.point
    pm, pp = p.measured, p.predicted.get(candidate)
    pairs = [(q.measured, q.predicted[candidate]) for q in model.draws
             if q.measured is not None and candidate in q.predicted]
    if pm is None or pp is None or not pairs or not math.isfinite(pp):
        return None
    nd = [(1 / m - 1, _inv(x) - 1) for m, x in pairs]
    logs = [_log_ratio(m, x) for m, x in pairs]
    est_lr = _log_ratio(pm, pp)

    def iv(est: float, xs: list[float]) -> validation_model.Estimate:
        e = validation_model.interval(est, xs)
        if e is not None:
            return e
        return validation_model.Estimate(est, math.nan, math.nan)
    d0 = _inv(pp) - 1
    g_est = (1 / pm - 1) / d0 if d0 != 0 else math.nan
    lo, hi = gamma_interval(nd)
    gamma = validation_model.Estimate(g_est, lo, hi)
    lr = iv(est_lr, logs)
    return Check(outcome_of(lr, gamma, gamma_holds(nd, 1.0), margin, pp),
                 measured=iv(pm, [m for m, _ in pairs]),
                 predicted=iv(pp, [x for _, x in pairs]), log_ratio=lr,
                 gamma=gamma, margin=margin, resamples=len(pairs))


def _g(x: float) -> str:
    return "%.2g" % x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def gamma_words(g: validation_model.Estimate) -> str:
    """'2.6x [2.1, 3.3]'; 'unbounded' where an end is."""
    if math.isnan(g.low):
        return "n/a"
    if not (math.isfinite(g.low) and math.isfinite(g.high)):
        return "unbounded (%s to %s): the prediction does not tell the " \
            "candidate from the baseline" % (_g(g.low), _g(g.high))
    return "%sx [%s, %s]" % (_g(g.est), _g(g.low), _g(g.high))


def words(c: Check) -> str:
    """The check in one line: the outcome, what decided it, the ratios."""
    tail = "measured %.3fx, predicted %.3fx" % (c.measured.est,
                                                c.predicted.est)
    band = "±%g%%" % round(100 * c.margin, 2)
    ratio = "measured/predicted %.3f [%.3f, %.3f]" % tuple(
        math.exp(x) for x in (c.log_ratio.est, c.log_ratio.low,
                              c.log_ratio.high))
    gw = gamma_words(c.gamma)
    if c.outcome == INCONSISTENT:
        return "inconsistent: the server pays %s the micro cost " \
            "difference (γ); %s" % (gw, tail)
    if c.outcome == CONSISTENT:
        lr = c.log_ratio
        if -math.log1p(c.margin) <= lr.low and \
                lr.high <= math.log1p(c.margin):
            return "consistent: %s, inside %s; γ %s; %s" % (
                ratio, band, gw, tail)
        return "consistent: the server pays %s the micro cost difference " \
            "(γ, inside %g to %g); %s" % (gw, 1 / GAMMA_ALT, GAMMA_ALT, tail)
    return "uninformative: γ %s, %s reaches past %s; %s" % (
        gw, ratio, band, tail)
