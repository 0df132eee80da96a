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

Row = dict[str, Any]


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
    return blocked_log_ratios(row, side, use_cpu)[0]


def blocked_log_ratios(row: Row, side: str, use_cpu: bool
                       ) -> tuple[list[float], Optional[list[int]]]:
    """log_ratios and the block of each (None: one block)."""
    key = "cpu_per_unit" if use_cpu else "value"
    higher = row["higher_is_better"] and not use_cpu
    out, keys = [], []
    tags = row.get("round_blocks") or []
    for i, rnd in enumerate(row["rounds"]):
        b, x = rnd.get("baseline"), rnd.get(side)
        if not b or not x or not b.get(key) or not x.get(key):
            continue
        d = math.log(x[key] / b[key])
        out.append(d if higher else -d)
        keys.append(tags[i] if i < len(tags) else 0)
    return out, (keys if len(set(keys)) > 1 else None)


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
