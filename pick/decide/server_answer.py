# -----------------------------------------------------------------------------
# pick/decide/server_answer.py
# -----------------------------------------------------------------------------
#
# What to put in a server: one answer per component and server workload,
# decided by the strongest evidence there is for it (docs/methods.md,
# "What to put in your server"):
#   1. measured end to end: the validation's verdict at that workload
#      (refuted: keep the baseline; held: take the candidate; equivalent:
#      keep the baseline, the change buys nothing);
#   2. predicted: where the model's check at that workload is consistent,
#      the prediction's standing against the margin;
#   3. micro only: the reactor policy's micro pick, labelled as such.
# A candidate refuted end to end at a workload is never chosen for it.
#
#   answers(picked, rows, loadmap)   [Answer], one per component x workload
#                                    on which the component sits
#   reactor_veto(answers, comp)      the refutation that unadopts a reactor
#                                    entry's winner, or None
#
# Standard library and the layers below (margin, outcome, validation).

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from pick.records import Picked, ReactorEntry
from pick.margin import MARGIN, Standing, standing
from pick.outcome import Outcome
from pick.records import ValidationRow
from pick.read.validation_rows import outcome_of

COMPONENTS = (("task_queue", "task queue"), ("buffer", "buffer"),
              ("logger", "logger"), ("thread_pool", "thread pool"))
WORKLOADS = (("pingpong", "ping-pong (echo, header/body)"),
             ("chat", "chat broadcast"),
             ("http", "HTTP"),
             ("http-log", "HTTP with the access log"))
# Where each component sits on the hot path of our servers: the logger only
# where a line is written per message or request, the pool only on the
# HTTP server's /work route.
ON_PATH = {
    "task_queue": ("pingpong", "chat", "http"),
    "buffer": ("pingpong", "chat", "http", "http-log"),
    "logger": ("pingpong", "http-log"),
    "thread_pool": ("http",),
}
BASES = ("end to end", "predicted", "micro only")
# The server workload each component's load map runs, and its words.
MAP_WORKLOAD = {"thread_pool": ("http", "HTTP GET /work")}
MICRO_ONLY = "micro only: not validated in a server"


@dataclasses.dataclass(frozen=True)
class Answer:
    """The implementation to put in a server for one component and
    workload, the evidence's kind (one of BASES), and why in words."""

    component: str
    workload: str
    choice: Optional[str]
    basis: str
    why: str
    candidate: Optional[str] = None
    baseline: Optional[str] = None
    refuted: Optional[str] = None   # the refuted implementation, if any
    load: Optional[str] = None      # what the load map says
    # The micro pick left out because the load map predicts the baseline
    # ahead by more than the margin somewhere (harm not yet checked).
    harmful: Optional[str] = None

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def workload_of(row: ValidationRow) -> str:
    """The server workload a validation case ran: chat, HTTP (with the
    access log when the logger is what it compares), else ping-pong."""
    proto = row.protocol or ""
    if proto == "chat":
        return "chat"
    if proto == "http":
        return "http-log" if row.component == "logger" else "http"
    return "pingpong"


def candidate_of(entry: ReactorEntry) -> Optional[str]:
    """The implementation the validation runs against the baseline: the
    micro pick, else the leader the pick did not adopt."""
    w, b = entry.get("winner"), entry.get("baseline")
    if w and w != b:
        return w
    leader = entry.get("leader")
    return leader if leader and leader != b else None


def _case(row: ValidationRow) -> str:
    return row.case or "?"


def _interval(x: Any) -> str:
    if not isinstance(x, dict) or not isinstance(x.get("ratio", x.get("est")),
                                                 (int, float)):
        return "?"
    r = x.get("ratio", x.get("est"))
    lo, hi = x.get("low"), x.get("high")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
        return "%.3fx [%.3f, %.3f]" % (r, lo, hi)
    return "%.3fx" % r


