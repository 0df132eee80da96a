# -----------------------------------------------------------------------------
# bench/pingpong/validate_decide.py
# -----------------------------------------------------------------------------
#
# The validation's verdict rule (validate.py runs the cases): from the clean
# runs of the baseline, the winner and the positive control, oriented so
# that > 1 is better,
#
#   error          no clean run of the baseline or the winner
#   too-weak       the control not detected as worse than the baseline
#                  (U-test p >= 0.05, or its ratio >= 1), or no control run:
#                  the run could not have seen the winner either
#   held, refuted  the winner better / worse at p < 0.05
#   no-difference  otherwise
#
# with the ratios' bootstrap intervals and the minimum detectable effect
# (validate_stats.py) in the Decision.

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Optional, Sequence

import validate_stats as VS
from validate_cases import Outcome


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One side against the baseline, oriented so that > 1 is better."""
    ratio: float
    low: float       # bootstrap 95% interval of the ratio
    high: float
    p: float         # two-sided U-test

    def as_dict(self) -> dict[str, float]:
        return dict(ratio=self.ratio, low=self.low, high=self.high, p=self.p)


def compare(base: Sequence[float], other: Sequence[float],
            higher_is_better: bool) -> Comparison:
    if higher_is_better:
        ratio = statistics.median(other) / statistics.median(base)
        low, high = VS.ratio_interval(base, other)
    else:
        ratio = statistics.median(base) / statistics.median(other)
        low, high = VS.ratio_interval(other, base)
    return Comparison(ratio, low, high, VS.u_test(base, other))


@dataclasses.dataclass(frozen=True)
class Decision:
    outcome: Outcome
    winner: Optional[Comparison]
    control: Optional[Comparison]
    mde: float       # relative; inf when the runs cannot reach p < ALPHA
    reason: str


def decide(base: Sequence[float], win: Sequence[float],
           ctrl: Sequence[float], higher_is_better: bool = True) -> Decision:
    """The verdict from the clean runs of each side (validate.py's header)."""
    if not base or not win:
        return Decision(Outcome.ERROR, None, None, math.inf,
                        "no clean run of the baseline or the winner")
    w = compare(base, win, higher_is_better)
    c = compare(base, ctrl, higher_is_better) if ctrl else None
    mde = VS.mde(base, win)
    weak = "MDE %s" % ("n/a: too few runs for p < %.2f" % VS.ALPHA
                       if math.isinf(mde) else "%.1f%%" % (100 * mde))
    if c is None:
        return Decision(Outcome.TOO_WEAK, w, None, mde,
                        "no clean run of the control; %s" % weak)
    if not (c.p < VS.ALPHA and c.ratio < 1):
        return Decision(Outcome.TOO_WEAK, w, c, mde,
                        "the control was not detected as worse (ratio "
                        "%.3f, p %.3g); %s" % (c.ratio, c.p, weak))
    if w.p < VS.ALPHA:
        outcome = Outcome.HELD if w.ratio > 1 else Outcome.REFUTED
    else:
        outcome = Outcome.NO_DIFFERENCE
    return Decision(outcome, w, c, mde, "control detected (ratio %.3f, p "
                    "%.3g); winner p %.3g; %s" % (c.ratio, c.p, w.p, weak))
