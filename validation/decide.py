# -----------------------------------------------------------------------------
# validation/decide.py
# -----------------------------------------------------------------------------
#
# The validation's verdict rule and stop rule (run.py runs the rounds).
# Their inputs are per-round paired log ratios, oriented so that > 0 is
# better: for each round, log(candidate / baseline) and log(control /
# baseline) on the case's metric, with the block each round ran in (run.py
# runs every case in BLOCKS passes, minutes apart). Each side is summed up
# by pick.decide.paired.rank_paired() (the Hodges-Lehmann
# ratio, the
# exact signed-rank p of the rounds, the MDE) and by
# dependence.carried(): the rounds' lag-1 autocorrelation rho and the
# interval that carries it and the spread between the blocks. The
# candidate's carried interval is read against the margin m
# (pick/margin.py's standing):
#
#   error           no round ran clean
#   too-weak        fewer rounds than the exact test needs to reach p <
#                   ALPHA, or the control not detected as worse (its
#                   carried 95% interval not below 1): the run could not
#                   have seen the candidate either
#   held, refuted   the candidate's carried 95% interval entirely above /
#                   below 1 (and the blocks agree)
#   equivalent      the carried 90% interval inside [1/(1+m), 1+m]: TOST,
#                   two one-sided tests at 5% each (Schuirmann 1987)
#   not-told-apart  anything else: the interval holds 1 and reaches past
#                   the margin; or the blocks disagree (their 95%
#                   intervals disjoint, or pointing opposite ways):
#                   "the blocks disagree: ...", nothing adopted. Its
#                   reason says how many rounds equivalence would need at
#                   the rounds' spread and rho (equivalence_rounds)
#
# Why carried (issue 47; docs/methods.md, "How often the rules are wrong:
# the validation"): the exact interval assumes independent rounds. Under an
# AR(1) drift of rho 0.7 it covered 60% and gave 39% false held or
# refuted; a host state that lasts the whole case is invisible to any
# interval from its rounds alone. The effective rounds are about n (1 -
# rho) / (1 + rho), so every interval end moves away from the centre by
# sqrt((1 + rho) / (1 - rho)), rho estimated within the blocks and
# corrected for its small-sample bias; a block bootstrap or batch means
# with 15 to 30 rounds have too few blocks to be stable. The p printed
# beside it is the rounds-only test's; the verdict reads the interval.
#
# The stop rule (stop_rule, pure, so that calibration.py drives the one
# the runs use): a case stops at max_rounds; before min_rounds it goes on;
# from MIN_TARGET_ROUNDS on, with every block at min_rounds, it stops
# ("target") once the candidate's carried 90% interval is narrow enough
# for TOST at m (high / low <= 1 + m: half the band's width, so at a true
# 1.00 the interval lies inside the band with the power that
# calibration.py states) and the control is detected. It never stops on
# the p or on an MDE estimated from its own rounds; the budget (rounds) is
# the other way out.

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Optional, Sequence

from pick.decide import paired
from pick.records import ValidationRow
from validation import dependence
from validation.cases import MARGIN, Outcome, Standing, standing

# The fewest rounds before the width may stop a case. The width is
# estimated from the rounds themselves, so a case that stops on it stops
# where its spread came out small, and its interval covers a little less:
# with the target from 6 rounds, 6.2% false held or refuted under the
# null (4000 simulated cases, calibration.py); from 12, 4.5%.
MIN_TARGET_ROUNDS = 12
# The blocks a case runs in (run.py's passes), each with its share of the
# case's rounds and budget.
BLOCKS = 2
# TOST's power at a true 1.00 that equivalence_rounds sizes for.
EQ_POWER = 0.8


@dataclasses.dataclass(frozen=True)
class Decision:
    outcome: Outcome
    winner: Optional[paired.PairedRatio]  # the candidate, its interval carried
    control: Optional[paired.PairedRatio]
    mde: float       # relative; inf when the rounds cannot reach p < ALPHA
    reason: str
    standing: Standing = Standing.UNKNOWN   # the candidate's interval
    margin: float = MARGIN
    carried: Optional[dependence.Carried] = None   # the candidate's, log units
    control_carried: Optional[dependence.Carried] = None
    equivalence_rounds: Optional[int] = None   # for a not-told-apart
    disagree: str = ""                      # "the blocks disagree: ..."


def fmt_mde(mde: float) -> str:
    if math.isinf(mde) or math.isnan(mde):
        return "MDE n/a: too few rounds for p < %.2f" % paired.ALPHA
    return "MDE %.1f%% at the spread's upper 95%% bound" % (100 * mde)


