# -----------------------------------------------------------------------------
# validation/metric.py
# -----------------------------------------------------------------------------
#
# A case's rounds read back (rounds.py runs them; the load map reads them
# too): which metric the verdict uses, the per-round log ratios on it, with
# the block each round ran in, and the control's measured cost.

from __future__ import annotations

import math
import statistics
from typing import Any, Optional

from pick.records import RunFigures, ValidationRow


def _cpus(text: Any) -> set[str]:
    return {c for c in str(text or "").split(",") if c}


def runs_of(row: ValidationRow) -> list[RunFigures]:
    return [x for rnd in row.rounds for x in rnd.values() if x]


def metric_choice(row: ValidationRow) -> tuple[bool, str]:
    """(use the server's CPU per unit, why): the throughput only where every
    run had the server and the client on separate cores and the client
    below its CPU ceiling, so that the figure is the server's; where the
    load set the pace (row.paced), the server's CPU, for that reason."""
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
        "server_cpus"] if shared else row.paced or
        "the client reached its CPU ceiling in some run")
    if not have_cpu:
        return False, ("throughput, though %s: no server CPU figure for "
                       "every run" % why)
    return True, "server CPU per %s: %s" % (row.work, why)


def log_ratios(row: ValidationRow, side: str, use_cpu: bool) -> list[float]:
    """Per round, log(side / baseline) on the metric, oriented so that > 0
    is better; rounds without both clean runs are left out."""
    return blocked_log_ratios(row, side, use_cpu)[0]


def blocked_log_ratios(row: ValidationRow, side: str, use_cpu: bool
                       ) -> tuple[list[float], Optional[list[int]]]:
    """log_ratios and the block of each (None: one block)."""
    higher = row.higher_is_better and not use_cpu
    out, keys = [], []
    tags = row.round_blocks
    for i, rnd in enumerate(row.rounds):
        b, x = rnd.get("baseline"), rnd.get(side)
        bv, xv = figure(b, use_cpu), figure(x, use_cpu)
        if not bv or not xv:
            continue
        d = math.log(xv / bv)
        out.append(d if higher else -d)
        keys.append(tags[i] if i < len(tags) else 0)
    return out, (keys if len(set(keys)) > 1 else None)


def figure(x: Optional[RunFigures], use_cpu: bool) -> Optional[float]:
    """A run's figure on the metric: its CPU per unit, or its value."""
    if not x:
        return None
    return x.get("cpu_per_unit") if use_cpu else x.get("value")


def control_measured_ns(row: ValidationRow) -> Optional[float]:
    """The control's measured cost per operation: per round, its server CPU
    per operation less the baseline's; the median over the rounds."""
    diffs = []
    for rnd in row.rounds:
        b, c = rnd.get("baseline") or {}, rnd.get("control") or {}
        bo, bc = b.get("ops"), b.get("server_cpu_s")
        co, cc = c.get("ops"), c.get("server_cpu_s")
        if bo and bc and co and cc:
            diffs.append(1e9 * (cc / co - bc / bo))
    return statistics.median(diffs) if diffs else None
