# -----------------------------------------------------------------------------
# pick/decide/winners.py
# -----------------------------------------------------------------------------
#
# Everything pick decides, gathered (pick_all()), and results/winners.json:
# per family its floor, drift and classes, and the reactor policy the
# ping-pong validation runs (the "reactor" object, read by
# validation/run.py).
#
# The reactor policy (pick_reactor()): the task queue is the event-loop
# class's winner (the eventloop scenario, coalesced wake-ups, the largest
# producer count that fits the cores or the one --producers names, among the
# multi-producer queues); the buffer the stream class's; the logger the
# latency-bound class's among the loggers the server accepts ("server":
# true). Without its family's file (or the file's rule) a component has no
# entry and the validation uses its own default. A component is adopted only
# when its class's leader is ahead of the runner-up (noise "above": in a
# file of paired rounds, the interval from the confirmation rounds lies
# above 1; decide/paired_rounds.py) and of the baseline it replaces; an
# unconfirmed
# leader, a tie, a split by host state,
# an unknown noise or a drifted family (files without rounds) keeps the
# baseline, and the entry's note says why.
# The thread pool is the hand-off latency class's winner at 1 submitter,
# the HTTP server's one I/O thread (_pick_pool).

from __future__ import annotations

import dataclasses
import datetime
import math
import os
from typing import Any, Optional, Sequence

from pick.read import sweeps
from pick.decide.ranking import (candidates_for,
                                 class_groups,
                                 class_rule,
                                 decide,
                                 family_baselines,
                                 nearest,
                                 pick_class,
                                 pick_family,
                                 rank_groups)
from pick.records import ClassPick, FamilyPick, Picked, ReactorEntry
from pick.records import PingpongDoc
from pick.decide.workloads import Workload, class_of, server_logger
from pick.decide.paired_rounds import over_baseline, paired_rule
from pick.decide.stats import MIN_MARGIN, drift, drift_veto, noise_rule
from pick.read.validation_rows import validation_summary
from pick import records

# pick_all()'s result: families {family: {missing, profile, file, cores,
# baselines, floor, drifted, drift_reason, drift_verdict, classes}},
# reactor, reactor_missing, alpha, min_margin.
# pick_all()'s result: shapes.Picked.


def finite(x: Any) -> Optional[float]:
    """x rounded for JSON; None for None, NaN, infinities and non-numbers."""
    if x is None:
        return None
    try:
        return None if math.isnan(x) or math.isinf(x) else round(float(x), 4)
    except TypeError:
        return None


def json_safe(x: Any) -> Any:
    """x with every float rounded for JSON (NaN and infinities: None)."""
    if isinstance(x, float):
        return finite(x)
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x


def _compact_groups(family: str, groups: list[records.Group]) -> str:
    """'buffer/{burger/kept_pct:5|95, fd_echo/bytes:64|1024}'"""
    by: dict[str, dict[str, list[Any]]] = {}
    for s, params in groups:
        for k, v in params:
            by.setdefault(s, {}).setdefault(k, [])
            if v not in by[s][k]:
                by[s][k].append(v)
        by.setdefault(s, {})
    parts = []
    for s in sorted(by):
        ps = "/".join("%s:%s" % (k, "|".join(str(v) for v in vs))
                      for k, vs in by[s].items())
        parts.append(s + ("/" + ps if ps else ""))
    if len(parts) == 1:
        return "%s/%s" % (family, parts[0])
    return "%s/{%s}" % (family, ", ".join(parts))


def _reactor_entry(baseline: Optional[str], note: Optional[str]
                   ) -> ReactorEntry:
    return ReactorEntry(winner=baseline, baseline=baseline,
                        micro_ratio=None, source=None, cv=None,
                        measured=False, note=note)


def _kept_why(res: ClassPick) -> str:
    """Why a class's leader was not adopted, for the entry's note."""
    lead = res["winner"] or (res.get("paired") or {}).get("a")
    if lead is None:
        return str(res.get("verdict") or "no leader")
    if res.get("noise") == "above" and not res.get("confirmed", True):
        return "%s leads, unconfirmed: no confirmation rounds (%s)" % (
            lead, res.get("verdict"))
    if res.get("noise") == "above" and not over_baseline(res):
        return "%s leads the runner-up, not shown better than the " \
            "baseline (%s)" % (lead, res.get("verdict"))
    return "%s leads, not ahead (%s: %s)" % (
        lead, res.get("noise"), res.get("verdict"))


