# -----------------------------------------------------------------------------
# validation/rounds.py
# -----------------------------------------------------------------------------
#
# One case of the ping-pong validation (run.py's header says what it
# asks): its rounds of baseline, candidate and two controls, the
# controls' cost sized from the first baseline run, their order (a
# Williams design), when they stop (decide.stop_rule, and the
# budget), the metric, the verdict (decide.py) from the rounds'
# paired log ratios, and the prediction (predict.py).

from __future__ import annotations

import dataclasses
import math
import os
import re
import statistics
import time
from typing import IO, Any, Optional

from validation import kinds as K
from validation.cases import (CONTROL_FRACTION, CONTROLS, MARGIN, Outcome,
                              Standing, component_flags, interval_words,
                              verdict)
from validation.decide import decide, stop_rule
from validation.predict import CONTROL_SIDES, model_sentence, predict_row
from validation.report import sentence

Row = dict[str, Any]
Case = dict[str, Any]

# The row's sides; "winner" is the candidate, whatever its question;
# "control2" is the control at twice the cost, the second injected size
# that the exchange rate's slope needs (model.py).
CONTROL_NAMES = tuple(side for side, _ in CONTROL_SIDES)
SIDES = ("baseline", "winner") + CONTROL_NAMES


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


def side_flags(row: Row, side: str, log_file: str) -> list[str]:
    """The server flags of a side; the control's cost once it is sized."""
    comp = row["component"]
    flags: list[str] = row["flags"]
    if side in CONTROL_NAMES:
        ns = row.get(side + "_ns")
        extra = CONTROLS[comp].flags(ns) if ns else []
        return component_flags(comp, row["baseline"], log_file, extra) + \
            flags
    return component_flags(comp, row[side], log_file) + flags


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


def run_side(run: Runner, row: Row, case: Case, side: str,
             rnd: int) -> dict[str, Any]:
    """Our server with the row's baseline, candidate or control, one run
    under the case's workload (validate_kinds.py); the record."""
    comp = row["component"]
    name = row[side]
    log_file = os.path.join(run.log_dir, "%s-%s.log" % (comp, side))
    k = K.run("serverkit[%s=%s]" % (comp, name),
              side_flags(row, side, log_file), case,
              K.Settings(run.client, run.pin, run.seconds, run.tmp))
    r = dict(k["raw"])
    r.update(ok=k["ok"], value=k["value"], cpu_per_unit=k["cpu_per_unit"],
             client_bound=k["client_bound"], server_cpus=k["server_cpus"],
             client_cpus=k["client_cpus"],
             server_cpu_s=k.get("server_cpu_s"),
             ops=ops_of(comp, row["workload"], k.get("server_log", "")),
             round=rnd, side=side, component=comp, case=case["name"])
    if not k["ok"]:
        r["error"] = k["error"] or "failed"
    if comp == "logger":
        check_log(r, log_file)
        row["log_bytes"].append(r["log_bytes"])
    return r


# The figures of a clean run that the verdict and the control's check use.
SUMMARY_KEYS = ("value", "cpu_per_unit", "client_bound", "server_cpus",
                "client_cpus", "server_cpu_s", "ops")


