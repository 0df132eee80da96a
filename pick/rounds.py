# -----------------------------------------------------------------------------
# pick/rounds.py
# -----------------------------------------------------------------------------
#
# One class decided from paired rounds (a file with context.serverkit.rounds;
# picking.decide() calls decide_paired()). The harness runs every
# implementation of a group once per round, back to back in a fresh random
# order, and measures the floor just before; a run's pairing key is
# (process, round).
#
# Paired ratios (round_ratios()): for every key present for both A and B in
# every group of the class, the geometric mean over the groups of A's
# metric over B's (> 1: A is better). Their median, sign-test interval and
# p (paired.py) decide:
#   above     the interval's lower bound > 1 and the median > 1 + min margin;
#   within    a tie: otherwise, "within ±x%" (x: the interval's farther end);
#   unknown   fewer than 6 paired rounds (no interval).
# Host states (host_states()): each key's floor is the median round_floor_ns
# of A's and B's runs in it; the log floors split in two (two-means); the
# host is bimodal when each state has >= 3 rounds and their medians differ
# by more than the drift threshold. Then the log ratios of the two states
# are compared (U-test, p < alpha; without scipy: disjoint intervals). When
# they do not differ, or differ with the same answer, the verdict stands
# with a note; when the answers differ, the class is "split" (both answers,
# no winner adopted); when they differ and a state has fewer than 6 rounds,
# the verdict stands if that state's median points the other state's way
# (a difference in size), else "inconsistent" (rerun): the only refusal
# left, and it says why. The floor
# never vetoes on its own here (stats.drift() is for files without rounds).

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Optional

from pick import results as R
from pick.paired import MIN_ROUNDS, Paired, fmt_interval, fmt_p, paired, \
    two_means_split
from pick.decisions import ClassPick, HostStatesDict, PairedStats
from pick.stats import better_ratio, geomean, utest


@dataclasses.dataclass(frozen=True)
class RoundRatios:
    """A over B per pairing key, with the floor measured before it."""

    keys: list[R.RoundKey]
    ratios: list[float]
    floors: list[Optional[float]]


@dataclasses.dataclass(frozen=True)
class HostStates:
    """A bimodal host: the rounds split by their floor into a near and a
    far state, each state's paired ratios, and whether they differ."""

    near_floor_ns: float
    far_floor_ns: float
    near: Paired
    far: Paired
    p: Optional[float]       # U-test on the log ratios; None without scipy
    differ: bool

    def as_dict(self) -> HostStatesDict:
        return HostStatesDict(
            near_floor_ns=self.near_floor_ns, far_floor_ns=self.far_floor_ns,
            near=self.near.as_dict(), far=self.far.as_dict(), p=self.p,
            differ=self.differ)

    def describe(self) -> str:
        return "host drifted (floor ~%.0f ns in %d rounds, ~%.0f ns in %d)" \
            % (self.near_floor_ns, self.near.n, self.far_floor_ns,
               self.far.n)


def _value(cell: R.Cell, key: R.RoundKey, metric: str) -> float:
    v = cell.by_round.get(key, {}).get(metric, math.nan)
    return v if v > 0 and math.isfinite(v) else math.nan


def round_ratios(fr: R.FamilyResults, groups: list[R.Group], a: str, b: str,
                 metric: str, higher: bool) -> RoundRatios:
    """A over B in each round both ran in every group (see the header)."""
    common: Optional[set[R.RoundKey]] = None
    for g in groups:
        ca, cb = fr.cells[g].get(a), fr.cells[g].get(b)
        if ca is None or cb is None:
            return RoundRatios([], [], [])
        keys = {k for k in ca.by_round.keys() & cb.by_round.keys()
                if not math.isnan(_value(ca, k, metric)) and
                not math.isnan(_value(cb, k, metric))}
        common = keys if common is None else common & keys
    out = RoundRatios(sorted(common or ()), [], [])
    for k in out.keys:
        cells = [(fr.cells[g][a], fr.cells[g][b]) for g in groups]
        out.ratios.append(geomean([better_ratio(
            _value(ca, k, metric), _value(cb, k, metric), higher)
            for ca, cb in cells]))
        fl = [c.by_round[k].get("round_floor_ns", 0.0)
              for pair in cells for c in pair]
        fl = [f for f in fl if f > 0 and math.isfinite(f)]
        out.floors.append(statistics.median(fl) if fl else None)
    return out


