# -----------------------------------------------------------------------------
# pick/decide/paired_rounds.py
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
# metric over B's (> 1: A is better). The file's rounds choose the leading
# pair; when the family has confirmation rounds (results/confirm/, the pair
# and the baseline run again in several fresh processes), those give every
# margin, so that no margin is estimated on the rounds that selected it
# (the winner's curse). summary() reads them at the process level (a t
# interval over the processes' medians, decide/paired.py) when
# MIN_PROCESSES ran them, so the interval carries the spread between
# processes; else by the rounds' median, sign-test interval and p
# (decide/paired.py). The interval decides, in margin.py's words against
# the margin m:
#   above     the interval's lower end > 1: the leader is "ahead" (by more
#             than m when the lower end clears 1 + m); the reactor adopts it
#             when it is also ahead of the baseline (decide/winners.py)
#   disagree  ahead, but some process put the runner-up ahead: the words
#             say so, and nothing is adopted
#   within    otherwise: "equivalent within ±m" or "not told apart";
#   unknown   no interval (fewer than 6 rounds in under 3 processes).
# Host states (host_states()): each key's floor is the median round_floor_ns
# of A's and B's runs in it; the log floors split in two (two-means); the
# host is bimodal when each state has >= 3 rounds and their medians differ
# by more than the drift threshold. The log ratios of the two states are
# compared with the U-test (stats.utest(), the same on every machine). A
# test that does not reject is "no evidence that the states differ". The
# class is "split" (both answers, nothing adopted) only when the states
# differ (p < alpha) and their answers point different ways (margin.
# conflict(): one ahead and one behind, or one ahead and one equivalent);
# a state too short for an interval claims nothing and splits nothing, so
# one more round cannot withdraw a verdict every state supports. The floor
# never vetoes on its own here (stats.drift() is for files without rounds).
#
# The confirmation plan (confirm_filter(), confirm_flags()): which runs
# confirm the choices of a family's sweep. A class's leader is the best of
# up to 15 implementations, so its margin, estimated on the rounds that
# chose it, is biased up (the winner's curse). bench.sh therefore runs,
# after the first pick, each family once more in CONFIRM_PROCESSES fresh
# processes: the leader, the runner-up and the baseline of every class and
# of the reactor's classes, over the class's groups, for CONFIRM_ROUNDS
# rounds each, merged into results/confirm/<family>.json, whose rounds give
# every margin above, with an interval over the processes.
#
#   confirm_filter(picked, family)   the sweep's --benchmark_filter: one
#                                    POSIX extended regular expression
#                                    (the harness's std::regex), or None
#                                    when the family has nothing to confirm
#   confirm_flags(picked, family)    the processes, then the sweep flags
#                                    bench.sh passes: the rounds (one
#                                    process of one round in the smoke
#                                    profile), the sweep run confirmed
#                                    (--benchmark_context=confirms=ID) and
#                                    the filter; "" when nothing to confirm

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Optional

from pick.read import sweeps
from pick.decide.paired import (MIN_PROCESSES,
                                MIN_ROUNDS,
                                PairedRatio,
                                by_process,
                                fmt_interval,
                                fmt_p,
                                lag1,
                                paired,
                                process_paired,
                                processes_for_equivalence,
                                two_means_split)
from pick.records import ClassPick, HostStatesDict, PairedStats, Picked
from pick.margin import Standing, conflict
from pick.decide.stats import better_ratio, geomean, utest
from pick import records

# The confirmation's fresh processes and rounds in each: rounds inside one
# process share its heap, placement and host state, so the interval is
# taken over the processes' medians (summary(), process_paired), and more
# processes of fewer rounds buy more of it: t(3) is 3.18 where t(2) is
# 4.30 (docs/methods.md, "Processes"). bench.sh runs process K of every
# family before process K + 1, so the processes sit minutes apart.
CONFIRM_PROCESSES = 4
CONFIRM_ROUNDS = 3


@dataclasses.dataclass(frozen=True)
class RoundRatios:
    """A over B per pairing key, with the floor measured before it."""

    keys: list[records.RoundKey]
    ratios: list[float]
    floors: list[Optional[float]]


@dataclasses.dataclass(frozen=True)
class HostStates:
    """A bimodal host: the rounds split by their floor into a near and a
    far state, each state's paired ratios, and whether they differ."""

    near_floor_ns: float
    far_floor_ns: float
    near: PairedRatio
    far: PairedRatio
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


def _value(cell: records.Cell, key: records.RoundKey, metric: str) -> float:
    v = cell.by_round.get(key, {}).get(metric, math.nan)
    return v if v > 0 and math.isfinite(v) else math.nan