def size_control(row: Row, r: dict[str, Any]) -> Optional[str]:
    """The control's cost per operation from the case's first baseline run
    (CONTROL_FRACTION of its server CPU per operation); the reason when
    the run cannot size it."""
    control = CONTROLS[row["component"]]
    ops, cpu = r.get("ops"), r.get("server_cpu_s")
    if not ops or not cpu or cpu <= 0:
        return ("cannot size the control: the baseline run reported no "
                "%s count on the server's stop line or no server CPU "
                "(ops %s, CPU %s s)" % (control.op, ops, cpu))
    per_op_ns = cpu * 1e9 / ops
    ns = int(min(1e9, max(1.0, round(CONTROL_FRACTION * per_op_ns))))
    row["control_ns"] = ns
    row["control2_ns"] = 2 * ns
    row["control_cost"] = dict(
        op=control.op, flag=control.flag, fraction=CONTROL_FRACTION,
        baseline_ns_per_op=round(per_op_ns, 1), injected_ns=ns,
        measured_ns=None)
    row["control_flags"] = side_flags(row, "control", "FILE")
    row["control2_flags"] = side_flags(row, "control2", "FILE")
    row["control_why"] = (
        "the baseline %s, every %s costing %d ns more server CPU (a busy "
        "wait): %.0f%% of the %.0f ns its first run spent per %s" % (
            row["baseline"], control.op, ns, 100 * CONTROL_FRACTION,
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


def run_round(run: Runner, row: Row, case: Case, rnd: int) -> Optional[str]:
    """One round: the three sides once each; the first failure's reason, or
    None. One failure stops the case: its rounds would mean nothing."""
    got: dict[str, Optional[dict[str, Any]]] = {}
    row["rounds"].append(got)
    for side in order(rnd):
        r = run_side(run, row, case, side, rnd)
        row["records"].append(r)
        ok = bool(r.get("ok")) and r.get("value") is not None
        got[side] = {k: r.get(k) for k in SUMMARY_KEYS} if ok else None
        run.progress.say(
            "[validate %d/%d round %d] %-10s %-16s %-8s %-28s %s" % (
                run.progress.case, run.progress.cases, rnd + 1,
                row["component"], case["name"], side, row[side],
                "%.1f %s, %s" % (r["value"], row["unit"], _cpu_text(r))
                if ok else "FAILED %s" % r.get("error", "")))
        if not ok:
            return "%s %s: %s" % (side, row[side], r.get("error", ""))
        if side == "baseline" and "control_ns" not in row:
            why = size_control(row, r)
            if why:
                return why
    return None


def _cpu_text(r: dict[str, Any]) -> str:
    c = r.get("cpu_per_unit")
    return "CPU n/a" if not c else "CPU %.4g s per unit" % c


# --- the verdict of one case -------------------------------------------------

def _cpus(text: Any) -> set[str]:
    return {c for c in str(text or "").split(",") if c}


def runs_of(row: Row) -> list[dict[str, Any]]:
    return [x for rnd in row["rounds"] for x in rnd.values() if x]


def metric_choice(row: Row) -> tuple[bool, str]:
    """(use the server's CPU per unit, why): the throughput only where every
    run had the server and the client on separate cores and the client
    below its CPU ceiling, so that the figure is the server's."""
    runs = runs_of(row)
    if not runs:
        return False, "no run"
    have_cpu = all(x.get("cpu_per_unit") for x in runs)
    shared = [x for x in runs
              if not _cpus(x["server_cpus"]) or
              _cpus(x["server_cpus"]) & _cpus(x["client_cpus"])]
    bound = any(x.get("client_bound") for x in runs)
    if not shared and not bound:
        return False, ("throughput: the server ran on cores %s, the client "
                       "on %s" % (runs[0]["server_cpus"],
                                  runs[0]["client_cpus"]))
    why = ("the server and the client shared cores %s" % shared[0][
        "server_cpus"] if shared else
        "the client reached its CPU ceiling in some run")
    if not have_cpu:
        return False, ("throughput, though %s: no server CPU figure for "
                       "every run" % why)
    return True, "server CPU per %s: %s" % (row["work"], why)


def log_ratios(row: Row, side: str, use_cpu: bool) -> list[float]:
    """Per round, log(side / baseline) on the metric, oriented so that > 0
    is better; rounds without both clean runs are left out."""
    key = "cpu_per_unit" if use_cpu else "value"
    higher = row["higher_is_better"] and not use_cpu
    out = []
    for rnd in row["rounds"]:
        b, x = rnd.get("baseline"), rnd.get(side)
        if not b or not x or not b.get(key) or not x.get(key):
            continue
        d = math.log(x[key] / b[key])
        out.append(d if higher else -d)
    return out


def control_measured_ns(row: Row) -> Optional[float]:
    """The control's measured cost per operation: per round, its server CPU
    per operation less the baseline's; the median over the rounds."""
    diffs = []
    for rnd in row["rounds"]:
        b, c = rnd.get("baseline"), rnd.get("control")
        if b and c and b.get("ops") and c.get("ops") and \
                b.get("server_cpu_s") and c.get("server_cpu_s"):
            diffs.append(1e9 * (c["server_cpu_s"] / c["ops"] -
                                b["server_cpu_s"] / b["ops"]))
    return statistics.median(diffs) if diffs else None


def decide_row(row: Row) -> None:
    """The metric, the paired ratios and the outcome from the row's rounds."""
    use_cpu, why = metric_choice(row)
    row["metric_used"] = ("server_cpu_s_per_" + row["work"] if use_cpu
                          else row["metric"])
    row["metric_kind"] = "server CPU per %s" % row["work"] if use_cpu \
        else "throughput" if row["higher_is_better"] else \
        "latency (%s)" % row["unit"]
    row["metric_why"] = why
    for side in SIDES:
        row[side + "_runs"] = [rnd[side]["value"] for rnd in row["rounds"]
                               if rnd.get(side)]
        row[side + "_cpu"] = [rnd[side]["cpu_per_unit"]
                              for rnd in row["rounds"]
                              if rnd.get(side) and
                              rnd[side].get("cpu_per_unit")]
        row[side + "_median"] = (statistics.median(row[side + "_runs"])
                                 if row[side + "_runs"] else None)
    margin = row.get("margin", MARGIN)
    d = decide(log_ratios(row, "winner", use_cpu),
               log_ratios(row, "control", use_cpu), margin)
    row["e2e"] = d.winner.as_json() if d.winner else None
    row["control_e2e"] = d.control.as_json() if d.control else None
    row["e2e_ratio"] = d.winner.ratio if d.winner else None
    row["mde"] = None if math.isinf(d.mde) or math.isnan(d.mde) else d.mde
    row["reason"] = d.reason
    if row["baseline_cpu"] and row["winner_cpu"]:
        # Candidate / baseline: < 1 is a cheaper candidate.
        row["cpu_ratio"] = (statistics.median(row["winner_cpu"]) /
                            statistics.median(row["baseline_cpu"]))
    if row.get("control_cost"):
        m = control_measured_ns(row)
        row["control_cost"]["measured_ns"] = None if m is None else \
            round(m, 1)
    row["standing"] = d.standing.value
    set_outcome(row, d.outcome, interval_words(
        row["winner"], row["baseline"], d.winner.low if d.winner else None,
        d.winner.high if d.winner else None, margin))


# --- one case ----------------------------------------------------------------

def set_outcome(row: Row, outcome: Outcome, detail: str = "") -> None:
    """The row's outcome, and its verdict with the detail (the interval in
    words); a row without a standing gets "unknown", and the margin."""
    row["outcome"] = outcome.value
    row["verdict"] = verdict(outcome, row["micro_ratio"], detail)
    if row.get("standing") is None:
        row["standing"] = Standing.UNKNOWN.value
    row.setdefault("margin", MARGIN)


def next_round_fits(run: Runner, row: Row, started: float,
                    budget_s: float) -> Optional[str]:
    """Why the case stops after its rounds so far, or None to run one
    more: validate_decide.stop_rule's "max_rounds" or "target" (the
    candidate's interval narrow enough to decide equivalence at the
    margin, and the control detected), else the case's budget spent."""
    n = len(row["rounds"])
    if n < run.min_rounds:
        return stop_rule([], [], n, run.min_rounds, run.max_rounds,
                         run.margin)
    use_cpu, _ = metric_choice(row)
    why = stop_rule(log_ratios(row, "winner", use_cpu),
                    log_ratios(row, "control", use_cpu), n, run.min_rounds,
                    run.max_rounds, run.margin)
    if why:
        return why
    spent = time.monotonic() - started
    if spent + spent / n > budget_s:
        return "budget"
    return None


def run_case(run: Runner, row: Row, case: Case, budget_s: float) -> None:
    """The case's rounds until it stops (next_round_fits), then its
    verdict."""
    started = time.monotonic()
    error = None
    while True:
        row["stop"] = next_round_fits(run, row, started, budget_s)
        if row["stop"]:
            break
        error = run_round(run, row, case, len(row["rounds"]))
        if error:
            row["stop"] = "error"
            break
    row["seconds"] = round(time.monotonic() - started, 1)
    if error:
        set_outcome(row, Outcome.ERROR)
        row["error"] = error
    else:
        decide_row(row)
        predict_row(row, run.results_dir, metric_choice(row)[0])
        run.progress.say("[predict] " + model_sentence(row))
    row["sentence"] = sentence(row)
    run.progress.say("[validate %d/%d] %s %s: %s after %d round(s), %.0f s "
                     "(%s); %s" % (
                         run.progress.case, run.progress.cases,
                         row["component"], case["name"], row["verdict"],
                         len(row["rounds"]), row["seconds"], row["stop"],
                         row.get("reason") or row.get("error", "")))
