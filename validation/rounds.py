# -----------------------------------------------------------------------------
# validation/rounds.py
# -----------------------------------------------------------------------------
#
# One case of the ping-pong validation (run.py's header says what it
# asks): its rounds of baseline, candidate and two controls, the
# controls' cost sized from the first baseline run, their order (a
# Williams design), when they stop (decide.stop_rule, and the
# budget), the metric, the verdict (decide.py) from the rounds'
# paired log ratios, and the prediction (predict.py). A case runs in
# blocks (run.py's passes, minutes apart): run_case runs one block, each
# round tagged with it (the row's "round_blocks"), and the last decides
# from all of them.

from __future__ import annotations

import dataclasses
import math
import os
import re
import statistics
import time
from typing import IO, Any, Optional

from pick.records import SIDES, RunFigures, ValidationRow
from validation import kinds
from validation.cases import (CONTROL_FRACTION, CONTROLS, MARGIN, Outcome,
                              Standing, component_flags, interval_words,
                              verdict)
from validation.decide import BLOCKS, decide, set_dependence, stop_rule
from validation.metric import (blocked_log_ratios, control_measured_ns,
                               metric_choice)
from validation.predict import CONTROL_NAMES, model_sentence, predict_row
from validation.report import sentence

Case = dict[str, Any]


# --- one run -----------------------------------------------------------------

class Progress:
    """The "[validate ...]" lines and every other line of the run."""

    def __init__(self, cases: int, out: IO[str]) -> None:
        self.case, self.cases, self.out = 0, cases, out

    def say(self, msg: str) -> None:
        print(msg, file=self.out)
        self.out.flush()


@dataclasses.dataclass
class Runner:
    """What every run of one validation shares."""
    client: str
    pin: str
    seconds: float
    min_rounds: int
    max_rounds: int
    tmp: str          # the client's and servers' scratch files
    log_dir: str      # the logger's files, deleted after each run
    progress: Progress
    margin: float = MARGIN
    results_dir: str = ""  # the micro results beside winners.json
    blocks: int = 1        # the passes over the cases (blocks_for)


def blocks_for(min_rounds: int, max_rounds: int) -> int:
    """decide.BLOCKS where the rounds allow min_rounds in each block, else
    one (a fixed number of rounds, the smoke profile)."""
    return BLOCKS if max_rounds >= BLOCKS * max(1, min_rounds) else 1


def check_log(r: dict[str, Any], log_file: str) -> None:
    """The logger's run: the bytes it wrote (the file then deleted); a run
    that logged nothing is not clean."""
    try:
        r["log_bytes"] = os.path.getsize(log_file)
        os.remove(log_file)
    except OSError:
        r["log_bytes"] = 0
    if r.get("ok") and not r["log_bytes"]:
        # Nothing logged: not the mode we meant (an unflushed async tail
        # included).
        r["ok"] = False
        r["error"] = "the logger wrote nothing to %s" % log_file


def side_flags(row: ValidationRow, side: str, log_file: str) -> list[str]:
    """The server flags of a side; the control's cost once it is sized."""
    comp = row.component
    if side in CONTROL_NAMES:
        ns = row.injected_ns(side)
        extra = CONTROLS[comp].flags(ns) if ns else []
        return component_flags(comp, row.baseline, log_file, extra) + \
            row.flags
    return component_flags(comp, row.name_of(side), log_file) + row.flags


def ops_of(comp: str, workload: str, log: str) -> Optional[float]:
    """The operations the control's cost applies to, from the server's
    stop line (the last match): tasks, log lines, or KiB consumed."""
    control = CONTROLS[comp]
    rx = control.ops.get(workload)
    if rx is None:
        return None
    found = re.findall(rx, log or "")
    if not found:
        return None
    n = float(found[-1])
    return n / 1024.0 if control.per_kib else n


def run_side(run: Runner, row: ValidationRow, case: Case, side: str,
             rnd: int) -> dict[str, Any]:
    """Our server with the row's baseline, candidate or control, one run
    under the case's workload (kinds.py); the record."""
    comp = row.component
    name = row.name_of(side)
    log_file = os.path.join(run.log_dir, "%s-%s.log" % (comp, side))
    k = kinds.run("serverkit[%s=%s]" % (comp, name),
                  side_flags(row, side, log_file), case,
                  kinds.Settings(run.client, run.pin, run.seconds, run.tmp))
    r = dict(k["raw"])
    r.update(ok=k["ok"], value=k["value"], cpu_per_unit=k["cpu_per_unit"],
             client_bound=k["client_bound"], server_cpus=k["server_cpus"],
             client_cpus=k["client_cpus"],
             server_cpu_s=k.get("server_cpu_s"),
             ops=ops_of(comp, row.workload or "pingpong",
                        k.get("server_log", "")),
             round=rnd, side=side, component=comp, case=case["name"])
    if not k["ok"]:
        r["error"] = k["error"] or "failed"
    if comp == "logger":
        check_log(r, log_file)
        row.log_bytes.append(r["log_bytes"])
    return r


