# -----------------------------------------------------------------------------
# servers/http/tables.py
# -----------------------------------------------------------------------------
#
# The HTTP benchmark's summary, from the points of results/http.json (dicts,
# so it works on any file the driver wrote): per connection count and
# server, the medians over repetitions of requests/s, p50 and p99
# latency, server CPU per request and per second, the most CPU that neither
# the server nor wrk used (other work on the machine), the ratios of the
# median requests/s and CPU per request to nginx's with the same access-log
# setting, and how many
# repetitions had wrk at its CPU ceiling (the point may then measure wrk,
# not the server).
#
# `pool_table`: the pool route's table (GET /work with a thread pool).
#
# Then the paired summary (`paired`, printed with servers.driver.side_by_side's
# summary_lines): each server over its nginx (requests/s, p99 latency, CPU
# per request) over every (connections, repetition) at once, with its exact
# 95% interval (servers/driver/side_by_side.py) and what that interval says
# against the margin (--margin; less CPU, a lower p99 or more requests/s
# is ahead).
#
# Standard library only, and servers.driver's side_by_side and tables (it
# reads the points run.PointRecord.to_json writes).

from __future__ import annotations

import dataclasses
import statistics
from typing import Any, Optional

from servers.driver import side_by_side
from servers.driver import tables as driver_tables

# The order of the table's rows.
SERVER_ORDER = ["serverkit", "serverkit-uring", "nginx", "beast", "evhttp",
                "serverkit-log", "nginx-log"]


@dataclasses.dataclass(frozen=True)
class Row:
    server: str
    access_log: bool
    connections: int
    runs: int            # repetitions
    ok_runs: int
    client_bound_runs: int
    requests_per_s: Optional[float]   # medians over the ok repetitions
    p50_ms: Optional[float]
    p99_ms: Optional[float]
    cpu_us_per_request: Optional[float]
    server_util: Optional[float]      # server CPU seconds per second
    other_util: Optional[float]       # other work's CPU s per s, the most
    vs_nginx: Optional[float]         # requests_per_s / nginx's
    cpu_vs_nginx: Optional[float]     # cpu_us_per_request / nginx's


def nginx_peer(server: str, access_log: bool) -> str:
    """The nginx variant a server is compared with."""
    return "nginx-log" if access_log else "nginx"


def _order(server: str) -> tuple[int, str]:
    return (SERVER_ORDER.index(server) if server in SERVER_ORDER
            else len(SERVER_ORDER), server)


def rows(points: list[dict[str, Any]]) -> list[Row]:
    """One row per (connections, server), ordered by connections then
    SERVER_ORDER."""
    groups = driver_tables.group(points,
                                 lambda p: (p["connections"], p["server"]))
    medians: dict[tuple[int, str], Optional[float]] = {}
    cpus: dict[tuple[int, str], Optional[float]] = {}
    for key, ps in groups.items():
        medians[key] = driver_tables.median(p["requests_per_s"] for p in ps
                                            if p["ok"])
        cpus[key] = driver_tables.median(p["server_cpu_us_per_request"]
                                         for p in ps if p["ok"])
    out = []
    for (conns, server), ps in sorted(
            groups.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]))):
        ok = [p for p in ps if p["ok"]]
        access_log = bool(ps[0]["access_log"])
        rps = medians[(conns, server)]
        peer = (conns, nginx_peer(server, access_log))
        ref = medians.get(peer)
        cpu, cpu_ref = cpus[(conns, server)], cpus.get(peer)
        others = [p["other_cpu_s"] / p["seconds"] for p in ok
                  if p["seconds"] and "other_cpu_s" in p]
        out.append(Row(
            server=server, access_log=access_log, connections=conns,
            runs=len(ps), ok_runs=len(ok),
            client_bound_runs=sum(1 for p in ps if p.get("client_bound")),
            requests_per_s=rps,
            p50_ms=driver_tables.median(p["latency_ms"]["p50"] for p in ok),
            p99_ms=driver_tables.median(p["latency_ms"]["p99"] for p in ok),
            cpu_us_per_request=cpu,
            server_util=driver_tables.median(p["server_cpu_s"] / p["seconds"]
                                             for p in ok if p["seconds"]),
            other_util=max(others) if others else None,
            vs_nginx=(rps / ref if rps is not None and ref else None),
            cpu_vs_nginx=(cpu / cpu_ref if cpu is not None and cpu_ref
                          else None)))
    return out


ROW = "%-15s %-4s %10s %8s %7s %7s %10s %8s %7s %5s %5s %9s"


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else "%.0f%%" % (100 * x)