def round_ratios(fr: sweeps.FamilyResults, groups: list[records.Group],
                 a: str, b: str,
                 metric: str, higher: bool) -> RoundRatios:
    """A over B in each round both ran in every group (see the header)."""
    common: Optional[set[records.RoundKey]] = None
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
    return HostStates(fn, ff, pn, pf, p, p is not None and p < alpha)


def summary(rr: RoundRatios, alpha: float) -> PairedRatio:
    """The ratios at the process level when MIN_PROCESSES or more processes
    ran them (process_paired: a t interval over the processes' medians),
    else the rounds' sign test, with the rounds' lag-1 autocorrelation."""
    groups = by_process(rr.keys, rr.ratios)
    if len(groups) >= MIN_PROCESSES:
        return process_paired(rr.keys, rr.ratios, alpha)
    return dataclasses.replace(paired(rr.ratios, alpha),
                               lag1=lag1(list(groups.values())),
                               processes=len(groups))


def test_text(x: PairedRatio) -> str:
    """How x's interval and p were made, for a verdict."""
    if x.method == "process":
        return "t test over %d processes p %s" % (x.processes, fmt_p(x.p))
    return "sign test p %s" % fmt_p(x.p)


def dependence_text(x: PairedRatio, sweep_lag1: Optional[float] = None) -> str:
    """How dependent x's rounds were: its processes and their ratios, the
    between-process share of the variance, the rounds' lag-1
    autocorrelation (and the sweep's, when given)."""
    def r(v: Optional[float]) -> str:
        return "n/a" if v is None else "%.2f" % v
    if x.method == "process":
        text = "Processes: %d (the interval is a t interval over their " \
            "medians: %s); between-process share of the variance %s" % (
                x.processes, ", ".join("%.2fx" % v for v in x.per_process),
                "n/a" if x.between_share is None else
                "%.0f%%" % (100 * x.between_share))
    else:
        text = "Processes: %d (the interval is the rounds' sign test, " \
            "which does not carry the spread between processes)" % \
            x.processes
    text += "; lag-1 autocorrelation of the rounds' log ratios %s" % r(
        x.lag1)
    if sweep_lag1 is not None:
        text += " (the sweep's rounds: %s)" % r(sweep_lag1)
    return text + "."


def answer(a: str, b: str, x: PairedRatio, margin: float, state: str) -> str:
    """One state's answer: 'in the near state, a ahead of b by 8.0-20.0%
    (1.13x [1.08, 1.20], 9 rounds)'; 'no interval' under MIN_ROUNDS."""
    if x.lo is None or x.hi is None:
        return "in the %s state, no interval (median %.2fx, %d rounds)" % (
            state, x.ratio, x.n)
    return "in the %s state, %s (%s, %d rounds)" % (
        state, x.words(a, b, margin), fmt_interval(x), x.n)


def _stats_dict(out: PairedStats, x: PairedRatio, margin: float
                ) -> PairedStats:
    """out (the pair's or the group's names) with x's statistics and its
    standing at the margin."""
    out.update(x.as_dict())
    out["standing"] = x.standing(margin).value
    return out


def _confirmed(fr: sweeps.FamilyResults, groups: list[records.Group],
               metric: str,
               w: str, r: str) -> Optional[sweeps.FamilyResults]:
    """fr's confirmation file when it ran w and r in every group for at
    least MIN_ROUNDS paired rounds, else None."""
    conf = fr.confirm
    if conf is None or any(g not in conf.cells for g in groups):
        return None
    rr = round_ratios(conf, groups, w, r, metric, True)
    if len(rr.keys) < MIN_ROUNDS and \
            len({k[0] for k in rr.keys}) < MIN_PROCESSES:
        return None
    return conf


