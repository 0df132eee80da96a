# -----------------------------------------------------------------------------
# bench/pingpong/validate.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation: does a component that won its microbenchmark also
# make our server faster end to end? Run by sweep.py (`--validate`, and
# after the side-by-side sweep unless `--no_validate`); what it compares
# (components, cases, profiles, winners.json) is validate_cases.py's, its
# table and sentences validate_report.py's, its processes procs.py's.
#
# Runs. For each component, our server (//bench/pingpong:server) runs with the
# baseline, with the winner swapped in, and with the component's positive
# control (validate_cases.CONTROLS: a variant the micro sweep ranks far
# worse, or one slowed on purpose), everything else equal, in the mode where
# that component matters (CASES): the task queue with every reply posted
# through a worker loop (--reply_via_queue, two cross-thread posts per
# message), the buffer in the echo at 16 KiB, in 64 KiB streaming and in
# evpp's header/body with growing bodies, the logger writing one line per
# message to a file on disk (under the results directory, deleted after each
# run) with a core more for the server than its I/O threads. The three
# rotate (BWC, WCB, CBW, ...), so a slow drift of the host spreads over all
# of them.
#
# Verdict (decide(), validate_stats.py). The metric is the throughput
# (MiB/s; messages/s for the header protocol), or, when the client was at
# its CPU ceiling in some run of the case, the server's CPU seconds per unit
# of work (lower is better), which still tells servers apart when the client
# sets the pace. Ratios are oriented so that > 1 is better: median(winner) /
# median(baseline), with a bootstrap 95% interval and the two-sided U-test
# p. First the control: unless it came out worse than the baseline with
# p < 0.05, the run could not have seen the winner either, and the case is
# "too-weak", with its minimum detectable effect (MDE). Otherwise "held"
# (the winner better, p < 0.05), "refuted" (worse, p < 0.05) or
# "no-difference". The row's exact "outcome" is bench/pick/outcome.py's.
# The micro ratio is printed as bench:pick reports it.

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import statistics
import sys
import tempfile
from typing import IO, Any, Optional, Sequence

import validate_kinds as K
import validate_stats as VS
from validate_cases import (CASES, COMPONENTS, CONTROLS, PROFILES, Outcome,
                            component_flags, load_winners, verdict)
from validate_decide import decide
from validate_report import sentence

Row = dict[str, Any]
Entry = dict[str, Any]
Case = dict[str, Any]

SIDES = ("baseline", "winner", "control")


# --- one run -----------------------------------------------------------------

class Progress:
    """The "[validate k/n]" lines and every other line of the run."""

    def __init__(self, total: int, out: IO[str]) -> None:
        self.done, self.total, self.out = 0, total, out

    def say(self, msg: str) -> None:
        print(msg, file=self.out)
        self.out.flush()


@dataclasses.dataclass
class Runner:
    """What every run of one validation shares."""
    client: str
    pin: str
    repetitions: int
    seconds: float
    tmp: str          # the client's and servers' scratch files
    log_dir: str      # the logger's files, deleted after each run
    progress: Progress


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
    comp = row["component"]
    if side == "control":
        c = CONTROLS[comp]
        return component_flags(comp, c.name, log_file, c.extra) + row["flags"]
    return component_flags(comp, row[side], log_file) + row["flags"]


def run_side(run: Runner, row: Row, case: Case, side: str,
             rep: int) -> dict[str, Any]:
    """Our server with the row's baseline, winner or control, one run under
    the case's workload (validate_kinds.py); the record."""
    comp, name = row["component"], row[side]
    log_file = os.path.join(run.log_dir, "%s-%s.log" % (comp, side))
    k = K.run("serverkit[%s=%s]" % (comp, name),
              side_flags(row, side, log_file), case,
              K.Settings(run.client, run.pin, run.seconds, run.tmp))
    r = dict(k["raw"])
    r.update(ok=k["ok"], value=k["value"], cpu_per_unit=k["cpu_per_unit"],
             client_bound=k["client_bound"], server_cpus=k["server_cpus"],
             client_cpus=k["client_cpus"], repetition=rep, side=side,
             component=comp, case=case["name"])
    if not k["ok"]:
        r["error"] = k["error"] or "failed"
    if comp == "logger":
        check_log(r, log_file)
        row["log_bytes"].append(r["log_bytes"])
    return r


