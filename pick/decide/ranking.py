# -----------------------------------------------------------------------------
# pick/decide/ranking.py
# -----------------------------------------------------------------------------
#
# Deciding one workload class of one family: which groups it ranks, by which
# rule, the ranking, the winner, its margins and the noise verdict.
#
# Workload classes and how a winner is found:
#   A class (spec.ClassDef) is a set of benchmark groups (a group: one
#   scenario with one set of parameters, e.g.
#   queues/throughput/producers:2/consumers:1) ranked by one metric. In every
#   group each implementation's median is divided by the group's best; an
#   implementation's class score is the geometric mean of those ratios over
#   the class's groups, so every group weighs the same. Only implementations
#   that ran clean in every group of the class are ranked (the others are
#   listed in the details). Margins are ratios of scores, oriented so that
#   > 1 means "better" (for latency: baseline / winner). Whether the margin
#   is larger than the noise is stats.noise()'s call, group by group.
#
# The rule comes from the file (class_rule()): each sweep writes its ranking
# rules per scenario into the file's context (read/sweeps.py); a class whose
# scenarios disagree on metric or direction is an error (VocabularyError,
# exit 2).
#
# A file from a sweep in paired rounds (context.serverkit.rounds) is decided
# from the per-round ratios of the leader over the runner-up
# (rounds.decide_paired()): a median with its interval, host states checked,
# no drift veto. A file without rounds is decided as before: the U-test per
# group (stats.noise()), and a drifted family's classes name no winner
# ("host drifted: rerun", stats.drift()).
#
# A class's decision is a dict (pick_class()); decide/winners.py gathers them
# into
# winners.json and the reactor policy, report/document.py into REPORT.md.

from __future__ import annotations

import dataclasses
import math
import os
import statistics
from typing import Any, Iterable, Optional, cast

from pick.read import sweeps
from pick.decide.workloads import FAMILY_SPECS, ClassDef, Workload
from pick.decide.paired_rounds import class_rounds, decide_paired
from pick.records import ClassPick, Ranked
from pick.decide.stats import (MIN_MARGIN,
                               Drift,
                               better_ratio,
                               drift_veto,
                               geomean,
                               noise)
from pick.records import Noise
from pick import records

# One class's decision: shapes.ClassPick, whose keys pick_class() fills
# (and, from paired rounds, decide/paired_rounds.py).


@dataclasses.dataclass(frozen=True)
class ClassRule:
    """How a class is ranked: the file's rules for its scenarios, joined."""

    metric: str
    higher: bool
    unit: str
    baseline: Optional[str]
    show: list[str]
    vs_floor: bool
    scenarios: list[str]


def nearest(values: Iterable[Any], want: float) -> Any:
    """The value nearest `want` (on a log scale for positive numbers)."""
    def dist(v: Any) -> float:
        if isinstance(v, (int, float)) and v > 0 and want > 0:
            return abs(math.log(v / want))
        try:
            return float(abs(v - want))
        except TypeError:
            return math.inf
    return min(values, key=lambda v: (dist(v), v))


def class_rule(fr: sweeps.FamilyResults,
               cdef: ClassDef) -> Optional[ClassRule]:
    """The file's ranking rule for a class, from the rules of its scenarios
    (reference rules, the floor's, left out); None when the file has none.
    Raises results.VocabularyError when the scenarios disagree on metric or
    direction. Unit and baseline: the first scenario's that has one; show:
    the union, in order."""
    rules = [fr.rule(s) for s in cdef.scenarios]
    have = [r for r in rules if r is not None and not r.reference]
    if not have:
        return None
    first = have[0]
    for r in have[1:]:
        if (r.metric, r.higher) != (first.metric, first.higher):
            raise records.VocabularyError(
                "%s: workload class %s/%s spans scenarios ranked differently "
                "(%s: %s, %s is better; %s: %s, %s is better); the sweep's "
                "rankings must agree within a class" % (
                    fr.path, fr.family, cdef.key, first.scenario,
                    first.metric, first.direction, r.scenario,
                    r.metric, r.direction))
    show: list[str] = []
    for r in have:
        show += [c for c in r.show if c not in show]
    return ClassRule(metric=first.metric, higher=first.higher,
                     unit=next((r.unit for r in have if r.unit), ""),
                     baseline=next((r.baseline for r in have if r.baseline),
                                   None),
                     show=show, vs_floor=any(r.vs_floor for r in have),
                     scenarios=[r.scenario for r in have])