def figures(r: dict[str, Any]) -> RunFigures:
    """The figures of a clean run that the verdict and the control's check
    use."""
    return RunFigures(value=r["value"], cpu_per_unit=r.get("cpu_per_unit"),
                      client_bound=r.get("client_bound"),
                      server_cpus=r.get("server_cpus"),
                      client_cpus=r.get("client_cpus"),
                      server_cpu_s=r.get("server_cpu_s"), ops=r.get("ops"))


def size_control(row: ValidationRow, r: dict[str, Any]) -> Optional[str]:
    """The control's cost per operation from the case's first baseline run
    (CONTROL_FRACTION of its server CPU per operation); the reason when
    the run cannot size it."""
    control = CONTROLS[row.component]
    ops, cpu = r.get("ops"), r.get("server_cpu_s")
    if not ops or not cpu or cpu <= 0:
        return ("cannot size the control: the baseline run reported no "
                "%s count on the server's stop line or no server CPU "
                "(ops %s, CPU %s s)" % (control.op, ops, cpu))
    per_op_ns = cpu * 1e9 / ops
    fraction = float(row.control_fraction or CONTROL_FRACTION)
    ns = int(min(1e9, max(1.0, round(fraction * per_op_ns))))
    row.control_ns = ns
    row.control2_ns = 2 * ns
    row.control_cost = dict(
        op=control.op, flag=control.flag, fraction=fraction,
        baseline_ns_per_op=round(per_op_ns, 1), injected_ns=ns,
        measured_ns=None)
    row.control_flags = side_flags(row, "control", "FILE")
    row.control2_flags = side_flags(row, "control2", "FILE")
    row.control_why = (
        "the baseline %s, every %s costing %d ns more server CPU (a busy "
        "wait): %.0f%% of the %.0f ns its first run spent per %s" % (
            row.baseline, control.op, ns, 100 * fraction,
            per_op_ns, control.op))
    return None


# The sides' orders, one per round, repeating every four rounds: a
# Williams design for four treatments (one Latin square whose rows are
# BWDC, WCBD, CDWB, DBCW, with D the control at twice the cost). Over a
# block of four rounds each side runs once in each position and, within
# the rounds, immediately follows each other side exactly once. So a run's
# carry-over onto the next (a warm cache, a queue left behind, the host's
# state) falls on every side alike. The first round runs the baseline
# first: the controls are sized from it.
_B, _W, _C, _D = SIDES
ORDERS = ((_B, _W, _D, _C), (_W, _C, _B, _D), (_C, _D, _W, _B),
          (_D, _B, _C, _W))


def order(rnd: int) -> tuple[str, ...]:
    """The sides' order in round rnd (0-based): ORDERS, repeating."""
    return ORDERS[rnd % len(ORDERS)]


def run_round(run: Runner, row: ValidationRow, case: Case, rnd: int
              ) -> Optional[str]:
    """One round: every side (baseline, candidate, control and the doubled
    control) once each, in the round's order; the first failure's reason, or
    None. One failure stops the case: its rounds would mean nothing."""
    got: dict[str, Optional[RunFigures]] = {}
    row.rounds.append(got)
    row.round_blocks.append(row.block)
    for side in order(rnd):
        r = run_side(run, row, case, side, rnd)
        row.records.append(r)
        ok = bool(r.get("ok")) and r.get("value") is not None
        got[side] = figures(r) if ok else None
        run.progress.say(
            "[validate %d/%d round %d] %-10s %-16s %-8s %-28s %s" % (
                run.progress.case, run.progress.cases, rnd + 1,
                row.component, case["name"], side, row.name_of(side),
                "%.1f %s, %s" % (r["value"], row.unit, _cpu_text(r))
                if ok else "FAILED %s" % r.get("error", "")))
        if not ok:
            return "%s %s: %s" % (side, row.name_of(side),
                                  r.get("error", ""))
        if side == "baseline" and row.control_ns is None:
            why = size_control(row, r)
            if why:
                return why
    return None


def _cpu_text(r: dict[str, Any]) -> str:
    c = r.get("cpu_per_unit")
    return "CPU n/a" if not c else "CPU %.4g s per unit" % c


# --- the verdict of one case -------------------------------------------------

