# -----------------------------------------------------------------------------
# servers/chat/tables.py
# -----------------------------------------------------------------------------
#
# The chat benchmark's results: the JSON document (its keys are what the
# report reads; `problems` checks a document against them) and the table
# printed at the end: per (server threads, clients) the median over the
# repetitions of each server's round_ms p50 (time until all K clients had
# the message), the ratio of each of ours (serverkit, and serverkit-uring
# where it ran) to asio (lower is better), and each
# server's CPU per delivered message. Marks: "c" the load test used >= 90%
# of its core in some repetition (the figure may be the load test's
# ceiling), "!" some repetition failed (the median is over the clean ones).
#
# The document (results/chat.json):
#   {"context": {"profile", "cores", "kernel", "loadavg_at_start",
#                "fd_limit", "pin", "rounds", "message_size", "repetitions",
#                "clients", "threads", "margin",
#                "servers": [{"name", "path", "flags"}]},
#    "notes": [str], "interrupted": bool, "elapsed_s": float,
#    "points": [{"server": "serverkit"|"serverkit-uring"|"asio", "threads",
#                "clients",
#                "rounds", "message_size", "repetition", "ok",
#                "error" (only when not ok),
#                "round_ms": {"p50", "min", "max"},   over the rounds
#                "delivery_us": {"p50", "p99", "max"}, every receipt
#                "server_cpu_s",                 whole load test
#                "server_cpu_rounds_s",          the rounds only
#                "server_cpu_us_per_delivery",   the rounds only
#                "server_cpu_util", "client_cpu_util", "client_bound",
#                "deliveries", "seconds", "connect_seconds",
#                "join_seconds", "join_probes"}]}
#
# Then the paired summary (`paired`, printed with servers.driver.side_by_side's
# summary_lines): each of ours over asio, CPU per delivery and round time,
# over every (threads, clients, repetition) with its 95% interval, and what
# that interval says against the margin (--margin; less CPU, a shorter
# round is ahead). Standard library only, and servers.driver's side_by_side
# and tables; no processes.

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from servers.driver import side_by_side
from servers.driver import tables as driver_tables

OURS = "serverkit"
OURS_URING = "serverkit-uring"  # ours with --backend=uring
PEER = "asio"
# The table's server order; each of ours gets its ratio to the peer.
ORDER = (OURS, OURS_URING, PEER)

Record = dict[str, Any]

CONTEXT_KEYS = ("profile", "cores", "kernel", "loadavg_at_start", "fd_limit",
                "pin", "rounds", "message_size", "repetitions", "servers")
POINT_KEYS = ("server", "threads", "clients", "rounds", "message_size",
              "repetition", "ok", "round_ms", "delivery_us", "server_cpu_s",
              "server_cpu_us_per_delivery", "client_cpu_util",
              "client_bound")


def document(context: dict[str, Any], notes: list[str], interrupted: bool,
             elapsed_s: float, points: list[Record]) -> dict[str, Any]:
    return {"context": context, "notes": notes, "interrupted": interrupted,
            "elapsed_s": round(elapsed_s, 2), "points": points}


def problems(doc: Any) -> list[str]:
    """What is missing or of the wrong type in a results document."""
    out: list[str] = []
    if not isinstance(doc, dict):
        return ["not a JSON object"]
    types: list[tuple[str, type | tuple[type, ...]]] = [
        ("context", dict), ("notes", list), ("interrupted", bool),
        ("elapsed_s", (int, float)), ("points", list)]
    for k, t in types:
        if not isinstance(doc.get(k), t):
            out.append("%s missing or of the wrong type" % k)
    for k in CONTEXT_KEYS:
        if k not in doc.get("context", {}):
            out.append("context.%s missing" % k)
    for i, p in enumerate(doc.get("points", [])):
        missing = [k for k in POINT_KEYS if k not in p]
        if missing:
            out.append("points[%d] lacks %s" % (i, ", ".join(missing)))
        elif not p["ok"] and not p.get("error"):
            out.append("points[%d] failed without an error" % i)
        elif set(p["round_ms"]) != {"p50", "min", "max"} or \
                set(p["delivery_us"]) != {"p50", "p99", "max"}:
            out.append("points[%d] has the wrong percentile keys" % i)
    return out


@dataclasses.dataclass
class Cell:
    """One server at one (threads, clients): medians over its clean
    repetitions."""
    round_ms: Optional[float] = None
    cpu_us: Optional[float] = None
    client_bound: bool = False
    failed: int = 0
    runs: int = 0

    def mark(self) -> str:
        return ("c" if self.client_bound else "") + \
            ("!" if self.failed else "")


@dataclasses.dataclass
class Row:
    threads: int
    clients: int
    cells: dict[str, Cell]

    def ratio(self, name: str = OURS) -> Optional[float]:
        ours, peer = self.cells.get(name), self.cells.get(PEER)
        if not ours or not peer:
            return None
        return driver_tables.ratio(ours.round_ms, peer.round_ms)