def class_groups(fr: sweeps.FamilyResults, cdef: ClassDef, workload: Workload,
                 notes: list[str]) -> list[records.Group]:
    """The class's groups: its scenarios that have a (non-reference) rule in
    the file, filtered by `where`, narrowed to the workload."""
    ranked = []
    for s in cdef.scenarios:
        r = fr.rule(s)
        if r is not None and not r.reference:
            ranked.append(s)
        elif r is None and fr.groups(s):
            notes.append("%s has no ranking rule for %s/%s: its groups are "
                         "left out" % (os.path.basename(fr.path), fr.family,
                                       s))
    groups = [g for g in fr.groups() if g[0] in ranked and
              cdef.where(dict(g[1]))]
    for pname, attr in cdef.narrow.items():
        want = getattr(workload, attr)
        if want is None:
            continue
        present: dict[str, set[Any]] = {}
        for s, params in groups:
            d = dict(params)
            if pname in d:
                present.setdefault(s, set()).add(d[pname])
        chosen = {s: nearest(vals, want) for s, vals in present.items()}
        for s, v in sorted(chosen.items()):
            if v != want:
                notes.append("%s/%s: %s:%s not measured, nearest %s:%s" % (
                    fr.family, s, pname, want, pname, v))
        groups = [g for g in groups
                  if pname not in dict(g[1]) or
                  dict(g[1])[pname] == chosen[g[0]]]
    return groups


def candidates_for(fr: sweeps.FamilyResults, cdef: ClassDef) -> set[str]:
    """The implementations that may win the class: not a reference, and
    fitting it by their traits."""
    return {i for i in fr.impls() if not fr.is_reference(i) and
            cdef.fits(fr.traits(i))}


def rank_groups(fr: sweeps.FamilyResults, groups: list[records.Group],
                metric: str,
                higher: bool, allowed: Optional[set[str]] = None
                ) -> tuple[list[str], list[str], dict[str, float],
                           dict[str, str]]:
    """Scores (geomean of ratio to each group's best) of the implementations
    that ran clean in every group; the partial ones with the reason."""
    impls: set[str] = set()
    for g in groups:
        impls |= set(fr.cells[g])
    complete: list[str] = []
    partial: dict[str, str] = {}
    for impl in sorted(impls):
        missing = [g for g in groups if impl not in fr.cells[g]]
        errors = [g for g in groups if impl in fr.cells[g] and
                  (fr.cells[g][impl].error or
                   math.isnan(fr.cells[g][impl].median(metric)))]
        if missing or errors:
            partial[impl] = ("ran %d of %d groups" % (
                len(groups) - len(missing), len(groups)) if missing else
                "error or no %s in %d group(s)" % (metric, len(errors)))
        else:
            complete.append(impl)
    best = {}
    for g in groups:
        vals = [fr.cells[g][i].median(metric) for i in complete]
        vals = [v for v in vals if v > 0]
        if vals:
            best[g] = max(vals) if higher else min(vals)
    scores = {}
    for impl in complete:
        scores[impl] = geomean(
            [better_ratio(fr.cells[g][impl].median(metric), best[g], higher)
             for g in groups if g in best])
    ranking = sorted((i for i in complete if not math.isnan(scores[i])),
                     key=lambda i: -scores[i])
    candidates = [i for i in ranking if allowed is None or i in allowed]
    return ranking, candidates, scores, partial