def table(rs: list[Row], connections: int, header: str) -> str:
    """The text table of one connection count."""
    lines = [header,
             ROW % (
                 "server", "log", "req/s", "vs nginx", "p50 ms", "p99 ms",
                 "cpu us/req", "vs nginx", "srv cpu", "other", "ok",
                 "wrk-bound")]
    for r in rs:
        if r.connections != connections:
            continue
        lines.append(ROW % (
            r.server, "on" if r.access_log else "off",
            driver_tables.fmt(r.requests_per_s, ",.0f"),
            driver_tables.fmt_ratio(r.vs_nginx),
            driver_tables.fmt(r.p50_ms, ".3f"),
            driver_tables.fmt(r.p99_ms, ".3f"),
            driver_tables.fmt(r.cpu_us_per_request, ".2f"),
            driver_tables.fmt_ratio(r.cpu_vs_nginx),
            _pct(r.server_util), _pct(r.other_util),
            "%d/%d" % (r.ok_runs, r.runs),
            "%d/%d" % (r.client_bound_runs, r.runs)))
    return "\n".join(lines)


def tables(points: list[dict[str, Any]], context: dict[str, Any]) -> str:
    """Every connection count's table, with the run's shape in a header."""
    rs = rows(points)
    out = []
    for conns in sorted({r.connections for r in rs}):
        wrk_threads = context.get("wrk_threads", 1)
        header = ("wrk -t%s -c%d, %s s x %s repetitions, %s; medians over "
                  "ok repetitions; vs nginx: same access-log setting; "
                  "srv cpu: the server's CPU seconds per second; other: "
                  "the most CPU seconds per second all else used (at "
                  "least; interrupts excluded); "
                  "wrk-bound: wrk at >= 90%% of its core" % (
                      wrk_threads, conns, context.get("seconds_per_point"),
                      context.get("repetitions"), context.get("pin")))
        out.append(table(rs, conns, header))
    return "\n\n".join(out)


def failures(points: list[dict[str, Any]]) -> list[str]:
    """One line per failed point."""
    return ["%s -c%d rep %d: %s" % (p["server"], p["connections"],
                                    p["repetition"], p.get("error", "?"))
            for p in points if not p["ok"]]


def pool_table(points: list[dict[str, Any]], heading: str) -> list[str]:
    """The pool route: medians per server over its ok runs, and the median
    of the repetitions' ratios of requests/s to the mutex pool's (each
    ratio from back-to-back runs). nginx has no such handler."""
    ok = [p for p in points if p["ok"]]
    ref = "serverkit-pool-mutex"
    lines = [heading, "%-32s %10s %8s %8s %11s %9s" % (
        "server", "req/s", "p50 ms", "p99 ms", "CPU us/req", "vs mutex")]
    for name in dict.fromkeys(p["server"] for p in points):
        mine = [p for p in ok if p["server"] == name]
        if not mine:
            lines.append("%-32s no clean run" % name)
            continue
        ratios = [p["requests_per_s"] / r["requests_per_s"]
                  for p in mine for r in ok
                  if r["server"] == ref and r["repetition"] == p["repetition"]
                  and r["requests_per_s"] > 0]
        lines.append("%-32s %10s %8.3f %8.3f %11.2f %9s" % (
            name,
            format(statistics.median(p["requests_per_s"] for p in mine),
                   ",.0f"),
            statistics.median(p["latency_ms"]["p50"] for p in mine),
            statistics.median(p["latency_ms"]["p99"] for p in mine),
            statistics.median(p["server_cpu_us_per_request"] for p in mine),
            "%.3fx" % statistics.median(ratios) if ratios else "-"))
    lines.append("nginx: not comparable (no pool handler)")
    return lines


def _value(p: side_by_side.Record, key: str) -> Optional[float]:
    v = p.get("latency_ms", {}).get("p99") if key == "p99_ms" else p.get(key)
    return float(v) if isinstance(v, (int, float)) else None


# The paired summary's metrics: (key, label); "p99_ms" is latency_ms.p99.
# CPU and p99 are better lower.
PAIRED = driver_tables.Paired(
    metrics=(("server_cpu_us_per_request", "CPU us/request"),
             ("p99_ms", "p99 latency"),
             ("requests_per_s", "requests/s")),
    lower_better=frozenset({"server_cpu_us_per_request", "p99_ms"}),
    point=lambda p: (p["connections"], p["repetition"]), value=_value,
    intro="paired over every (connections, repetition): A/B as the "
    "Hodges-Lehmann estimate [exact 95% interval], signed-rank p, n "
    "ratios; wrk-free leaves out the repetitions wrk bound",
    bound="wrk-free")


def paired(points: list[dict[str, Any]], margin: float = side_by_side.MARGIN
           ) -> list[side_by_side.SideBySide]:
    """Each server over its nginx on each metric, paired by (connections,
    repetition), at every clean point and at the ones wrk did not bound,
    read against `margin`."""
    present = {p["server"]: bool(p["access_log"]) for p in points}
    pairs = [(a, nginx_peer(a, present[a]))
             for a in sorted(present, key=_order)]
    return PAIRED.compare(points, [(a, b) for a, b in pairs
                                   if a != b and b in present], margin)