def add_run(row: Row, r: dict[str, Any], side: str) -> Optional[float]:
    """Files the record under its side; its metric, None when the run
    failed."""
    row["records"].append(r)
    v = r["value"] if r.get("ok") else None
    row[side + "_runs"].append(v)
    if v and r.get("cpu_per_unit"):
        # Server CPU seconds per unit of work (MiB, message or request):
        # tells the sides apart where the client, not the server, set the
        # pace.
        row[side + "_cpu"].append(r["cpu_per_unit"])
    row["client_bound"] |= bool(r.get("client_bound"))
    return v


# --- one case ----------------------------------------------------------------

def new_row(comp: str, case: Case, e: Entry) -> Row:
    kind = K.kind_of(case)
    key, unit = kind.metric, kind.unit
    control = CONTROLS[comp]
    row: Row = dict(
        component=comp, case=case["name"], mode=case["mode"],
        protocol=case["protocol"], server_threads=case["threads"],
        client_threads=case["client_threads"], blocksize=case["block"],
        sessions=case["sessions"], flags=case["flags"],
        winner=e["winner"], baseline=e["baseline"], control=control.label,
        control_why=control.why,
        micro_ratio=e["micro_ratio"], micro_source=e["source"],
        micro_cv=e["cv"], micro_metric=e.get("metric"),
        control_micro_ratio=None if control.slowed else
        (e.get("micro_ratios") or {}).get(control.name),
        origin=e["origin"], metric=key, unit=unit, metric_used=key,
        workload=case.get("kind", "pingpong"),
        higher_is_better=kind.higher_is_better, work=kind.work,
        baseline_median=None, winner_median=None, control_median=None,
        e2e_ratio=None, e2e=None, control_e2e=None, mde=None, reason=None,
        cpu_ratio=None, client_bound=False, log_bytes=[], records=[])
    for side in SIDES:
        row[side + "_flags"] = side_flags(row, side, "FILE")
        row[side + "_runs"] = []
        row[side + "_cpu"] = []
    return row


def set_outcome(row: Row, outcome: Outcome) -> None:
    row["outcome"] = outcome.value
    row["verdict"] = verdict(outcome, row["micro_ratio"])


def rotation(rep: int) -> tuple[str, ...]:
    """The sides' order in repetition rep: BWC, WCB, CBW, BWC, ..."""
    k = rep % len(SIDES)
    return SIDES[k:] + SIDES[:k]


def run_rounds(run: Runner, row: Row, case: Case) -> Optional[str]:
    """The rotated rounds; the first failure's reason, or None. One failure
    stops the case: its rounds would mean nothing."""
    error = None
    for rep in range(run.repetitions):
        for side in rotation(rep):
            r = run_side(run, row, case, side, rep)
            v = add_run(row, r, side)
            run.progress.done += 1
            run.progress.say("[validate %d/%d] %-10s %-15s %-9s %-26s %s" % (
                run.progress.done, run.progress.total, row["component"],
                case["name"], side, row[side],
                "%.1f %s" % (v, row["unit"]) if v is not None else
                "FAILED %s" % r.get("error", "")))
            if v is None and error is None:
                error = "%s %s: %s" % (side, row[side], r.get("error", ""))
        if error:
            break
    return error


def decide_row(row: Row) -> None:
    """The medians, ratios and outcome from the row's clean runs: on the
    throughput, or on the server CPU per unit when the client was at its
    ceiling in some run."""
    for side in SIDES:
        row[side + "_median"] = statistics.median(row[side + "_runs"])
    use_cpu = row["client_bound"] and all(
        len(row[s + "_cpu"]) == len(row[s + "_runs"]) for s in SIDES)
    if use_cpu:
        row["metric_used"] = "server_cpu_s_per_" + row["work"]
        d = decide(row["baseline_cpu"], row["winner_cpu"],
                   row["control_cpu"], higher_is_better=False)
    else:
        d = decide(row["baseline_runs"], row["winner_runs"],
                   row["control_runs"], row["higher_is_better"])
    row["e2e"] = d.winner.as_dict() if d.winner else None
    row["control_e2e"] = d.control.as_dict() if d.control else None
    row["e2e_ratio"] = d.winner.ratio if d.winner else None
    row["mde"] = None if math.isinf(d.mde) else d.mde
    row["reason"] = d.reason
    if row["baseline_cpu"] and row["winner_cpu"]:
        # Winner / baseline: < 1 is a cheaper winner.
        row["cpu_ratio"] = (statistics.median(row["winner_cpu"]) /
                            statistics.median(row["baseline_cpu"]))
    set_outcome(row, d.outcome)


