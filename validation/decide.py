# -----------------------------------------------------------------------------
# validation/decide.py
# -----------------------------------------------------------------------------
#
# The validation's verdict rule and stop rule (run.py runs the rounds).
# Their inputs are per-round paired log ratios, oriented so that > 0 is
# better: for each round, log(candidate / baseline) and log(control /
# baseline) on the case's metric. Each side is summed up by
# pick.paired.signed_rank.rank_paired(): the Hodges-Lehmann ratio with its
# exact 95% interval, the exact signed-rank p, and the MDE at the spread's
# upper 95% bound. The candidate's interval is read against the margin m
# (pick/margin.py's standing):
#
#   error           no round ran clean
#   too-weak        fewer rounds than the exact test needs to reach p <
#                   ALPHA, or the control not detected as worse (p >= ALPHA
#                   or its ratio >= 1): the run could not have seen the
#                   candidate either
#   held, refuted   the candidate's interval entirely above / below 1
#                   (signed-rank p < ALPHA): ahead or behind
#   equivalent      the interval inside [1/(1+m), 1+m]
#   not-told-apart  anything else: the interval holds 1 and reaches past
#                   the margin
#
# The stop rule (stop_rule, pure, so that calibration.py drives
# the one the runs use): a case stops at max_rounds; before min_rounds it
# goes on; from MIN_TARGET_ROUNDS on it stops ("target") once the
# candidate's interval is narrow enough to decide equivalence at m (high /
# low <= (1+m)^2: an interval that narrow around 1 lies inside the band)
# and the control is detected. It never stops on the p or on an MDE
# estimated from its own rounds; the budget (rounds) is the other
# way out.

from __future__ import annotations

import dataclasses
import math
from typing import Optional, Sequence

from pick import paired as VP
from validation.cases import MARGIN, Outcome, Standing, standing

# The fewest rounds before the width may stop a case. The width is
# estimated from the rounds themselves, so a case that stops on it stops
# where its spread came out small, and its interval covers a little less:
# with the target from 6 rounds, 6.2% false held or refuted under the
# null (4000 simulated cases, calibration.py); from 12, 4.5%.
MIN_TARGET_ROUNDS = 12


@dataclasses.dataclass(frozen=True)
class Decision:
    outcome: Outcome
    winner: Optional[VP.RankPaired]    # the candidate against the baseline
    control: Optional[VP.RankPaired]
    mde: float       # relative; inf when the rounds cannot reach p < ALPHA
    reason: str
    standing: Standing = Standing.UNKNOWN   # the candidate's interval
    margin: float = MARGIN


def fmt_mde(mde: float) -> str:
    if math.isinf(mde) or math.isnan(mde):
        return "MDE n/a: too few rounds for p < %.2f" % VP.ALPHA
    return "MDE %.1f%% at the spread's upper 95%% bound" % (100 * mde)


def detected(control: VP.RankPaired) -> bool:
    """The control told apart from the baseline (p < ALPHA), and worse."""
    return control.p < VP.ALPHA and control.ratio < 1


def control_detected(ctrl: Sequence[float]) -> bool:
    """detected() from the control's log ratios, without the MDE."""
    return bool(ctrl) and VP.signed_rank_p(ctrl) < VP.ALPHA and \
        VP.hodges_lehmann(ctrl) < 0.0


def narrow(win: Sequence[float], margin: float = MARGIN) -> bool:
    """The candidate's 95% interval narrow enough to decide equivalence at
    the margin: log(high / low) <= 2 log(1 + margin)."""
    lo, hi = VP.hl_interval(win) if win else (-math.inf, math.inf)
    return hi - lo <= 2.0 * math.log1p(margin)


def stop_rule(win: Sequence[float], ctrl: Sequence[float], rounds: int,
              min_rounds: int, max_rounds: int,
              margin: float = MARGIN) -> Optional[str]:
    """Why a case stops after `rounds` rounds whose log ratios are win
    (the candidate's) and ctrl (the control's): "max_rounds", "target"
    (the header's rule), or None to run one more (the budget aside)."""
    if rounds >= max_rounds:
        return "max_rounds"
    if rounds < max(min_rounds, MIN_TARGET_ROUNDS):
        return None
    if narrow(win, margin) and control_detected(ctrl):
        return "target"
    return None


def outcome_of(s: Standing) -> Outcome:
    """The outcome of a detected control's case from the candidate's
    standing."""
    if s.points() > 0:
        return Outcome.HELD
    if s.points() < 0:
        return Outcome.REFUTED
    if s == Standing.EQUIVALENT:
        return Outcome.EQUIVALENT
    return Outcome.NOT_TOLD_APART


def decide(win: Sequence[float], ctrl: Sequence[float],
           margin: float = MARGIN) -> Decision:
    """The verdict from the rounds' log ratios of the candidate and the
    control against the baseline (> 0 better; the header's rule)."""
    if not win:
        return Decision(Outcome.ERROR, None, None, math.inf,
                        "no round ran clean", margin=margin)
    w = VP.rank_paired(win)
    c = VP.rank_paired(ctrl) if ctrl else None
    s = standing(w.low, w.high, margin)
    weak = fmt_mde(w.mde)
    if len(win) < VP.min_rounds():
        return Decision(Outcome.TOO_WEAK, w, c, w.mde,
                        "%d round(s): the exact test needs %d to reach p < "
                        "%.2f" % (len(win), VP.min_rounds(), VP.ALPHA), s,
                        margin)
    if c is None:
        return Decision(Outcome.TOO_WEAK, w, None, w.mde,
                        "no clean round of the control; %s" % weak, s, margin)
    if not detected(c):
        return Decision(Outcome.TOO_WEAK, w, c, w.mde,
                        "the control was not detected as worse (ratio "
                        "%.3f, p %.3g); %s" % (c.ratio, c.p, weak), s, margin)
    return Decision(outcome_of(s), w, c, w.mde, "control detected (ratio "
                    "%.3f, p %.3g); candidate p %.3g; %s" % (
                        c.ratio, c.p, w.p, weak), s, margin)