def decide(fr: sweeps.FamilyResults, groups: list[records.Group], metric: str,
           higher: bool, baseline: Optional[str], candidates: list[str],
           scores: dict[str, float], alpha: float,
           min_margin: float = MIN_MARGIN,
           drift_threshold: Optional[float] = None) -> ClassPick:
    """Winner, runner-up, margins and the noise verdict over `groups`
    (from paired rounds when the file has them)."""
    out = ClassPick(
        winner=None, runner_up=None, margin_over_runner_up=None,
        baseline=baseline, margin_over_baseline=None, noise="n/a",
        verdict="", p_max=None, cv=None, repetitions=None, group_noise=[])
    if not candidates:
        out["verdict"] = "no implementation ran clean in every group"
        return out
    w = candidates[0]
    out["winner"] = w
    cvs = [c for c in (fr.cells[g][w].cv(metric) for g in groups)
           if c is not None]
    out["cv"] = statistics.median(cvs) if cvs else None
    out["repetitions"] = min(fr.cells[g][w].repetitions(metric)
                             for g in groups)
    if baseline in scores:
        out["margin_over_baseline"] = scores[w] / scores[baseline]
    if len(candidates) == 1:
        out["noise"] = "n/a"
        out["verdict"] = "only one implementation measured"
        return out
    r = candidates[1]
    out["runner_up"] = r
    out["margin_over_runner_up"] = scores[w] / scores[r]
    if fr.rounds() is not None:
        out.update(decide_paired(fr, groups, metric, higher, w, r, baseline,
                                 list(scores), alpha, min_margin,
                                 drift_threshold))
        lead = out["paired"]["a"]
        if lead != w:  # the paired rounds swapped the two
            out["margin_over_runner_up"] = scores[lead] / scores[w]
            out["margin_over_baseline"] = (scores[lead] / scores[baseline]
                                           if baseline in scores else None)
        return out
    per: list[Noise] = []
    for g in groups:
        n = noise(fr.cells[g][w], fr.cells[g][r], metric, higher, alpha,
                  min_margin)
        n["group"] = records.group_name(fr.family, g[0], g[1])
        per.append(n)
    out["group_noise"] = per
    assessed = [n for n in per if n["state"] != "unknown"]
    above = [n for n in assessed if n["state"] == "above"]
    ps = [n["p"] for n in assessed if n["p"] is not None]
    out["p_max"] = max(ps) if ps else None
    if not assessed:
        out["noise"] = "unknown"
        out["verdict"] = ("noise unknown: 1 repetition (smoke profile); run "
                          "the default profile for a verdict")
    elif len(above) == len(assessed):
        out["noise"] = "above"
        out["verdict"] = "larger than the noise in %s" % (
            "its group" if len(assessed) == 1 else
            "all %d groups" % len(assessed))
    elif not above:
        out["noise"] = "within"
        out["verdict"] = "within the noise: a tie with %s" % r
        split = [n for n in assessed if n.get("split")]
        if split:
            out["verdict"] += " (the processes disagree in %d of %d " \
                "group(s))" % (len(split), len(assessed))
    else:
        out["noise"] = "mixed"
        out["verdict"] = "larger than the noise in %d of %d groups" % (
            len(above), len(assessed))
    return out


def _drifted(res: ClassPick, dr: Drift) -> ClassPick:
    """A drifted family's class: no winner, the drift verdict."""
    # A drifted family's Drift has its verdict (stats.drift()).
    res.update(ClassPick(
        winner=None, runner_up=None, margin_over_runner_up=None,
        margin_over_baseline=None, noise="drifted",
        verdict=cast(str, dr["verdict"]), drift_reason=dr["reason"],
        p_max=None, cv=None, group_noise=[]))
    return res