def _num(x: Optional[float]) -> float:
    return math.nan if x is None else x


def _exp(x: float) -> float:
    return 0.0 if x < -700 else math.inf if x > 700 else math.exp(x)


def with_carried(r: paired.PairedRatio,
                 c: dependence.Carried) -> paired.PairedRatio:
    """The rounds' summary with the carried 95% interval's ends."""
    return r.with_ends(_exp(c.lo), _exp(c.hi))


def detected(control: dependence.Carried) -> bool:
    """The control told apart from the baseline, worse: its carried 95%
    interval below 1 (the exact test's p < ALPHA when rho is 0)."""
    return control.hi < 0.0


def control_detected(ctrl: Sequence[float],
                     blocks: Optional[Sequence[int]] = None,
                     widen: bool = True) -> bool:
    """detected() from the control's log ratios, without the MDE."""
    return len(ctrl) >= paired.min_rounds() and \
        detected(dependence.carried(ctrl, blocks, widen))


def narrow(win: Sequence[float], margin: float = MARGIN,
           blocks: Optional[Sequence[int]] = None,
           widen: bool = True) -> bool:
    """The candidate's carried 90% interval narrow enough for TOST at the
    margin: log(high / low) <= log(1 + margin)."""
    if len(win) < paired.min_rounds():
        return False
    c = dependence.carried(win, blocks, widen)
    return c.hi90 - c.lo90 <= math.log1p(margin)


def stop_rule(win: Sequence[float], ctrl: Sequence[float], rounds: int,
              min_rounds: int, max_rounds: int,
              margin: float = MARGIN,
              win_blocks: Optional[Sequence[int]] = None,
              ctrl_blocks: Optional[Sequence[int]] = None,
              widen: bool = True) -> Optional[str]:
    """Why a case stops after `rounds` rounds whose log ratios are win
    (the candidate's) and ctrl (the control's), with their blocks (None:
    one block): "max_rounds", "target" (the header's rule), or None to run
    one more (the budget aside)."""
    if rounds >= max_rounds:
        return "max_rounds"
    if rounds < max(min_rounds, MIN_TARGET_ROUNDS):
        return None
    if win_blocks is not None and (len(set(win_blocks)) < BLOCKS or min(
            win_blocks.count(b) for b in set(win_blocks)) < min_rounds):
        return None
    if narrow(win, margin, win_blocks, widen) and \
            control_detected(ctrl, ctrl_blocks, widen):
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


def candidate_standing(c: dependence.Carried, margin: float) -> Standing:
    """The 95% interval's direction, else TOST's 90% interval in the
    band: equivalent."""
    s = standing(_exp(c.lo), _exp(c.hi), margin)
    if s.points() != 0 or s == Standing.UNKNOWN:
        return s
    band = math.log1p(margin)
    if -band <= c.lo90 and c.hi90 <= band:
        return Standing.EQUIVALENT
    return Standing.NOT_TOLD_APART


def blocks_disagree(c: dependence.Carried, margin: float) -> str:
    """"the blocks disagree: ..." when two blocks' 95% intervals are
    disjoint or point opposite ways; "" otherwise."""
    per = c.blocks
    if len(per) < 2:
        return ""
    points = [standing(_exp(lo), _exp(hi), margin).points()
              for _, lo, hi in per]
    apart = max(lo for _, lo, _ in per) > min(hi for _, _, hi in per)
    if not apart and not (max(points) > 0 > min(points)):
        return ""
    return "the blocks disagree: " + ", ".join(
        "block %d %.3fx [%.2f, %.2f]" % (i + 1, _exp(m), _exp(lo), _exp(hi))
        for i, (m, lo, hi) in enumerate(per))


def equivalence_rounds(d: Sequence[float], rho: float,
                       margin: float = MARGIN) -> Optional[int]:
    """The rounds at which TOST at the margin has power EQ_POWER at a true
    1.00, from the rounds' spread and rho: deff (pi / 3) ((z_0.95 +
    z_(1+EQ_POWER)/2) s / log(1 + m))^2 (the signed-rank test's
    efficiency 3 / pi); None without a spread."""
    s = paired.spread(d) if len(d) >= 2 else math.nan
    if math.isnan(s):
        return None
    z = statistics.NormalDist().inv_cdf
    k = (z(0.95) + z(0.5 + EQ_POWER / 2.0)) * s / math.log1p(margin)
    return math.ceil(dependence.deff(rho) * math.pi / 3.0 * k * k)