def decide_paired(fr: sweeps.FamilyResults, groups: list[records.Group],
                  metric: str,
                  higher: bool, w: str, r: str, baseline: Optional[str],
                  complete: list[str], alpha: float, margin: float,
                  threshold: Optional[float] = None) -> ClassPick:
    """The class's verdict from paired rounds between the leader `w` and
    the runner-up `r` (picking.decide()'s keys, and paired, baseline_paired,
    group_paired, host_note, paired_notes, confirmed, selection_paired).
    The file's rounds choose the pair; the confirmation rounds (fr.confirm,
    a fresh process) give its margins when they ran it, else the choosing
    rounds do and the verdict says "unconfirmed". `threshold`: the drift
    threshold that makes two floors two host states (the file's unless
    given)."""
    if threshold is None:
        threshold = fr.floor_summary().threshold
    st = summary(round_ratios(fr, groups, w, r, metric, higher), alpha)
    out = ClassPick(host_note=None, paired_notes=[])
    if st.n >= MIN_ROUNDS and st.ratio < 1:
        # The paired median, not the pooled score, orders the pair: a tie
        # then reads "X 1.04x [0.97, 1.12] over Y", never 0.96x.
        out["paired_notes"].append(
            "the paired rounds put %s ahead of %s, which leads on the class "
            "score" % (r, w))
        w, r = r, w
        st = summary(round_ratios(fr, groups, w, r, metric, higher), alpha)
    out["selection_paired"] = _stats_dict(PairedStats(a=w, b=r), st, margin)
    conf = _confirmed(fr, groups, metric, w, r)
    out["confirmed"] = conf is not None
    src = conf or fr
    if conf is None:
        out["confirm_note"] = fr.confirm_note
        out["paired_notes"].append(
            "unconfirmed: no confirmation rounds of %s and %s in a fresh "
            "process%s, so the margins come from the rounds that chose them "
            "(biased up: the winner's curse)" % (
                w, r, " (%s)" % fr.confirm_note if fr.confirm_note else ""))
    rr = round_ratios(src, groups, w, r, metric, higher)
    st = summary(rr, alpha)
    if conf is not None and st.method != "process":
        out["paired_notes"].append(
            "the confirmation ran in %d process%s, so its interval does "
            "not carry the spread between processes (%d are needed)" % (
                st.processes, "" if st.processes == 1 else "es",
                MIN_PROCESSES))
    lead = _stats_dict(PairedStats(a=w, b=r), st, margin)
    lead["states"] = None
    out.update(ClassPick(winner=w, runner_up=r, p_max=st.p, paired=lead))
    out["group_paired"] = [
        _stats_dict(PairedStats(group=records.group_name(fr.family, g[0],
                                                         g[1])),
                    summary(round_ratios(src, [g], w, r, metric, higher),
                            alpha), margin)
        for g in groups]
    out["baseline_paired"] = None
    if baseline and baseline != w and baseline in complete:
        out["baseline_paired"] = _stats_dict(
            PairedStats(a=w, b=baseline), summary(round_ratios(
                src, groups, w, baseline, metric, higher), alpha),
            margin)
    where = "confirmation rounds" if conf else "rounds, unconfirmed"
    if st.lo is None or st.hi is None:
        out.update(ClassPick(noise="unknown", verdict=(
            "noise unknown: %d paired round%s of %s and %s; %d are needed "
            "for an interval" % (st.n, "" if st.n == 1 else "s", w, r,
                                 MIN_ROUNDS))))
        return out
    ahead = st.standing(margin).points() > 0
    out.update(ClassPick(
        noise="above" if ahead else "within",
        verdict="%s: %s, %d %s, %s" % (
            st.words(w, r, margin), fmt_interval(st), st.n, where,
            test_text(st))))
    if st.standing(margin) == Standing.NOT_TOLD_APART:
        need = processes_for_equivalence(st, margin)
        out["paired_notes"].append(
            "equivalence within ±%g%% would need %s (at these processes' "
            "spread and a true 1.00x)" % (
                100 * margin, "more than 64 processes" if need is None else
                "%d processes of %d rounds" % (need, st.n // st.processes))
            if st.method == "process" else
            "equivalence would need a confirmation in %d or more "
            "processes" % MIN_PROCESSES)
    if st.disagree():
        # A process-level effect points the pair different ways: the
        # interval may clear 1 on the others, but nothing is adopted.
        out["paired_notes"].append(st.disagreement(w, r))
        if ahead:
            out.update(ClassPick(noise="disagree", winner=None, verdict=(
                "%s; %s" % (st.disagreement(w, r), out["verdict"]))))
            return out
    hs = host_states(rr, threshold, alpha)
    if hs is None:
        return out
    out["paired"]["states"] = hs.as_dict()
    test = "U-test p %s, %d and %d rounds" % (fmt_p(hs.p), hs.near.n,
                                              hs.far.n)
    if not hs.differ:
        out["host_note"] = ("%s; no evidence that the states differ (%s)" % (
            hs.describe(), test))
        return out
    near = answer(w, r, hs.near, margin, "near")
    far = answer(w, r, hs.far, margin, "far")
    if not conflict(hs.near.standing(margin), hs.far.standing(margin)):
        out["host_note"] = (
            "%s; the paired ratio differs between the states (%s), but "
            "their answers do not point different ways: %s; %s" % (
                hs.describe(), test, near, far))
        return out
    out.update(ClassPick(noise="split", winner=None,
                         verdict="%s; %s" % (near, far)))
    out["host_note"] = "%s; the states' answers point different ways " \
        "(%s)" % (hs.describe(), test)
    return out


def over_baseline(res: ClassPick) -> bool:
    """The leader shown ahead of the baseline on the rounds that give the
    margins (the baseline itself, or no baseline, needs nothing)."""
    lead, base = res.get("winner"), res.get("baseline")
    if not base or lead == base:
        return True
    if not res.get("paired"):  # a file without rounds: the scores alone
        m = res.get("margin_over_baseline")
        return m is not None and m > 1
    bp = res.get("baseline_paired")
    return bp is not None and bp.get("a") == lead and \
        Standing(bp.get("standing", "unknown")).points() > 0


def paired_rule(alpha: float, margin: float) -> str:
    """The rule for a file of paired rounds, in words."""
    return ("paired rounds: the leader is adopted when the %.0f%% interval "
            "of its ratio over the runner-up and over the baseline, from "
            "confirmation rounds in %d or more fresh processes (a t interval "
            "over the processes' medians), lies above 1 (ahead) and no "
            "process puts the other ahead; the words say what the interval "
            "shows against the margin %g (ahead by more than it, ahead, "
            "equivalent within it from the %.0f%% interval (TOST), not told "
            "apart); without an interval unknown" % (
                100 * (1 - alpha), MIN_PROCESSES, margin,
                100 * (1 - 2 * alpha)))


def class_rounds(fr: sweeps.FamilyResults, scenarios: list[str]
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
    """The sweep's rounds, then the confirmation's: '18 (budget ended), 10
    confirming', '7', or '-' (no rounds)."""
    n = res.get("rounds")
    if n is None:
        return "-"
    conf = ", %d confirming" % res["paired"]["n"] if res.get("confirmed") \
        else ""
    return "%d%s%s" % (n, " (budget ended)" if res.get("budget_ended") else
                       "", conf)


_SPECIAL = set(".[]()*+?{}|^$\\")


def _escape(text: str) -> str:
    """text as a literal in a POSIX extended regular expression."""
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


def _impls(res: ClassPick) -> set[str]:
    """The class's leading pair (as its rounds chose it) and baseline."""
    out: set[str] = set()
    chosen = res.get("selection_paired") or res.get("paired")
    if chosen:
        out |= {chosen["a"], chosen["b"]}
    else:
        out |= {i for i in (res.get("winner"), res.get("runner_up")) if i}
    if res.get("baseline"):
        out.add(str(res["baseline"]))
    return out


def _alternatives(family: str, groups: list[str], impls: set[str]
                  ) -> list[str]:
    """One alternative per group name (family/scenario[/params]): the
    benchmark names family/scenario/IMPL[/params] for impls."""
    out = []
    which = "(%s)" % "|".join(_escape(i) for i in sorted(impls))
    for g in groups:
        parts = g.split("/")
        if len(parts) < 2 or parts[0] != family:
            continue
        rest = "/".join(parts[2:])
        out.append("%s/%s/%s%s" % (_escape(parts[0]), _escape(parts[1]),
                                   which, "/" + _escape(rest) if rest else ""))
    return out


def confirm_filter(picked: Picked, family: str) -> Optional[str]:
    """The filter that runs the family's confirmation (the header)."""
    fam = picked["families"].get(family)
    if not fam or fam.get("missing"):
        return None
    alts: list[str] = []
    for res in fam.get("classes", []):
        impls = _impls(res)
        if len(impls) >= 2 and res.get("groups"):
            alts += _alternatives(family, res["groups"], impls)
    for entry in picked["reactor"].values():
        impls = {i for i in (entry.get("leader"), entry.get("runner_up"),
                             entry.get("baseline")) if i}
        if len(impls) >= 2 and entry.get("groups"):
            alts += _alternatives(family, entry["groups"], impls)
    alts = sorted(set(alts))
    return "^(%s)$" % "|".join(alts) if alts else None


def confirm_flags(picked: Picked, family: str) -> str:
    """The confirmation's processes, then its sweep flags (the header):
    '4 --min_rounds=3 --max_rounds=3 --benchmark_filter=...'; "" when
    none. The smoke profile runs one process of one round."""
    flt = confirm_filter(picked, family)
    if flt is None:
        return ""
    fam = picked["families"][family]
    smoke = fam.get("profile") == "smoke"
    procs, n = (1, 1) if smoke else (CONFIRM_PROCESSES, CONFIRM_ROUNDS)
    # The file names the sweep run it confirms (sweeps.run_identity), so
    # that pick matches the two by content, not by file times.
    ident = sweeps.run_identity(fam["file"]) if fam.get("file") else ""
    return "%d --min_rounds=%d --max_rounds=%d%s --benchmark_filter=%s" % (
        procs, n, n, " --benchmark_context=%s=%s" % (sweeps.CONFIRMS, ident)
        if ident else "", flt)