def host_states(rr: RoundRatios, threshold: float,
                alpha: float) -> Optional[HostStates]:
    """The two host states when the host is bimodal (see the header), else
    None."""
    pts = sorted((f, x) for f, x in zip(rr.floors, rr.ratios) if f)
    cut = two_means_split([math.log(f) for f, _ in pts])
    near, far = pts[:cut], pts[cut:]
    if len(near) < 3 or len(far) < 3:
        return None
    fn = statistics.median(f for f, _ in near)
    ff = statistics.median(f for f, _ in far)
    if not ff / fn - 1 > threshold:
        return None
    pn = paired([x for _, x in near], alpha)
    pf = paired([x for _, x in far], alpha)
    p = utest([math.log(x) for _, x in near], [math.log(x) for _, x in far])
    if p is not None:
        differ = p < alpha
    else:
        differ = (pn.lo is not None and pn.hi is not None and
                  pf.lo is not None and pf.hi is not None and
                  (pn.lo > pf.hi or pf.lo > pn.hi))
    return HostStates(fn, ff, pn, pf, p, differ)


def fmt_band(band: Optional[float]) -> str:
    if band is None:
        return "-"
    return "±%.0f%%" % (100 * band) if band >= 0.01 else \
        "±%.1f%%" % (100 * band)


def answer(a: str, b: str, x: Paired, min_margin: float,
           state: str) -> str:
    """One state's answer: 'a in the near state (1.30x [1.20, 1.40] over b,
    9 rounds)' or 'a tie in the far state (within ±3%, 7 rounds)'."""
    o = x.outcome(min_margin)
    if o in ("a", "b"):
        first, second, y = (a, b, x) if o == "a" else (b, a, x.inverted())
        return "%s in the %s state (%s over %s, %d rounds)" % (
            first, state, fmt_interval(y), second, x.n)
    return "a tie in the %s state (within %s, %d rounds)" % (
        state, fmt_band(x.band()), x.n)


def point_outcome(x: Paired, min_margin: float) -> str:
    """Paired.outcome() from the median alone, for a state too short for an
    interval: "a", "b" or "tie"."""
    if x.ratio > 1 + min_margin:
        return "a"
    if x.ratio > 0 and 1 / x.ratio > 1 + min_margin:
        return "b"
    return "tie"


def tie_verdict(a: str, b: str, x: Paired, min_margin: float,
                level: str) -> str:
    """A paired comparison that is not above the noise, in words."""
    if x.lo is not None and x.hi is not None and (x.lo > 1 or x.hi < 1):
        first, second, y = (a, b, x) if x.lo > 1 else (b, a, x.inverted())
        return ("%s ahead of %s by %s, less than the minimum margin %.0f%%: "
                "a tie in practice (%s, %d rounds)" % (
                    first, second, fmt_interval(y), 100 * min_margin, level,
                    x.n))
    return "a tie: %s and %s within %s (%s, %d rounds)" % (
        a, b, fmt_band(x.band()), level, x.n)


def _stats_dict(a: str, b: str, x: Paired) -> PairedStats:
    out = PairedStats(a=a, b=b)
    out.update(x.as_dict())
    return out


def _group_dict(group: str, x: Paired) -> PairedStats:
    out = PairedStats(group=group)
    out.update(x.as_dict())
    return out


