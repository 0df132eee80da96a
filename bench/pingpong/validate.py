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
# baseline and with the winner swapped in, everything else equal, in the mode
# where that component matters (CASES): the task queue with every reply posted
# through a worker loop (--reply_via_queue, two cross-thread posts per
# message), the buffer in the plain echo at 16 KiB and 4 KiB blocks, the
# logger writing one line per message to a file on disk (under the results
# directory, deleted after each run). Baseline and winner alternate (AB, BA,
# AB, ...), so each repetition gives one pair of neighbouring runs.
#
# Verdict. e2e ratio = median(winner) / median(baseline) of MiB/s (messages/s
# for the header protocol); >1 means the winner is faster. Noise = half the
# range of the per-pair ratios winner_i / baseline_i, never below NOISE_FLOOR.
# "held": e2e ratio > 1 + noise; "refuted": e2e ratio < 1 - noise; else "no
# difference" (the row's exact "outcome": held, refuted, no-difference;
# bench/pick/outcome.py). The micro ratio is printed as bench:pick reports it
# (the winner against the baseline in its own benchmark group's metric).
# Beside it, the cpu ratio: the server's CPU seconds per MiB, winner /
# baseline, which still tells the two apart where the client sets the pace.

from __future__ import annotations

import dataclasses
import os
import shutil
import statistics
import sys
import tempfile
from typing import IO, Any, Optional, Sequence

import procs
from validate_cases import (CASES, COMPONENTS, NOISE_FLOOR, PROFILES,
                            Outcome, component_flags, load_winners,
                            metric_of, verdict)
from validate_report import sentence

Row = dict[str, Any]
Entry = dict[str, Any]
Case = dict[str, Any]

SIDES = ("baseline", "winner")


def decide(base_vals: Sequence[float], win_vals: Sequence[float]
           ) -> tuple[Optional[float], Optional[float], list[float],
                      Outcome]:
    """(e2e ratio, noise, pair ratios, outcome) from paired repetitions."""
    pairs = [w / b for b, w in zip(base_vals, win_vals) if b and w]
    if not pairs:
        return None, None, [], Outcome.ERROR
    ratio = statistics.median(win_vals) / statistics.median(base_vals)
    noise = max(NOISE_FLOOR, (max(pairs) - min(pairs)) / 2)
    if ratio > 1 + noise:
        outcome = Outcome.HELD
    elif ratio < 1 - noise:
        outcome = Outcome.REFUTED
    else:
        outcome = Outcome.NO_DIFFERENCE
    return ratio, noise, pairs, outcome


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


def point_of(case: Case, seconds: float) -> procs.Point:
    return procs.Point(case["protocol"], case["threads"],
                       case["client_threads"], case["block"],
                       case["sessions"], seconds=seconds, count=1024,
                       limit=60.0)


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


def run_side(run: Runner, row: Row, case: Case, side: str,
             rep: int) -> dict[str, Any]:
    """Our server with the row's baseline or winner, one run; the record."""
    comp, name = row["component"], row[side]
    log_file = os.path.join(run.log_dir, "%s-%s.log" % (comp, side))
    server = procs.Server("serverkit[%s=%s]" % (comp, name), procs.SERVER,
                          component_flags(comp, name, log_file) +
                          case["flags"])
    r = procs.run_point(server, run.client, run.tmp,
                        point_of(case, run.seconds), run.pin)
    r.update(repetition=rep, side=side, component=comp, case=case["name"])
    if comp == "logger":
        check_log(r, log_file)
        row["log_bytes"].append(r["log_bytes"])
    return r


def add_run(row: Row, r: dict[str, Any], side: str) -> Optional[float]:
    """Files the record under its side; its throughput, None when the run
    failed."""
    row["records"].append(r)
    v = r.get(row["metric"]) if r.get("ok") else None
    row[side + "_runs"].append(v)
    if v and r.get("seconds") and r.get("server_cpu_s"):
        # Server CPU seconds per unit of work (MiB or message): tells the
        # two apart where the client, not the server, set the pace.
        row[side + "_cpu"].append(r["server_cpu_s"] / (v * r["seconds"]))
    row["client_bound"] |= bool(r.get("client_bound"))
    return v


# --- one case ----------------------------------------------------------------

def new_row(comp: str, case: Case, e: Entry) -> Row:
    key, unit = metric_of(case["protocol"])
    return dict(component=comp, case=case["name"], mode=case["mode"],
                protocol=case["protocol"], server_threads=case["threads"],
                client_threads=case["client_threads"],
                blocksize=case["block"], sessions=case["sessions"],
                flags=case["flags"],
                baseline_flags=component_flags(
                    comp, e["baseline"], "FILE") + case["flags"],
                winner_flags=component_flags(
                    comp, e["winner"], "FILE") + case["flags"],
                winner=e["winner"], baseline=e["baseline"],
                micro_ratio=e["micro_ratio"], micro_source=e["source"],
                micro_cv=e["cv"], micro_metric=e.get("metric"),
                origin=e["origin"], metric=key, unit=unit,
                baseline_runs=[], winner_runs=[], baseline_median=None,
                winner_median=None, e2e_ratio=None, noise=None,
                pair_ratios=[], baseline_cpu=[], winner_cpu=[],
                cpu_ratio=None, client_bound=False, log_bytes=[],
                records=[])


def set_outcome(row: Row, outcome: Outcome) -> None:
    row["outcome"] = outcome.value
    row["verdict"] = verdict(outcome, row["micro_ratio"])


def run_pairs(run: Runner, row: Row, case: Case) -> Optional[str]:
    """The alternating pairs (AB, BA, ...); the first failure's reason, or
    None. One failure stops the case: its pairs would mean nothing."""
    error = None
    for rep in range(run.repetitions):
        for side in SIDES[::-1] if rep % 2 else SIDES:
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
    """The ratios, medians and outcome from the row's clean runs."""
    b, w = row["baseline_runs"], row["winner_runs"]
    row["baseline_median"] = statistics.median(b)
    row["winner_median"] = statistics.median(w)
    (row["e2e_ratio"], row["noise"], row["pair_ratios"],
     outcome) = decide(b, w)
    if row["baseline_cpu"] and row["winner_cpu"]:
        row["cpu_ratio"] = (statistics.median(row["winner_cpu"]) /
                            statistics.median(row["baseline_cpu"]))
    set_outcome(row, outcome)


def run_case(run: Runner, row: Row, case: Case) -> None:
    error = run_pairs(run, row, case)
    if error:
        set_outcome(row, Outcome.ERROR)
        row["error"] = error
        # The runs the failure skipped, counted as done.
        run.progress.done += run.repetitions * 2 - len(row["records"])
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
        noise_floor=NOISE_FLOOR, rows=[], complete=False)
    cases = to_run(entries, components)
    total = sum(1 for _, _, e in cases if e["winner"] != e["baseline"]) \
        * 2 * vp["repetitions"]
    progress = Progress(total, out)
    progress.say("\nping-pong validation, profile %s: %d repetition(s) of "
                 "baseline and winner alternated, %.1f s per run; winners "
                 "from %s" % (prof_name, vp["repetitions"], vp["seconds"],
                              result["winners"]))
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