def decide_row(row: ValidationRow) -> None:
    """The metric, the paired ratios and the outcome from the row's rounds."""
    use_cpu, why = metric_choice(row)
    row.metric_used = ("server_cpu_s_per_%s" % row.work if use_cpu
                       else row.metric or "-")
    row.metric_kind = "server CPU per %s" % row.work if use_cpu \
        else "throughput" if row.higher_is_better else \
        "latency (%s)" % row.unit
    row.metric_why = why
    for side in SIDES:
        runs = [x["value"] for x in (rnd.get(side) for rnd in row.rounds)
                if x]
        row.set_side(side, "runs", runs)
        row.set_side(side, "cpu", [
            c for c in ((x or {}).get("cpu_per_unit")
                        for x in (rnd.get(side) for rnd in row.rounds)
                        if x) if c])
        row.set_side(side, "median",
                     statistics.median(runs) if runs else None)
    margin = row.margin or MARGIN
    win, wk = blocked_log_ratios(row, "winner", use_cpu)
    ctrl, ck = blocked_log_ratios(row, "control", use_cpu)
    d = decide(win, ctrl, margin, wk, ck)
    set_dependence(row, d, row.round_blocks or [0])
    row.e2e = d.winner.as_json() if d.winner else None
    row.control_e2e = d.control.as_json() if d.control else None
    row.e2e_ratio = d.winner.ratio if d.winner else None
    row.mde = None if math.isinf(d.mde) or math.isnan(d.mde) else d.mde
    row.reason = d.reason
    if row.baseline_cpu and row.winner_cpu:
        # Candidate / baseline: < 1 is a cheaper candidate.
        row.cpu_ratio = (statistics.median(row.winner_cpu) /
                         statistics.median(row.baseline_cpu))
    if row.control_cost:
        m = control_measured_ns(row)
        row.control_cost["measured_ns"] = None if m is None else round(m, 1)
    row.standing = d.standing.value
    lo, hi = (d.winner.low, d.winner.high) if d.winner else (None, None)
    if d.outcome == Outcome.EQUIVALENT and d.carried:   # TOST's interval
        lo, hi = math.exp(d.carried.lo90), math.exp(d.carried.hi90)
    set_outcome(row, d.outcome, d.disagree or interval_words(
        row.winner or "-", row.baseline, lo, hi, margin))


# --- one case ----------------------------------------------------------------

def set_outcome(row: ValidationRow, outcome: Outcome, detail: str = ""
                ) -> None:
    """The row's outcome, and its verdict with the detail (the interval in
    words); a row without a standing gets "unknown", and the margin."""
    row.outcome = outcome.value
    row.verdict = verdict(outcome, row.micro_ratio, detail)
    if row.standing is None:
        row.standing = Standing.UNKNOWN.value
    if row.margin is None:
        row.margin = MARGIN


def next_round_fits(run: Runner, row: ValidationRow, started: float,
                    budget_s: float) -> Optional[str]:
    """Why the case's block stops after its rounds so far, or None to run
    one more: an earlier block at its share of max_rounds or of the
    budget, or on the target from its own rounds; the last,
    decide.stop_rule's "max_rounds" or "target" (the candidate's 90%
    interval narrow enough for TOST at the margin, and
    the control detected), else the case's budget spent. Every block runs
    min_rounds."""
    block = row.block
    here = sum(1 for b in row.round_blocks if b == block)
    n = len(row.rounds)
    if here < run.min_rounds:
        return stop_rule([], [], n, run.min_rounds, run.max_rounds,
                         run.margin) if n >= run.max_rounds else None
    use_cpu, _ = metric_choice(row)
    win, wk = blocked_log_ratios(row, "winner", use_cpu)
    ctrl, ck = blocked_log_ratios(row, "control", use_cpu)
    if block < run.blocks - 1:
        if here >= run.max_rounds // run.blocks:
            return "max_rounds"
        # Its own rounds narrow enough: the later blocks will be too.
        why = stop_rule(_only(win, wk, block), _only(ctrl, ck, block), here,
                        run.min_rounds, run.max_rounds, run.margin)
    else:
        why = stop_rule(win, ctrl, n, run.min_rounds, run.max_rounds,
                        run.margin, wk, ck)
    if why:
        return why
    spent = time.monotonic() - started
    if spent + spent / max(1, here) > budget_s:
        return "budget"
    return None


def _only(d: list[float], keys: Optional[list[int]], block: int
          ) -> list[float]:
    return d if keys is None else [x for x, k in zip(d, keys) if k == block]


def run_case(run: Runner, row: ValidationRow, case: Case, budget_s: float,
             block: int = 0) -> None:
    """The case's rounds of one block until it stops (next_round_fits);
    after the last block (or a failure), its verdict."""
    if row.stop == "error":
        return
    started = time.monotonic()
    row.block = block
    error = None
    while True:
        row.stop = next_round_fits(run, row, started, budget_s)
        if row.stop:
            break
        error = run_round(run, row, case, len(row.rounds))
        if error:
            row.stop = "error"
            break
    row.seconds = round(time.monotonic() - started + (row.seconds or 0.0), 1)
    if not error and block < run.blocks - 1:
        run.progress.say("[validate %d/%d] %s %s: block %d of %d, %d "
                         "round(s) so far (%s)" % (
                             run.progress.case, run.progress.cases,
                             row.component, case["name"], block + 1,
                             run.blocks, len(row.rounds), row.stop))
        return
    if error:
        set_outcome(row, Outcome.ERROR)
        row.error = error
    else:
        decide_row(row)
        predict_row(row, run.results_dir, metric_choice(row)[0])
        run.progress.say("[predict] " + model_sentence(row))
    row.sentence = sentence(row)
    run.progress.say("[validate %d/%d] %s %s: %s after %d round(s), %.0f s "
                     "(%s); %s" % (
                         run.progress.case, run.progress.cases,
                         row.component, case["name"], row.verdict,
                         len(row.rounds), row.seconds or 0.0, row.stop,
                         row.reason or row.error or ""))
