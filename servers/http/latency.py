# -----------------------------------------------------------------------------
# servers/http/latency.py
# -----------------------------------------------------------------------------
#
# The HTTP benchmark's latency at set rates (servers/pingpong/
# servers/driver/latency_sweep.py): after wrk has measured each server's
# capacity, the open-loop generator sends GET /collect?v=1 at 75 and 90% of
# the slowest server's capacity (wrk's requests/s at -c50, the median over the
# repetitions) to ours over epoll and io_uring, nginx, Beast and evhttp,
# each started fresh per run and pinned as wrk's runs are, and the floor
# (a server that answers at once); each server's p99 is read over nginx's,
# paired by round. The generator sends as HTTP clients do, one request in
# flight per connection (MODE, --mode=serial); the block's "mode" says so.
#
# Layer 2 of servers/http: run below it, with servers.driver's procs,
# latency_point and latency_sweep.

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from servers.http import run as http_run
from servers.driver import latency_point
from servers.driver import latency_sweep
from servers.driver import procs

SERVERS = ("serverkit", "serverkit-uring", "nginx", "beast", "evhttp")
REFERENCE = "nginx"
CONNECTIONS = 50
# HTTP clients do not pipeline: one request in flight per connection, the
# next at its time or at the reply (wrk2's method); "pipelined" the option.
MODE = "serial"


def capacity(points: Sequence[dict[str, Any]], connections: int
             ) -> dict[str, float]:
    """Each server's median requests/s over its clean wrk points at
    `connections` (at the nearest count run, where that one was not)."""
    return latency_point.capacity(points, "connections", connections,
                                  "requests_per_s")[1]


def settings(rounds: int, seconds: float, margin: float,
             connections: int, wrk_connections: Sequence[int],
             mode: str = MODE,
             fractions: tuple[float, ...] = latency_point.FRACTIONS,
             fifo: int = 0, sched_note: str = ""
             ) -> latency_point.Settings:
    at = latency_point.nearest(wrk_connections, connections)
    return latency_point.Settings(
        workload="http", unit="requests/s", reference=REFERENCE,
        protocol="http", connections=connections, rounds=rounds,
        seconds=seconds, warmup_s=min(0.2, seconds),
        capacity_source="wrk -c%d requests/s, median over the "
                        "repetitions" % at,
        path=http_run.PATH, margin=margin, mode=mode, fractions=fractions,
        fifo=fifo, sched_note=sched_note)


def chosen(names: Sequence[str], specs: Sequence[http_run.ServerSpec]
           ) -> list[http_run.ServerSpec]:
    """The specs among SERVERS that were run, in SERVERS order; nginx
    first where it ran (the reference)."""
    have = {s.name: s for s in specs}
    return [have[n] for n in SERVERS if n in have and n in names]


def run(st: latency_point.Settings, specs: Sequence[http_run.ServerSpec],
        points: Sequence[dict[str, Any]], threads: int,
        pin: http_run.Pinning, tmp: str, log: Callable[[str], None]
        ) -> Optional[dict[str, Any]]:
    """The sweep over `specs` (None, said in the log, when none has a
    capacity or the reference did not run)."""
    names = [s.name for s in specs]
    if REFERENCE not in names:
        log("latency at set rates: skipped (%s, the reference, is not "
            "among the servers)" % REFERENCE)
        return None
    cap = capacity(points, st.connections)
    if not any(cap.get(n) for n in names):
        log("latency at set rates: skipped (no server has a clean wrk "
            "point to take its capacity from)")
        return None
    tools = latency_sweep.Tools(procs.resolve(latency_point.LOADGEN),
                                procs.resolve(latency_point.FLOOR_SERVER),
                                set(pin.wrk_cpus or ()) or None,
                                set(pin.server_cpus or ()) or None, threads)
    by = {s.name: s for s in specs}

    def start(name: str, pointdir: str
              ) -> tuple[Any, int, str]:
        return http_run.start_server(by[name], threads, pin, pointdir)

    return latency_sweep.run(st, names, cap, start, tools, tmp, log)