def _measured(rows: list[ValidationRow], base: str
              ) -> Optional[tuple[str, str, Optional[str]]]:
    """(choice, why, refuted implementation) from the end-to-end verdicts;
    None when none of them measured a direction or an equivalence."""
    by = {o: [r for r in rows if outcome_of(r) is o] for o in Outcome}

    def also(r: ValidationRow) -> str:
        others = [_case(x) + " " + (x.outcome or "")
                  for x in rows if x is not r]
        return "; also " + ", ".join(others) if others else ""

    if by[Outcome.REFUTED]:
        r = by[Outcome.REFUTED][0]
        why = "%s refuted end to end (%s: %s, %s)%s" % (
            r.winner, _case(r), _interval(r.e2e), r.verdict or "", also(r))
        return base, why, str(r.winner)
    if by[Outcome.HELD]:
        r = by[Outcome.HELD][0]
        why = "held end to end (%s: %s, %s)%s" % (
            _case(r), _interval(r.e2e), r.verdict or "", also(r))
        return str(r.winner), why, None
    if by[Outcome.EQUIVALENT]:
        r = by[Outcome.EQUIVALENT][0]
        why = ("%s equivalent end to end (%s: %s): the change buys nothing, "
               "keep %s" % (r.winner, _case(r), _interval(r.e2e), base))
        return base, why, None
    return None


def _predicted(rows: list[ValidationRow], base: str, m: float
               ) -> Optional[tuple[str, str]]:
    """(choice, why) from a prediction whose check is consistent."""
    for r in rows:
        model = r.model
        if not isinstance(model, dict):
            continue
        check, pred = model.get("check"), model.get("predicted")
        if not (isinstance(check, dict) and isinstance(pred, dict)) or \
                check.get("outcome") != "consistent":
            continue
        s = standing(pred.get("low"), pred.get("high"), m)
        cand = str(r.winner)
        choice = cand if s is Standing.AHEAD_BEYOND else base
        gamma = check.get("gamma") or {}
        return choice, (
            "%s predicted %s over %s at %s, its check consistent (γ %s); "
            "measured %s: %s" % (
                cand, _interval(pred), base, _case(r), _interval(gamma),
                r.outcome,
                "ahead by more than the margin" if choice == cand else
                "not ahead by more than %.0f%%, keep %s" % (100 * m, base)))
    return None


def _micro(entry: ReactorEntry) -> tuple[Optional[str], str]:
    w = entry.get("winner")
    if entry.get("adopted") is False:
        # The note's first clause; its interval is in the table below.
        note = (entry.get("note") or "kept the baseline").split(" (")[0]
        return w, "%s; %s" % (MICRO_ONLY, note)
    ratio = entry.get("micro_ratio")
    return w, "%s: %s%s" % (
        MICRO_ONLY, w, " %.2fx %s in the micro sweep" % (
            ratio, entry.get("baseline")) if isinstance(ratio, float) else "")


def _sessions(p: dict[str, Any]) -> int:
    v = p.get("sessions")
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _points(comp_map: dict[str, Any]) -> list[dict[str, Any]]:
    """The load map's points that ran (an error point has no standing)."""
    return [p for p in comp_map.get("points") or []
            if isinstance(p, dict) and not p.get("error")]


def harm(comp_map: Any) -> Optional[tuple[int, int, int]]:
    """(the fewest sessions, points, of points) where the load map predicts
    the baseline ahead of the candidate by more than the margin; None
    where it predicts that nowhere."""
    if not isinstance(comp_map, dict):
        return None
    pts = _points(comp_map)
    bad = [_sessions(p) for p in pts if p.get("standing") == "behind-beyond"]
    return (min(bad), len(bad), len(pts)) if bad else None


def load_words(comp_map: Any, m: float, where_run: str = "echo"
               ) -> Optional[str]:
    """Where along the load map the choice matters, in words."""
    if not isinstance(comp_map, dict):
        return None
    pts = _points(comp_map)
    cand, base = comp_map.get("candidate"), comp_map.get("baseline")
    if not pts or not cand or not base:
        return None
    beyond = {"ahead-beyond": cand, "behind-beyond": base}
    wins = [(_sessions(p), beyond[str(p.get("standing"))])
            for p in pts if p.get("standing") in beyond]
    check = comp_map.get("check")
    tail = ""
    if isinstance(check, dict) and check.get("outcome"):
        tail = "; the map's check at %s sessions: %s" % (
            check.get("sessions"), check.get("outcome"))
    within = "within %.0f%%" % (100 * m)
    if not wins:
        return "load map (%s): %s at all %d points%s" % (
            where_run, within, len(pts), tail)
    better = sorted({w for _, w in wins})
    if len(better) > 1:
        return "load map (%s): %s ahead at some points, %s at others%s" % (
            where_run, better[0], better[1], tail)
    first = min(s for s, _ in wins)
    where = ("%s up to about %d sessions; from there, " % (within, first)
             if first > min(_sessions(p) for p in pts)
             else "from the lightest load, ")
    return ("load map (%s): %s%s predicted ahead by more than %.0f%% "
            "(%d of %d points)%s" % (where_run, where, better[0], 100 * m,
                                     len(wins), len(pts), tail))


