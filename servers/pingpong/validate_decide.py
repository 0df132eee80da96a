# -----------------------------------------------------------------------------
# servers/pingpong/validate_decide.py
# -----------------------------------------------------------------------------
#
# The validation's verdict rule (validate.py runs the rounds). Its inputs are
# per-round paired log ratios, oriented so that > 0 is better: for each round,
# log(candidate / baseline) and log(control / baseline) on the case's metric.
# Each side is summed up by validate_paired.paired(): the Hodges-Lehmann
# ratio with its exact interval, the exact signed-rank p, and the MDE of that
# test at that many rounds.
#
#   error          no round ran clean
#   too-weak       fewer rounds than the exact test needs to reach p < ALPHA,
#                  or the control not detected as worse (p >= ALPHA or its
#                  ratio >= 1): the run could not have seen the candidate
#                  either
#   held, refuted  the candidate better / worse at p < ALPHA
#   no-difference  otherwise; the MDE says what that is worth

from __future__ import annotations

import dataclasses
import math
from typing import Optional, Sequence

import validate_paired as VP
from validate_cases import Outcome


@dataclasses.dataclass(frozen=True)
class Decision:
    outcome: Outcome
    winner: Optional[VP.Paired]    # the candidate against the baseline
    control: Optional[VP.Paired]
    mde: float       # relative; inf when the rounds cannot reach p < ALPHA
    reason: str


def fmt_mde(mde: float) -> str:
    if math.isinf(mde) or math.isnan(mde):
        return "MDE n/a: too few rounds for p < %.2f" % VP.ALPHA
    return "MDE %.1f%%" % (100 * mde)


def detected(control: VP.Paired) -> bool:
    """The control told apart from the baseline (p < ALPHA), and worse."""
    return control.p < VP.ALPHA and control.ratio < 1


def decide(win: Sequence[float], ctrl: Sequence[float]) -> Decision:
    """The verdict from the rounds' log ratios of the candidate and the
    control against the baseline (> 0 better; the header's rule)."""
    if not win:
        return Decision(Outcome.ERROR, None, None, math.inf,
                        "no round ran clean")
    w = VP.paired(win)
    c = VP.paired(ctrl) if ctrl else None
    weak = fmt_mde(w.mde)
    if len(win) < VP.min_rounds():
        return Decision(Outcome.TOO_WEAK, w, c, w.mde,
                        "%d round(s): the exact test needs %d to reach p < "
                        "%.2f" % (len(win), VP.min_rounds(), VP.ALPHA))
    if c is None:
        return Decision(Outcome.TOO_WEAK, w, None, w.mde,
                        "no clean round of the control; %s" % weak)
    if not detected(c):
        return Decision(Outcome.TOO_WEAK, w, c, w.mde,
                        "the control was not detected as worse (ratio "
                        "%.3f, p %.3g); %s" % (c.ratio, c.p, weak))
    if w.p < VP.ALPHA:
        outcome = Outcome.HELD if w.ratio > 1 else Outcome.REFUTED
    else:
        outcome = Outcome.NO_DIFFERENCE
    return Decision(outcome, w, c, w.mde, "control detected (ratio %.3f, p "
                    "%.3g); candidate p %.3g; %s" % (c.ratio, c.p, w.p, weak))
