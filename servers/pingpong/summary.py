# -----------------------------------------------------------------------------
# servers/pingpong/summary.py
# -----------------------------------------------------------------------------
#
# The sweep's paired summary (sweep.py prints it after the tables): one
# server against another over every echo point and repetition at once. Two
# runs at the same point and repetition ran back to back, so their ratio
# cancels host states that last longer than a point; the ratios of all the
# points and repetitions are then one sample, summarised by the
# Hodges-Lehmann estimate with its exact 95% interval and signed-rank p
# (servers/driver/side_by_side.py,
# pick/decide/paired.py). That is the
# "median over the points" of a claim like "ours costs 0.9x Asio's CPU per
# MiB", with the noise of the run around it; a single point's ratio from one
# run carries little on a shared host (docs/servers.md).
#
# Pairs: every server against asio, then against libevent, as in the
# tables; when neither ran, every server against the first. Each pair twice:
# every point where both ran clean, and the server-bound points only (neither
# run's client at its ceiling, "c" in the tables). Each interval is then
# read against the margin m (--margin, default 5%;
# servers/driver/side_by_side.py): ahead by more than m, ahead, equivalent
# within ±m, or not told apart, with CPU per MiB turned so that less CPU is
# ahead. Standard library only, servers.driver's side_by_side and tables,
# and pick.decide.paired.

from __future__ import annotations

from typing import Any, Sequence

from servers.driver import side_by_side
from servers.driver import tables as driver_tables
from servers.pingpong import tables
from pick.decide import paired

Record = dict[str, Any]
# (record key, label): the metrics summarised, each its own table.
METRICS = (("server_cpu_ms_per_mib", "CPU ms/MiB (lower: cheaper)"),
           ("mib_per_s", "MiB/s (higher: faster)"))
# The metrics where a lower figure is better.
LOWER_BETTER = {"server_cpu_ms_per_mib"}


def pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    """(server, reference) pairs: the tables' ratio columns, else every
    server against the first."""
    cols = tables.ratio_columns(names)
    if cols or len(names) < 2:
        return cols
    return [(n, names[0]) for n in names[1:]]


def _point(r: side_by_side.Record) -> tuple[Any, ...]:
    return (r["server_threads"], r["client_threads"], r["blocksize"],
            r["sessions"], r.get("repetition", 0))


def log_ratios(echo: Sequence[Record], a: str, b: str, key: str,
               server_bound: bool) -> list[float]:
    """log(A / B) of `key` at each (point, repetition) where both ran
    clean with a positive figure; with server_bound, only where neither
    client was at its ceiling."""
    return side_by_side.log_ratios(echo, a, b, _point, lambda r: r.get(key),
                                   server_bound)


PAIRED = driver_tables.Paired(METRICS, frozenset(LOWER_BETTER), _point,
                              lambda r, k: r.get(k))


def summarise(echo: Sequence[Record], names: Sequence[str],
              margin: float = side_by_side.MARGIN
              ) -> list[side_by_side.SideBySide]:
    """Every pair on every metric, read against `margin`."""
    return PAIRED.compare(echo, pairs(names), margin)


def paired_lines(rows: Sequence[side_by_side.SideBySide],
                 repetitions: int) -> list[str]:
    """One table per metric (the first line blank), what each interval
    says against the margin, and how to read them."""
    if not rows:
        return []
    lines = ["", "paired over every echo point and repetition (%d "
             "repetition(s)): A/B as the Hodges-Lehmann estimate of the "
             "per-point ratios [exact 95%% interval], signed-rank p, n "
             "ratios" % repetitions]
    for key, label in METRICS:
        table = [["A/B", "every clean point", "server-bound points"]]
        table += [["%s/%s" % (r.a, r.b), paired.fmt_rank_paired(r.every),
                   paired.fmt_rank_paired(r.server_bound)]
                  for r in rows if r.metric == key]
        lines += ["", label] + driver_tables.aligned(table, left=1)
    lines += side_by_side.words_lines(rows, {k: label.split(" (")[0]
                                             for k, label in METRICS},
                                      PAIRED.bound)
    lines.append("\nServer-bound points leave out those marked c. Ahead "
                 "or behind: the interval lies on one side of 1; by more "
                 "than m: beyond 1+m; equivalent: inside ±m; not told "
                 "apart: anything else.")
    return lines