def cell_of(points: list[Record]) -> Cell:
    good = [p for p in points if p.get("ok")]
    c = Cell(runs=len(points), failed=len(points) - len(good),
             client_bound=any(p.get("client_bound") for p in points))
    c.round_ms = driver_tables.median(p["round_ms"]["p50"] for p in good)
    c.cpu_us = driver_tables.median(p["server_cpu_us_per_delivery"]
                                    for p in good)
    return c


def rows(points: list[Record]) -> list[Row]:
    """One row per (threads, clients), in order, each server's cell."""
    at = driver_tables.group(points, lambda p: (p["threads"], p["clients"]))
    out = []
    for t, k in sorted(at):
        per = driver_tables.group(at[t, k], lambda p: str(p["server"]))
        out.append(Row(t, k, {n: cell_of(per[n]) for n in sorted(per)}))
    return out


def table(points: list[Record]) -> str:
    """The summary table, one line per (threads, clients): each server's
    round time, each of ours over asio, each server's CPU per message."""
    names = [n for n in ORDER if any(p["server"] == n for p in points)]
    ours = [n for n in names if n != PEER] if PEER in names else []
    widths = [max(12, len(n) + 3) for n in names]
    head = "%7s %7s" % ("threads", "clients")
    head += "".join("  %*s" % (w + 2, n + " ms")
                    for n, w in zip(names, widths))
    head += "".join("  %*s" % (len(n) + 5, n + "/" + PEER) for n in ours)
    cpu_w = [max(16, len(n) + 7) for n in names]
    head += "".join(" %*s" % (w, n + " us/msg") for n, w in zip(names, cpu_w))
    lines = [head, "-" * len(head)]
    for r in rows(points):
        line = "%7d %7d" % (r.threads, r.clients)
        for n, w in zip(names, widths):
            c = r.cells.get(n, Cell())
            line += "  %*s%-2s" % (w, driver_tables.fmt(c.round_ms, ".3f"),
                                   c.mark())
        for n in ours:
            line += "  %*s" % (len(n) + 5, driver_tables.fmt_ratio(r.ratio(n)))
        line += "".join(" %*s" % (w, driver_tables.fmt(
            r.cells.get(n, Cell()).cpu_us, ".3f"))
            for n, w in zip(names, cpu_w))
        lines.append(line)
    return "\n".join(lines)


LEGEND = ("ms: median over repetitions of the round time p50 (until all K "
          "clients had the message); serverkit/asio < 1: ours faster. "
          "us/msg: server CPU per delivered message over the rounds. "
          "c: load test at >= 90% of its core (may be its ceiling); "
          "!: a repetition failed.")


def failures(points: list[Record]) -> list[str]:
    return ["%s threads %d clients %d rep %d: %s" % (
        p["server"], p["threads"], p["clients"], p["repetition"],
        p.get("error", "?")) for p in points if not p.get("ok")]


def _metric(p: side_by_side.Record, key: str) -> Optional[float]:
    v = p.get(key)
    if isinstance(v, dict):
        v = v.get("p50")
    return float(v) if isinstance(v, (int, float)) else None


def _point(p: side_by_side.Record) -> tuple[int, int, int]:
    return (p["threads"], p["clients"], p["repetition"])


# The paired summary: each of ours against asio over every (threads,
# clients, repetition) at once. Within a repetition the servers ran back to
# back at the same point, so their ratio is one sample;
# servers.driver.side_by_side gives the Hodges-Lehmann estimate with its exact
# 95% interval.
# Both metrics: lower is better.
PAIRED = driver_tables.Paired(
    metrics=(("server_cpu_us_per_delivery", "CPU us per delivery"),
             ("round_ms", "round time p50")),
    lower_better=frozenset({"server_cpu_us_per_delivery", "round_ms"}),
    point=_point, value=_metric,
    intro="paired over every (threads, clients, repetition): ours/asio as "
    "the Hodges-Lehmann estimate [exact 95% interval], signed-rank p, n "
    "ratios; server-bound leaves out c",
    bound="server-bound")


def paired_log_ratios(points: list[Record], name: str, key: str,
                      server_bound: bool) -> list[float]:
    """log(ours / asio) of `key` at each (threads, clients, repetition)
    where both ran clean; with server_bound, only where neither load test
    was at its ceiling."""
    return side_by_side.log_ratios(points, name, PEER, _point,
                                   lambda p: _metric(p, key), server_bound)


def paired(points: list[Record], margin: float = side_by_side.MARGIN
           ) -> list[side_by_side.SideBySide]:
    """Each of ours over asio on each metric, at every clean point and at
    the server-bound ones, read against `margin` (the JSON's "paired")."""
    names = [n for n in (OURS, OURS_URING)
             if any(p["server"] == n for p in points)]
    if not any(p["server"] == PEER for p in points):
        return []
    return PAIRED.compare(points, [(n, PEER) for n in names], margin)