def _entry_from_class(res: ClassPick, groups: list[records.Group],
                      scores: Optional[dict[str, float]] = None
                      ) -> ReactorEntry:
    """One reactor entry from its class's decision; `scores`: the class
    scores (else the ranking's)."""
    # Paired rounds: adopted on the confirmation rounds' intervals, over
    # the runner-up and over the baseline it would replace.
    adopted = res["winner"] is not None and res.get("noise") == "above" and \
        res.get("confirmed", True) and over_baseline(res)
    base = res["baseline"]
    e = ReactorEntry(
        winner=res["winner"] if adopted else (base or res["winner"]),
        baseline=base,
        micro_ratio=finite(res.get("margin_over_baseline")),
        source=_compact_groups(res["family"], groups),
        cv=finite(res.get("cv")), adopted=adopted,
        leader=res["winner"] or (res.get("paired") or {}).get("a"),
        metric=res["metric"], higher_is_better=res["higher"],
        runner_up=res.get("runner_up"),
        margin_over_runner_up=finite(res.get("margin_over_runner_up")),
        noise=res.get("noise"), verdict=res.get("verdict"),
        repetitions=res.get("repetitions"), rounds=res.get("rounds"),
        budget_ended=res.get("budget_ended"), groups=res["groups"])
    e["measured"] = e["leader"] is not None
    bp = res.get("baseline_paired")
    if adopted and bp and bp.get("lo") is not None:
        # The margin over the baseline with its own interval.
        e["micro_paired"] = dict(ratio=finite(bp["ratio"]),
                                 lo=finite(bp["lo"]), hi=finite(bp["hi"]),
                                 n=bp["n"])
    if not adopted:
        e["note"] = "kept the baseline %s: %s" % (base, _kept_why(res))
    if e["winner"] == base:
        e["micro_ratio"] = 1.0
    if scores is None:
        scores = {r["impl"]: r["score"] for r in res.get("ranking", [])}
    e["micro_ratios"] = micro_ratios(scores, res["baseline"])
    confirmed = finite(bp["ratio"]) if res.get("confirmed") and bp and \
        bp.get("lo") is not None else None
    if bp and confirmed is not None:
        # The leader over the baseline as the confirmation measured it,
        # not as the rounds that chose the leader did.
        e["micro_ratios"][bp["a"]] = confirmed
        if adopted:
            e["micro_ratio"] = confirmed
    return e


def micro_ratios(scores: dict[str, float], baseline: Optional[str]
                 ) -> dict[str, float]:
    """Every ranked implementation's score over the baseline's (> 1:
    better), for the validation's positive controls; {} without a scored
    baseline."""
    base = scores.get(baseline or "")
    if not base or not math.isfinite(base):
        return {}
    return {impl: round(sc / base, 4) for impl, sc in scores.items()
            if sc is not None and math.isfinite(sc)}