def fmt_rho(c: dependence.Carried) -> str:
    """'lag-1 autocorrelation 0.45 (material: interval x1.62)'."""
    if math.isnan(c.rho):
        return "lag-1 autocorrelation n/a"
    return "lag-1 autocorrelation %.2f (%s: interval x%.2f)" % (
        c.rho,
        "material" if c.rho_used >= dependence.RHO_MATERIAL else "small",
        c.widen)


def decide(win: Sequence[float], ctrl: Sequence[float],
           margin: float = MARGIN,
           win_blocks: Optional[Sequence[int]] = None,
           ctrl_blocks: Optional[Sequence[int]] = None,
           widen: bool = True) -> Decision:
    """The verdict from the rounds' log ratios of the candidate and the
    control against the baseline (> 0 better) and their blocks (None: one
    block; the header's rule). widen=False: the rounds-only interval (the
    rule before issue 47)."""
    if not win:
        return Decision(Outcome.ERROR, None, None, math.inf,
                        "no round ran clean", margin=margin)
    wc = dependence.carried(win, win_blocks, widen)
    w = with_carried(paired.rank_paired(win), wc)
    cc = dependence.carried(ctrl, ctrl_blocks, widen) if ctrl else None
    c = with_carried(paired.rank_paired(ctrl), cc) if ctrl and cc else None
    s = candidate_standing(wc, margin)
    w_mde = math.inf if w.mde is None else w.mde
    weak = fmt_mde(w_mde)
    rho = "candidate " + fmt_rho(wc) + (
        ", control " + fmt_rho(cc) if cc else "")
    if len(win) < paired.min_rounds():
        return Decision(Outcome.TOO_WEAK, w, c, w_mde,
                        "%d round(s): the exact test needs %d to reach p < "
                        "%.2f" % (len(win), paired.min_rounds(),
                                  paired.ALPHA), s,
                        margin, wc, cc)
    if c is None or cc is None:
        return Decision(Outcome.TOO_WEAK, w, None, w_mde,
                        "no clean round of the control; %s" % weak, s, margin,
                        wc)
    if not detected(cc):
        return Decision(Outcome.TOO_WEAK, w, c, w_mde,
                        "the control was not detected as worse (ratio "
                        "%.3f [%.2f, %.2f], p %.3g); %s; %s" % (
                            c.ratio, c.low, c.high, _num(c.p), weak, rho), s,
                        margin, wc, cc)
    split = blocks_disagree(wc, margin)
    outcome = Outcome.NOT_TOLD_APART if split else outcome_of(s)
    if split:
        s = Standing.NOT_TOLD_APART
    need = equivalence_rounds(win, wc.rho_used, margin) \
        if outcome == Outcome.NOT_TOLD_APART else None
    reason = "control detected (ratio %.3f, p %.3g); candidate p %.3g; " \
        "%s; %s" % (c.ratio, _num(c.p), _num(w.p), weak, rho)
    if split:
        reason = split + "; nothing adopted; " + reason
    if need is not None:
        reason += "; equivalence within ±%g%% would need about %d rounds " \
            "at this spread (80%% power at a true 1.00)" % (
                round(100 * margin, 2), need)
    return Decision(outcome, w, c, w_mde, reason, s, margin, wc, cc, need,
                    split)


def set_dependence(row: ValidationRow, d: Decision,
                   round_blocks: Sequence[int]) -> None:
    """A row's fields on its rounds' dependence: the lag-1 autocorrelation
    of each side's log ratios ("rho"; null where undefined), the rho the
    interval carried, how much wider it came out than the rounds-only one,
    the blocks, the carried 90% interval (TOST), the rounds equivalence
    would need (a not-told-apart), the blocks' disagreement."""
    def num(x: Optional[float]) -> Optional[float]:
        return None if x is None or not math.isfinite(x) else round(x, 4)
    wc, cc = d.carried, d.control_carried
    row.rho = dict(winner=num(wc.rho) if wc else None,
                   control=num(cc.rho) if cc else None)
    row.rho_used = num(wc.rho_used) if wc else None
    row.interval_widen = num(wc.widen) if wc else None
    row.blocks = len(set(round_blocks))
    row.e2e90 = dict(low=num(_exp(wc.lo90)) if wc else None,
                     high=num(_exp(wc.hi90)) if wc else None)
    row.equivalence_rounds = d.equivalence_rounds
    row.blocks_disagree = d.disagree or None
