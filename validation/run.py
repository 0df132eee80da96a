# -----------------------------------------------------------------------------
# validation/run.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation: does the choice of a component matter inside our
# server end to end? Run by pingpong.py (`--validate`, and after the
# side-by-side sweep unless `--no_validate`); what it compares (components,
# cases, profiles, winners.json, the candidate of each) is
# cases.py's, its verdict rule decide.py's, its statistics
# pick/decide/paired.py's, its table and sentences report.py's, its
# processes servers/driver/procs.py's.
#
# The question. For each component our server (//servers/pingpong:server, or
# the chat and HTTP servers for their cases) runs with the baseline, with a
# candidate, and with the positive control, everything else equal, in the
# modes where that component matters (CASES). The candidate is the micro
# pick when it left the baseline; when the pick kept the baseline (a tie, or
# no verdict) it is the best alternative, and the question becomes "does
# leaving the baseline matter end to end?" (cases.candidate_of).
#
# Rounds. A round runs the baseline, the candidate and the control at two
# costs (d and 2d) once each, in a Williams order (rounds.ORDERS: a
# 4x4 Latin square, each side right after each other once), so a slow
# drift of the host and a run's carry-over onto the next spread over all
# of them, and the verdict comes from the rounds' paired ratios. Every
# case runs the profile's minimum rounds, then more until the candidate's
# interval is narrow enough to decide equivalence at the margin (--margin,
# default pick.margin.MARGIN) with the control detected
# (decide.stop_rule), its share of the profile's time budget is
# spent, or the maximum is reached. The verdict reads the
# candidate's interval against that margin: held, equivalent, not told
# apart, refuted (decide.py).
#
# Blocks. A case's rounds run back to back, so a host state that lasts the
# whole case would be invisible to its interval: every case runs in
# decide.BLOCKS blocks, one per pass over all the cases (so minutes apart),
# each with its share of the case's budget and rounds (min_rounds each; a
# profile too short for that, like smoke or a fixed --rounds, runs one).
# The verdict comes from all rounds, the interval carrying the spread
# between the blocks; where the blocks disagree, nothing is adopted.
#
# The control is the baseline slowed
# by a stated CPU cost per operation, sized from the first baseline run's
# own server CPU per operation (CONTROL_FRACTION of it); every row says
# what was injected and what the rounds measured.
#
# The metric, chosen per case and named in the row: the throughput (MiB/s,
# messages/s or requests/s; the chat's round time) when the server and the
# client ran on separate cores and the client never reached its CPU
# ceiling, so the figure is the server's; else the server's CPU seconds per
# unit of work, lower is better: "held" then means cheaper, not faster.
#
# Predict, then check (predict.py, model.py): the two
# controls give each case's exchange rate (the slope of the server's cost
# per unit on the injected cost per operation); with the micro benchmark's
# cost per operation of each implementation (micro.py) it
# predicts every implementation's end-to-end ratio, and the candidate's is
# checked against its measured interval (the row's "model"). Then the load
# map (loadmap.py, unless loadmap=False): the baseline and one
# control over a grid of loads, the prediction at each, and a check where
# the predicted effect is largest (the result's "loadmap").

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from typing import IO, Any, Optional, Sequence

from pick.decide import paired
from pick.records import SIDES, ValidationRow
from validation import kinds
from validation.rounds import (Progress, Runner, blocks_for, run_case,
                               set_outcome, side_flags)
from validation.cases import (CONTROL_FRACTION, CONTROLS, COMPONENTS, MARGIN,
                              PROFILES, QUESTIONS, Outcome, candidate_of,
                              load_winners, profile_cases)
from validation.decide import MIN_TARGET_ROUNDS
from validation.loadmap import run_loadmap
from validation.report import sentence

Entry = dict[str, Any]
Case = dict[str, Any]


# --- one case ----------------------------------------------------------------