def pick_reactor(loaded: dict[str, sweeps.FamilyResults], workload: Workload,
                 alpha: float, min_margin: float = MIN_MARGIN,
                 drift_threshold: Optional[float] = None
                 ) -> tuple[dict[str, ReactorEntry], dict[str, str]]:
    """The reactor's policy: task queue, buffer, logger (winners.json's
    "reactor" object, read by the ping-pong validation). Returns (entries,
    {component: why it has no entry}): without its family's file (or the
    file's rule) a component has no entry, and the validation uses its own
    default for it. A drifted family's component keeps its baseline."""
    out: dict[str, ReactorEntry] = {}
    missing: dict[str, str] = {}
    # Task queue: the eventloop scenario, coalesced wake-ups (the reactor's
    # default), the largest producer count that fits the cores (or the one
    # --producers names), among the multi-producer queues.
    fr = loaded.get("queues")
    cdef = class_of("queues", "event loop")
    rule = class_rule(fr, cdef) if fr else None
    if fr is None:
        missing["task_queue"] = "queues.json missing"
    elif rule is None:
        missing["task_queue"] = "%s has no eventloop ranking rule" % (
            os.path.basename(fr.path))
    else:
        veto = drift_veto(fr, drift_threshold)
        groups = class_groups(fr, cdef, Workload(), [])
        present: set[Any] = {dict(p).get("producers") for _, p in groups}
        prods = sorted(present)
        if veto:
            out["task_queue"] = _reactor_entry(rule.baseline, veto["verdict"])
        elif not prods:
            out["task_queue"] = _reactor_entry(
                rule.baseline, "no queues/eventloop coalesce:1 runs")
        else:
            cores = fr.cores() or 2
            if workload.producers is not None:
                want = nearest(prods, workload.producers)
            else:
                fit = [p for p in prods if p <= cores]
                want = max(fit) if fit else min(prods)
            groups = [g for g in groups if dict(g[1]).get("producers") == want]
            ranking, cands, scores, _ = rank_groups(
                fr, groups, rule.metric, rule.higher,
                candidates_for(fr, cdef))
            res = ClassPick(family="queues", metric=rule.metric,
                            higher=rule.higher,
                            groups=[records.group_name("queues", s, p)
                                    for s, p in groups])
            res.update(decide(fr, groups, rule.metric, rule.higher,
                              rule.baseline, cands, scores, alpha,
                              min_margin, drift_threshold))
            e = _entry_from_class(res, groups, scores)
            e["source"] = res["groups"][0]
            out["task_queue"] = e
    # Buffer: the stream class. Logger: the latency-bound class, among the
    # loggers the server accepts.
    for comp, family, key in (("buffer", "buffer", "stream"),
                              ("logger", "logger", "latency-bound")):
        fr = loaded.get(family)
        cdef = class_of(family, key)
        rule = class_rule(fr, cdef) if fr else None
        if fr is None:
            missing[comp] = "%s.json missing" % family
            continue
        if rule is None:
            missing[comp] = "%s has no ranking rule for %s" % (
                os.path.basename(fr.path), "/".join(cdef.scenarios))
            continue
        veto = drift_veto(fr, drift_threshold)
        if veto:
            out[comp] = _reactor_entry(rule.baseline, veto["verdict"])
            continue
        allowed = None
        if comp == "logger":
            allowed = {i for i in fr.impls() if server_logger(fr.traits(i))}
        res = pick_class(fr, cdef, workload, alpha, min_margin,
                         allowed=allowed, drift_threshold=drift_threshold)
        out[comp] = _entry_from_class(res, res["group_keys"])
    _pick_pool(loaded, workload, alpha, min_margin, drift_threshold, out,
               missing)
    return out, missing


def _pick_pool(loaded: dict[str, sweeps.FamilyResults], workload: Workload,
               alpha: float, min_margin: float,
               drift_threshold: Optional[float],
               out: dict[str, ReactorEntry], missing: dict[str, str]
               ) -> None:
    """The thread pool ("thread_pool"): the hand-off latency class's pick
    at 1 submitter (the HTTP server's one I/O thread hands each request's
    work to the pool), or the submitters --producers names."""
    fr = loaded.get("threadpool")
    cdef = class_of("threadpool", "hand-off latency")
    rule = class_rule(fr, cdef) if fr else None
    if fr is None or rule is None:
        missing["thread_pool"] = "threadpool.json missing" if fr is None \
            else "%s has no ranking rule for latency" % (
                os.path.basename(fr.path))
        return
    veto = drift_veto(fr, drift_threshold)
    if veto:
        out["thread_pool"] = _reactor_entry(rule.baseline, veto["verdict"])
        return
    if workload.producers is None:
        workload = dataclasses.replace(workload, producers=1)
    res = pick_class(fr, cdef, workload, alpha, min_margin,
                     drift_threshold=drift_threshold)
    out["thread_pool"] = _entry_from_class(res, res["group_keys"]) \
        if res["group_keys"] else _reactor_entry(
            rule.baseline, "no threadpool/latency runs")