def answers(picked: Picked, rows: list[ValidationRow],
            loadmap: Any = None) -> list[Answer]:
    """One Answer per component and workload on its hot path."""
    m = float(picked.get("min_margin") or MARGIN)
    lm = loadmap.get("components") if isinstance(loadmap, dict) else None
    out = []
    for comp, _ in COMPONENTS:
        entry = picked["reactor"].get(comp)
        if not entry:
            continue
        base = str(entry.get("baseline") or "")
        cand = candidate_of(entry)
        mine = [r for r in rows if r.component == comp and
                r.baseline == base]
        refuted = [r for r in mine if outcome_of(r) is Outcome.REFUTED]
        map_wl, map_words = MAP_WORKLOAD.get(comp, ("pingpong", "echo"))
        comp_map = lm.get(comp) if lm else None
        if isinstance(comp_map, dict) and comp_map.get("baseline") != base:
            comp_map = None  # a map of another pair is other evidence
        hurts = harm(comp_map)
        for wl in ON_PATH[comp]:
            here = [r for r in mine if workload_of(r) == wl]
            meas = _measured(here, base)
            load = load_words(comp_map, m, map_words) \
                if wl == map_wl else None
            if meas:
                out.append(Answer(comp, wl, meas[0], BASES[0], meas[1], cand,
                                  base, meas[2], load))
                continue
            pred = _predicted(here, base, m)
            if pred:
                out.append(Answer(comp, wl, pred[0], BASES[1], pred[1], cand,
                                  base, None, load))
                continue
            choice, why = _micro(entry)
            gone = [r for r in refuted if r.winner == choice]
            if gone:
                choice = base
                why = "%s refuted end to end at %s (%s), not decided " \
                    "here: keep %s" % (gone[0].winner,
                                       _workload_label(workload_of(gone[0])),
                                       _case(gone[0]), base)
            harmful = None
            if hurts and choice == cand and choice != base:
                # Unchecked harm outranks a micro-only win: keep the base.
                harmful, choice = cand, base
                why = ("%s; but the load map (%s) predicts %s ahead by more "
                       "than %.0f%% at %d of %d loads, from about %d sessions "
                       "(%s): keep %s" % (
                           why, map_words, base, 100 * m, hurts[1], hurts[2],
                           hurts[0], _map_check(comp_map), base))
            if here:
                ran = ", ".join("%s %s" % (_case(r), r.outcome)
                                for r in here)
                why = why.replace(MICRO_ONLY, "micro only: the validation "
                                  "here did not decide (%s)" % ran, 1)
                if not why.startswith("micro only"):
                    why += " (here: %s)" % ran
            out.append(Answer(comp, wl, choice, BASES[2], why, cand, base,
                              None, load, harmful))
    return out


def _map_check(comp_map: Any) -> str:
    check = comp_map.get("check") if isinstance(comp_map, dict) else None
    if isinstance(check, dict) and check.get("outcome"):
        return "its check at %s sessions: %s" % (check.get("sessions"),
                                                 check.get("outcome"))
    return "unchecked"


def _workload_label(wl: str) -> str:
    return dict(WORKLOADS).get(wl, wl)


def reactor_veto(found: list[Answer], comp: str) -> Optional[Answer]:
    """The first answer that refuted the component's candidate end to end,
    or left it out for predicted harm (the reactor policy then keeps its
    baseline), or None."""
    for a in found:
        if a.component == comp and (a.refuted or a.harmful):
            return a
    return None


def vetoed(a: Answer) -> Optional[str]:
    """The implementation an answer keeps out of the reactor policy."""
    return a.refuted or a.harmful