def pick_class(fr: sweeps.FamilyResults, cdef: ClassDef, workload: Workload,
               alpha: float, min_margin: float = MIN_MARGIN,
               allowed: Optional[set[str]] = None,
               drifted: Optional[Drift] = None,
               drift_threshold: Optional[float] = None) -> ClassPick:
    """One class of one family, ranked by the file's rule. `allowed`
    narrows the candidates further (the reactor's logger); `drifted`, the
    family's stats.drift_veto(), withholds the winner; `drift_threshold`
    replaces the file's where paired rounds split host states."""
    notes: list[str] = []
    rule = class_rule(fr, cdef)
    groups = class_groups(fr, cdef, workload, notes) if rule else []
    res = ClassPick(
        family=fr.family, cls=cdef.key, title=cdef.title,
        metric=rule.metric if rule else None,
        unit=rule.unit if rule else None,
        higher=rule.higher if rule else None, latency=cdef.latency,
        show=list(rule.show) if rule else [],
        vs_floor=bool(rule and rule.vs_floor),
        scenarios=list(cdef.scenarios),
        baseline=rule.baseline if rule else None,
        groups=[records.group_name(fr.family, s, p) for s, p in groups],
        group_keys=groups, notes=notes, oversubscribed=any(
            c.oversubscribed for g in groups for c in fr.cells[g].values()))
    if fr.rounds() is not None:
        res.update(class_rounds(fr, list(cdef.scenarios)))
    if rule is None:
        res.update(ClassPick(
            winner=None, verdict="not ranked: %s has no ranking rule for "
            "%s" % (os.path.basename(fr.path), "/".join(cdef.scenarios)),
            noise="n/a", ranking=[], partial={}))
        return res
    if not groups:
        res.update(ClassPick(
            winner=None, verdict="not measured (no %s runs in %s)" % (
                "/".join(cdef.scenarios), os.path.basename(fr.path)),
            noise="n/a", ranking=[], partial={}))
        return res
    cands = candidates_for(fr, cdef)
    if allowed is not None:
        cands &= set(allowed)
    cant = {i: workload.serves(fr.traits(i)) for i in sorted(cands)}
    cant = {i: why for i, why in cant.items() if why}
    if cant:
        cands -= set(cant)
        res["notes"].append("left out, cannot serve the workload (%s): %s" % (
            workload.describe(), ", ".join(
                "%s (%s)" % (i, why) for i, why in cant.items())))
    # Only a thread count some class of the family varies is a shape the
    # family could have measured (a buffer has no producers).
    spec = FAMILY_SPECS.get(fr.family)
    varied = {v for c in spec.classes for v in c.narrow.values()} \
        if spec else set()
    other = [o for o in workload.unmeasured(cdef.narrow)
             if o.split("=")[0] in varied]
    res["shape"] = other
    if other:
        res["notes"].append(
            "this class does not measure the workload's shape (%s): it "
            "ranks %s as its own runs measured them" % (
                ", ".join(other), "/".join(cdef.scenarios)))
    ranking, candidates, scores, partial = rank_groups(
        fr, groups, rule.metric, rule.higher, cands)
    res.update(decide(fr, groups, rule.metric, rule.higher, rule.baseline,
                      candidates, scores, alpha, min_margin, drift_threshold))
    res["notes"].extend(res.pop("paired_notes", []))
    host_note = res.get("host_note")
    if host_note:
        res["notes"].append(host_note)
    res["ranking"] = [Ranked(impl=i, score=scores[i],
                             candidate=i in candidates) for i in ranking]
    res["partial"] = partial
    excluded = [i for i in ranking[:1] if i not in candidates]
    if excluded:
        why = ("a reference, not a candidate" if fr.is_reference(excluded[0])
               else cdef.unfit if not cdef.fits(fr.traits(excluded[0]))
               else "%s, cannot serve the workload" % cant[excluded[0]]
               if excluded[0] in cant else "not accepted by the server")
        res["notes"].append("%s ranks first but is not a candidate here "
                            "(%s)" % (excluded[0], why))
    if drifted:
        _drifted(res, drifted)
    return res


def pick_family(fr: sweeps.FamilyResults, workload: Workload, alpha: float,
                min_margin: float = MIN_MARGIN,
                drift_threshold: Optional[float] = None) -> list[ClassPick]:
    """The family's classes that fit the workload, each decided;
    `drift_threshold` replaces the file's (stats.drift(), and the host
    states of paired rounds). Paired rounds: no drift veto."""
    spec = FAMILY_SPECS[fr.family]
    veto = drift_veto(fr, drift_threshold)
    out = []
    has_latency = any(c.latency for c in spec.classes)
    for cdef in spec.classes:
        if not cdef.applies(workload):
            continue
        if workload.latency_bound and has_latency and not cdef.latency:
            continue
        out.append(pick_class(fr, cdef, workload, alpha, min_margin,
                              drifted=veto,
                              drift_threshold=drift_threshold))
    return out


def family_baselines(fr: sweeps.FamilyResults) -> list[str]:
    """The baselines the file's (non-reference) rules name, in order."""
    out: list[str] = []
    for r in fr.rules().values():
        if r.baseline and not r.reference and r.baseline not in out:
            out.append(r.baseline)
    return out