def new_row(comp: str, case: Case, e: Entry, candidate: str,
            question: str, margin: float = MARGIN,
            paced: Optional[str] = None) -> ValidationRow:
    kind = kinds.kind_of(case)
    micro = (e["micro_ratio"] if question in ("pick", "default") else
             (e.get("micro_ratios") or {}).get(candidate))
    row = ValidationRow(
        component=comp, case=case["name"], mode=case["mode"],
        protocol=case["protocol"], server_threads=case["threads"],
        client_threads=case["client_threads"], blocksize=case["block"],
        sessions=case["sessions"], flags=case["flags"],
        question=question, question_text=QUESTIONS[question],
        winner=candidate, pick=e["winner"], baseline=e["baseline"],
        control=CONTROLS[comp].label(e["baseline"]),
        control2=CONTROLS[comp].label(e["baseline"]) + " x2",
        control_why="the baseline slowed on purpose (sized from the "
                    "case's first baseline run)",
        control_cost=None, micro_ratio=micro, micro_source=e["source"],
        micro_cv=e["cv"], micro_metric=e.get("metric"),
        origin=e["origin"], metric=kind.metric, unit=kind.unit,
        metric_used=kind.metric, metric_kind=None, metric_why=None,
        workload=case.get("kind", "pingpong"),
        higher_is_better=kind.higher_is_better, work=kind.work,
        baseline_median=None, winner_median=None, control_median=None,
        e2e_ratio=None, e2e=None, control_e2e=None, mde=None, reason=None,
        cpu_ratio=None, rounds=[], stop=None, seconds=None, log_bytes=[],
        records=[], standing=None, margin=margin,
        control_fraction=case.get("control_fraction", CONTROL_FRACTION),
        paced=paced)
    for side in SIDES:
        row.set_side(side, "flags", side_flags(row, side, "FILE"))
    return row


# --- the validation ----------------------------------------------------------

# One case to run: (component, case or None, entry, candidate or None,
# question); a component with no candidate gets its "nothing" row.
Todo = tuple[str, Optional[Case], Entry, Optional[str], str]


def winners_origin(entries: dict[str, Entry],
                   components: Sequence[str]) -> str:
    origins = {entries[c]["origin"] for c in components}
    return ("winners.json" if origins == {"winners.json"} else
            "defaults" if origins == {"default"} else
            "winners.json, defaults for the rest")


def to_run(entries: dict[str, Entry], components: Sequence[str],
           which: str) -> list[Todo]:
    """(component, case, entry, candidate, question) in order; one row
    without a case for a component with no candidate."""
    out: list[Todo] = []
    for comp in components:
        e = entries[comp]
        candidate, question = candidate_of(e)
        if candidate is None:
            out.append((comp, None, e, None, question))
            continue
        for case in profile_cases(comp, which):
            out.append((comp, case, e, candidate, question))
    return out


def loadmap_todo(rows: list[ValidationRow]) -> dict[str, dict[str, str]]:
    """Per component, the first case's pair for the load map."""
    todo: dict[str, dict[str, str]] = {}
    for r in rows:
        if r.case != "-" and r.component not in todo and r.winner and \
                r.winner != r.baseline:
            todo[r.component] = dict(baseline=r.baseline, winner=r.winner,
                                     source=r.micro_source or "")
    return todo


def mark_interrupted(result: dict[str, Any]) -> None:
    for row in result["rows"]:
        if row.verdict is None:
            set_outcome(row, Outcome.ERROR)
            row.error = "interrupted"
            row.sentence = sentence(row)


def nothing_row(comp: str, e: Entry, question: str,
                margin: float = MARGIN) -> ValidationRow:
    row = ValidationRow(
        component=comp, case="-", mode="-", question=question,
        question_text=QUESTIONS[question], winner=e["winner"],
        pick=e["winner"], baseline=e["baseline"], control="-",
        micro_ratio=None, micro_source=e["source"], origin=e["origin"],
        metric_used="-", margin=margin)
    set_outcome(row, Outcome.NOTHING_TO_VALIDATE)
    row.sentence = sentence(row)
    return row


def result_json(result: dict[str, Any]) -> dict[str, Any]:
    """The result as its file holds it: every row as its JSON."""
    return dict(result, rows=[r.to_json() for r in result["rows"]])


def settings(prof_name: str, seconds: float, rounds: int,
             budget_s: float) -> dict[str, Any]:
    """The profile's settings with the caller's overrides (0: keep)."""
    vp = dict(PROFILES[prof_name])
    if seconds > 0:
        vp["seconds"] = seconds
    if rounds > 0:
        vp["min_rounds"] = vp["max_rounds"] = rounds
    if budget_s > 0:
        vp["budget_s"] = budget_s
    return vp


def run_validation(client: str, prof_name: str, pin: str, winners_path: str,
                   log_parent: str, seconds: float = 0.0, rounds: int = 0,
                   budget_s: float = 0.0,
                   components: Sequence[str] = COMPONENTS,
                   out: IO[str] = sys.stdout,
                   margin: float = MARGIN,
                   loadmap: bool = True) -> dict[str, Any]:
    """Runs every component's cases (our server, procs.SERVER, against
    `client`); returns the "validation" dict. seconds, rounds (a fixed
    number), budget_s: the profile's when 0; margin: the m of the verdicts
    and of the stop rule. On KeyboardInterrupt it returns what ran, with
    "interrupted": true."""
    if not margin > 0:
        raise ValueError("the margin must be positive: %r" % margin)
    vp = settings(prof_name, seconds, rounds, budget_s)
    entries, notes = load_winners(winners_path)
    os.makedirs(log_parent, exist_ok=True)
    log_dir = tempfile.mkdtemp(prefix=".validate-logs-", dir=log_parent)
    try:
        result = run_todo(
            to_run(entries, components, vp["cases"]), prof_name, client, pin,
            os.path.dirname(os.path.abspath(winners_path)), log_dir,
            seconds, rounds, budget_s, out, margin, loadmap=loadmap,
            notes=notes, title="ping-pong validation",
            winners=winners_origin(entries, components))
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    return dict(winners_file=winners_path, **result)