def pick_all(loaded: dict[str, sweeps.FamilyResults], workload: Workload,
             alpha: float = 0.05, min_margin: float = MIN_MARGIN,
             drift_threshold: Optional[float] = None) -> Picked:
    """Everything winners.json and the report need. `drift_threshold`
    replaces every file's (--drift-threshold). Raises
    results.VocabularyError when a file's rules contradict a class."""
    families: dict[str, FamilyPick] = {}
    for family in records.FAMILIES:
        fr = loaded.get(family)
        if fr is None:
            families[family] = FamilyPick(missing=True, classes=[])
        else:
            fl = fr.floor_summary()
            dr = drift(fl, drift_threshold)
            families[family] = FamilyPick(
                missing=False, profile=fr.profile(), file=fr.path,
                cores=fr.cores(), baselines=family_baselines(fr), floor=fl,
                drifted=dr["drifted"], drift_reason=dr["reason"],
                drift_verdict=dr["verdict"], rounds=fr.rounds(),
                classes=pick_family(fr, workload, alpha, min_margin,
                                    drift_threshold))
    reactor, reactor_missing = pick_reactor(loaded, workload, alpha,
                                            min_margin, drift_threshold)
    return Picked(families=families, reactor=reactor,
                  reactor_missing=reactor_missing, alpha=alpha,
                  min_margin=min_margin)


def floor_json(fl: records.FloorSummary) -> dict[str, Any]:
    out = {}
    for k, v in fl.as_dict().items():
        out[k] = finite(v) if isinstance(v, float) else v
    return out


def winners_json(picked: Picked, workload: Workload, results_dir: str,
                 loaded: dict[str, sweeps.FamilyResults],
                 pingpong: Optional[PingpongDoc],
                 server: Sequence[Any] = ()) -> dict[str, Any]:
    """results/winners.json's document; `server`: the answers per component
    and workload (server_answer.Answer), written under "server"."""
    fams: dict[str, Any] = {}
    for family, fam in picked["families"].items():
        if fam["missing"]:
            fams[family] = dict(missing=True)
            continue
        classes = {}
        for res in fam["classes"]:
            classes[res["cls"]] = dict(
                winner=res.get("winner"), runner_up=res.get("runner_up"),
                baseline=res.get("baseline"),
                margin_over_runner_up=finite(res.get("margin_over_runner_up")),
                margin_over_baseline=finite(res.get("margin_over_baseline")),
                noise=res.get("noise"), verdict=res.get("verdict"),
                p_max=finite(res.get("p_max")), cv=finite(res.get("cv")),
                repetitions=res.get("repetitions"), metric=res["metric"],
                higher_is_better=res["higher"], unit=res["unit"],
                groups=res["groups"], notes=res["notes"],
                ranking=[dict(impl=r["impl"], score=finite(r["score"]))
                         for r in res.get("ranking", [])])
            if "rounds" in res:  # a sweep in paired rounds
                classes[res["cls"]].update(json_safe(dict(
                    paired=res.get("paired"),
                    # The rounds that chose the pair: one process, 6 to
                    # 60 rounds, where the lag-1 autocorrelation is read.
                    selection_paired=res.get("selection_paired"),
                    baseline_paired=res.get("baseline_paired"),
                    rounds=res.get("rounds"),
                    budget_ended=res.get("budget_ended"),
                    rounds_stop=res.get("rounds_stop"))))
        fams[family] = dict(missing=False, profile=fam["profile"],
                            baselines=fam["baselines"],
                            floor=floor_json(fam["floor"]),
                            drifted=fam["drifted"],
                            drift_reason=fam["drift_reason"], classes=classes)
    summary, _ = validation_summary(pingpong)
    alpha = picked.get("alpha", 0.05)
    min_margin = picked.get("min_margin", MIN_MARGIN)
    return dict(
        generated=datetime.datetime.now().astimezone().isoformat(
            timespec="seconds"),
        results_dir=os.path.abspath(results_dir), workload=workload.as_dict(),
        noise_rule=noise_rule(alpha, min_margin) + (
            "; " + paired_rule(alpha, min_margin) if any(
                f.get("rounds") for f in picked["families"].values())
            else ""), alpha=alpha,
        min_margin=min_margin, families=fams, reactor=picked["reactor"],
        reactor_missing=picked.get("reactor_missing", {}),
        validation=summary, server=[a.as_json() for a in server])