def decide_paired(fr: R.FamilyResults, groups: list[R.Group], metric: str,
                  higher: bool, w: str, r: str, baseline: Optional[str],
                  complete: list[str], alpha: float, min_margin: float,
                  threshold: Optional[float] = None) -> ClassPick:
    """The class's verdict from paired rounds between the leader `w` and
    the runner-up `r` (picking.decide()'s keys, and paired, baseline_paired,
    group_paired, host_note, paired_notes). `threshold`: the drift
    threshold that makes two floors two host states (the file's unless
    given)."""
    if threshold is None:
        threshold = fr.floor_summary().threshold
    level = "%.0f%%" % (100 * (1 - alpha))
    rr = round_ratios(fr, groups, w, r, metric, higher)
    st = paired(rr.ratios, alpha)
    out = ClassPick(host_note=None, paired_notes=[])
    if st.n >= MIN_ROUNDS and st.ratio < 1:
        # The paired median, not the pooled score, orders the pair: a tie
        # then reads "X 1.04x [0.97, 1.12] over Y", never 0.96x.
        out["paired_notes"].append(
            "the paired rounds put %s ahead of %s, which leads on the class "
            "score" % (r, w))
        w, r = r, w
        rr = round_ratios(fr, groups, w, r, metric, higher)
        st = paired(rr.ratios, alpha)
    lead = _stats_dict(w, r, st)
    lead["states"] = None
    out.update(ClassPick(winner=w, runner_up=r, p_max=st.p, paired=lead))
    out["group_paired"] = [
        _group_dict(R.group_name(fr.family, g[0], g[1]), paired(
            round_ratios(fr, [g], w, r, metric, higher).ratios, alpha))
        for g in groups]
    out["baseline_paired"] = None
    if baseline and baseline != w and baseline in complete:
        out["baseline_paired"] = _stats_dict(w, baseline, paired(
            round_ratios(fr, groups, w, baseline, metric, higher).ratios,
            alpha))
    if st.n < MIN_ROUNDS:
        out.update(ClassPick(noise="unknown", verdict=(
            "noise unknown: %d paired round%s of %s and %s; %d are needed "
            "for an interval" % (st.n, "" if st.n == 1 else "s", w, r,
                                 MIN_ROUNDS))))
        return out
    if st.outcome(min_margin) == "a":
        out.update(ClassPick(noise="above", verdict=(
            "%s over %s, %d paired rounds, sign test p %s" % (
                fmt_interval(st), r, st.n, fmt_p(st.p)))))
    else:
        out.update(ClassPick(noise="within",
                   verdict=tie_verdict(w, r, st, min_margin, level)))
    hs = host_states(rr, threshold, alpha)
    if hs is None:
        return out
    out["paired"]["states"] = hs.as_dict()
    test = "p %s" % fmt_p(hs.p) if hs.p is not None else \
        "the intervals overlap" if not hs.differ else "disjoint intervals"
    if not hs.differ:
        out["host_note"] = ("%s; the paired ratio did not differ between "
                            "the states (%s): the drift did not matter" % (
                                hs.describe(), test))
        return out
    (short, short_name), (long, _) = sorted(
        ((hs.near, "near"), (hs.far, "far")), key=lambda s: s[0].n)
    if short.n < MIN_ROUNDS:
        # Too few rounds for the short state's own interval: its median
        # either points to the long state's answer (a difference in size
        # only) or not, and then nothing can be said.
        if point_outcome(short, min_margin) == long.outcome(min_margin):
            out["host_note"] = (
                "%s; the paired ratio differs between the states (%s) in "
                "size, not in answer: the %s state's %d rounds (median "
                "%.2fx) point the same way as the other's (%s)" % (
                    hs.describe(), test, short_name, short.n, short.ratio,
                    fmt_interval(long)))
            return out
        out.update(ClassPick(noise="inconsistent", winner=None, verdict=(
            "the paired ratios differ between host states (%s) and the %s "
            "state has only %d rounds, which point another way (median "
            "%.2fx): rerun" % (test, short_name, short.n, short.ratio))))
        out["host_note"] = hs.describe()
        return out
    near = answer(w, r, hs.near, min_margin, "near")
    far = answer(w, r, hs.far, min_margin, "far")
    if hs.near.outcome(min_margin) == hs.far.outcome(min_margin):
        out["host_note"] = (
            "%s; the paired ratio differs between the states (%s) but the "
            "answer is the same: %s, %s" % (hs.describe(), test, near, far))
        return out
    out.update(ClassPick(noise="split", winner=None,
                         verdict="%s, %s" % (near, far)))
    out["host_note"] = "%s; the paired ratio differs between the states " \
        "(%s)" % (hs.describe(), test)
    return out


def paired_rule(alpha: float, min_margin: float) -> str:
    """The rule for a file of paired rounds, in words."""
    return ("paired rounds: the median per-round ratio's %.0f%% sign-test "
            "interval excludes 1 and the median exceeds 1 + min margin %g "
            "(a tie otherwise; under %d rounds unknown)" % (
                100 * (1 - alpha), min_margin, MIN_ROUNDS))


def class_rounds(fr: R.FamilyResults, scenarios: list[str]
                 ) -> ClassPick:
    """The rounds the class's unit(s) ran and whether the time budget ended
    them: ClassPick's rounds, budget_ended, rounds_stop."""
    info = fr.rounds()
    units = info.units_for(scenarios) if info else []
    counts = [u.rounds for u in units if u.rounds is not None]
    stops = sorted({u.stop for u in units if u.stop})
    return ClassPick(rounds=min(counts) if counts else None,
                     budget_ended=any(u.stop == "budget" for u in units),
                     rounds_stop=", ".join(stops) or None)


def rounds_text(res: ClassPick) -> str:
    """'18 (budget ended)', '7', or '-' (no rounds)."""
    n = res.get("rounds")
    if n is None:
        return "-"
    return "%d%s" % (n, " (budget ended)" if res.get("budget_ended") else "")