def run_case(run: Runner, row: Row, case: Case) -> None:
    error = run_rounds(run, row, case)
    if error:
        set_outcome(row, Outcome.ERROR)
        row["error"] = error
        # The runs the failure skipped, counted as done.
        run.progress.done += run.repetitions * len(SIDES) - \
            len(row["records"])
    else:
        decide_row(row)
    row["sentence"] = sentence(row)


# --- the validation ----------------------------------------------------------

def winners_origin(entries: dict[str, Entry],
                   components: Sequence[str]) -> str:
    origins = {entries[c]["origin"] for c in components}
    return ("winners.json" if origins == {"winners.json"} else
            "defaults" if origins == {"default"} else
            "winners.json, defaults for the rest")


def to_run(entries: dict[str, Entry], components: Sequence[str]
           ) -> list[tuple[str, Case, Entry]]:
    """(component, case, entry) in order; one case (marked nothing to
    validate) for a component whose winner is its baseline."""
    out = []
    for comp in components:
        e = entries[comp]
        same = e["winner"] == e["baseline"]
        for case in CASES[comp][:1] if same else CASES[comp]:
            out.append((comp, case, e))
    return out


def mark_interrupted(result: dict[str, Any]) -> None:
    for row in result["rows"]:
        if "verdict" not in row:
            set_outcome(row, Outcome.ERROR)
            row["error"] = "interrupted"
            row["sentence"] = sentence(row)


def run_validation(client: str, prof_name: str, pin: str, winners_path: str,
                   log_parent: str, seconds: float = 0.0,
                   repetitions: int = 0,
                   components: Sequence[str] = COMPONENTS,
                   out: IO[str] = sys.stdout) -> dict[str, Any]:
    """Runs every component's cases (our server, procs.SERVER, against
    `client`); returns the "validation" dict. seconds, repetitions: the
    profile's when 0. On KeyboardInterrupt it returns what ran, with
    "interrupted": true."""
    vp = dict(PROFILES[prof_name])
    if seconds > 0:
        vp["seconds"] = seconds
    if repetitions > 0:
        vp["repetitions"] = repetitions
    entries, notes = load_winners(winners_path)
    result: dict[str, Any] = dict(
        winners_file=winners_path,
        winners=winners_origin(entries, components), notes=notes,
        repetitions=vp["repetitions"], seconds_per_run=vp["seconds"],
        alpha=VS.ALPHA, rows=[], complete=False)
    cases = to_run(entries, components)
    total = sum(1 for _, _, e in cases if e["winner"] != e["baseline"]) \
        * len(SIDES) * vp["repetitions"]
    progress = Progress(total, out)
    progress.say("\nping-pong validation, profile %s: %d repetition(s) of "
                 "baseline, winner and positive control rotated, %.1f s per "
                 "run; winners from %s" % (prof_name, vp["repetitions"],
                                           vp["seconds"], result["winners"]))
    for n in notes:
        progress.say("note: " + n)

    os.makedirs(log_parent, exist_ok=True)
    log_dir = tempfile.mkdtemp(prefix=".validate-logs-", dir=log_parent)
    try:
        with tempfile.TemporaryDirectory(prefix="pingpong-validate-") as tmp:
            run = Runner(client, pin, vp["repetitions"], vp["seconds"], tmp,
                         log_dir, progress)
            for comp, case, e in cases:
                row = new_row(comp, case, e)
                result["rows"].append(row)
                if e["winner"] == e["baseline"]:
                    row.update(case="-", mode="-")
                    set_outcome(row, Outcome.NOTHING_TO_VALIDATE)
                    row["sentence"] = sentence(row)
                else:
                    run_case(run, row, case)
        result["complete"] = True
    except KeyboardInterrupt:
        result["interrupted"] = True
        progress.say("\nvalidation: interrupted; reporting what ran")
        mark_interrupted(result)
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    return result