def run_todo(todo: list[Todo], prof_name: str, client: str, pin: str,
             results_dir: str, log_dir: str, seconds: float = 0.0,
             rounds_n: int = 0, budget_s: float = 0.0,
             out: IO[str] = sys.stdout, margin: float = MARGIN,
             loadmap: bool = False, notes: Optional[list[str]] = None,
             title: str = "validation", winners: str = "winners.json",
             workload: str = "", paced: Optional[str] = None
             ) -> dict[str, Any]:
    """The validation's engine: the cases of `todo` in blocks of rounds
    (run.py's header), each decided and predicted from the micro costs in
    results_dir; then the load map where asked. The loggers write under
    log_dir. workload: the stop line's vocabulary for the operation
    counts (cases.CONTROLS' ops) where not the case's kind. paced: why
    the load set the pace, where it did (the metric's words). Returns the
    result dict, its rows ValidationRows (result_json() for the file); on
    KeyboardInterrupt what ran, with "interrupted": true."""
    if not margin > 0:
        raise ValueError("the margin must be positive: %r" % margin)
    vp = settings(prof_name, seconds, rounds_n, budget_s)
    notes = list(notes or [])
    result: dict[str, Any] = dict(
        winners=winners, notes=notes,
        profile=prof_name, min_rounds=vp["min_rounds"],
        max_rounds=vp["max_rounds"], budget_s=vp["budget_s"],
        seconds_per_run=vp["seconds"], margin=margin,
        min_target_rounds=MIN_TARGET_ROUNDS,
        control_fraction=CONTROL_FRACTION, alpha=paired.ALPHA, rows=[],
        complete=False)
    n_cases = sum(1 for c in todo if c[1] is not None)
    progress = Progress(n_cases, out)
    blocks = blocks_for(vp["min_rounds"], vp["max_rounds"])
    result["blocks"] = blocks
    progress.say(
        "\n%s, profile %s: %d case(s) of baseline, "
        "candidate and two controls in rounds of %.1f s runs (Williams "
        "orders), %d to %d rounds each in %d block(s) until the "
        "candidate's 90%% interval can decide equivalence within ±%g%% "
        "(from %d rounds, the control detected; a budget of %.0f s, the "
        "minimum rounds whatever it says); candidates from %s" % (
            title, prof_name, n_cases, vp["seconds"], vp["min_rounds"],
            vp["max_rounds"], blocks, round(100 * margin, 2),
            MIN_TARGET_ROUNDS, vp["budget_s"], winners))
    for n in notes:
        progress.say("note: " + n)
    result["log_dir"] = log_dir
    progress.say("the loggers write under %s (deleted after each run)" %
                 log_dir)
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="validate-") as tmp:
            run = Runner(client, pin, vp["seconds"], vp["min_rounds"],
                         vp["max_rounds"], tmp, log_dir, progress, margin,
                         results_dir, blocks)
            made: dict[int, ValidationRow] = {}  # each case's, from block 0
            for block in range(blocks):
                progress.case = 0
                for i, (comp, case, e, candidate, question) in \
                        enumerate(todo):
                    if case is None or candidate is None:
                        if not block:
                            result["rows"].append(nothing_row(
                                comp, e, question, margin))
                        continue
                    if not block:
                        made[i] = new_row(comp, case, e, candidate,
                                          question, margin, paced)
                        if workload:
                            made[i].workload = workload
                        result["rows"].append(made[i])
                    row = made[i]
                    progress.case += 1
                    left = (blocks - block) * n_cases - progress.case + 1
                    share = max(0.0, vp["budget_s"] -
                                (time.monotonic() - started)) / left
                    cap = (case.get("budget_s") or {}).get(prof_name)
                    if cap:  # the case's own cap in this profile
                        share = min(share, cap / blocks)
                    run_case(run, row, case, share, block)
            result["loadmap"] = run_loadmap(
                run, prof_name, loadmap_todo(result["rows"]),
                run.results_dir, margin) if loadmap else None
        result["complete"] = True
    except KeyboardInterrupt:
        result["interrupted"] = True
        progress.say("\n%s: interrupted; reporting what ran" % title)
        mark_interrupted(result)
    result["elapsed_s"] = round(time.monotonic() - started, 1)
    return result
