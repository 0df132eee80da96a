# -----------------------------------------------------------------------------
# servers/http/context.py
# -----------------------------------------------------------------------------
#
# What a run of the HTTP benchmark is and says about itself: the profiles
# (connection counts, wrk's repetitions and seconds, the latency sweep's
# rounds and seconds), the JSON's "context" (the machine, the pinning, each
# server's command line) and the notes printed and kept with the results.
# Also the pool route's servers: ours on GET /work with --pool=mutex and
# with the reactor's pool choice (reactor.thread_pool in winners.json).
#
# Layer 2 of servers/http: run and nginx below it.

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from typing import Any, Optional

from servers.http import nginx as http_nginx
from servers.http import run as http_run
from servers.http.run import ServerSpec


@dataclasses.dataclass(frozen=True)
class Profile:
    connections: tuple[int, ...]
    seconds: float
    repetitions: int
    latency_rounds: int
    latency_seconds: float


PROFILES = {
    "smoke": Profile((50,), 1.0, 1, 1, 0.3),
    "default": Profile((50, 200), 3.0, 3, 12, 0.5),
    "full": Profile((50, 200), 15.0, 5, 12, 2.0),
}

# The pool route: GET /work, 20 us of CPU per request on a pool of one
# worker, at -c50; per profile its repetitions and seconds per run.
POOL_PATH = "/work"
POOL_CONNECTIONS = 50
POOL_FLAGS = ("--pool_threads=1", "--work_ns=20000")
POOL_PLANS = {"smoke": (1, 1.0), "default": (2, 3.0), "full": (3, 10.0)}
POOL_REFERENCE = "mutex"


def reactor_pool(winners: str) -> tuple[Optional[str], str]:
    """(the pool bench:pick chose for the server, or None; where from)."""
    try:
        with open(winners) as f:
            entry = json.load(f).get("reactor", {}).get("thread_pool")
    except (OSError, ValueError) as e:
        return None, "no reactor choice (%s)" % e
    if not isinstance(entry, dict) or not entry.get("winner"):
        return None, "no reactor choice (%s has no reactor.thread_pool)" \
            % os.path.basename(winners)
    return str(entry["winner"]), "reactor.thread_pool of winners.json"


def pool_specs(server: str, flags: list[str],
               choice: Optional[str]) -> list[ServerSpec]:
    """Ours with the reference pool, then with the choice if it differs."""
    pools = [POOL_REFERENCE] + ([choice] if choice and
                                choice != POOL_REFERENCE else [])
    return [ServerSpec("serverkit-pool-" + p, "binary", server,
                       tuple(flags) + ("--pool=" + p,) + POOL_FLAGS, False)
            for p in pools]


def context(args: argparse.Namespace, prof: Profile,
            specs: list[ServerSpec], pin: http_run.Pinning,
            cores: list[int]) -> dict[str, Any]:
    return dict(
        profile=args.profile, cores=len(cores), kernel=os.uname().release,
        loadavg_at_start=[round(x, 2) for x in os.getloadavg()],
        pin=pin.describe(), seconds_per_point=prof.seconds,
        repetitions=prof.repetitions, wrk_threads=args.wrk_threads,
        connections=list(prof.connections), threads=args.threads,
        margin=args.margin,
        nginx_version=http_nginx.version(args.nginx)
        if any(s.kind == "nginx" for s in specs) else "",
        # What nginx ran with (reuseport, worker_cpu_affinity): nginx.py.
        nginx_settings=http_nginx.settings(
            args.threads, sorted(pin.server_cpus or ()))
        if any(s.kind == "nginx" for s in specs) else {},
        body=http_run.BODY,
        servers=[dict(name=s.name, path=s.path, flags=flags_of(s),
                      access_log=s.access_log) for s in specs])


def flags_of(s: ServerSpec) -> list[str]:
    """A server's flags as the context shows them (per-point paths as
    <point dir>)."""
    if s.kind == "nginx":
        d = "<point dir>"
        return ["-p", d, "-e", d + "/error.log", "-c", d + "/nginx.conf",
                "-g", "daemon off;"]
    return list(s.flags) + (["--log_file=<point dir>/access.log"]
                            if s.log_file_flag else [])


def notes(pin: http_run.Pinning, specs: list[ServerSpec]) -> list[str]:
    out = []
    if pin.pinned:
        out.append("pinned: %s (disjoint cores)" % pin.describe())
    else:
        out.append("not pinned: the server's threads and wrk's do not fit "
                   "on disjoint cores")
    if any(s.kind == "nginx" for s in specs):
        out.append("nginx runs with keepalive_requests %d (the other "
                   "servers never close a keep-alive connection)"
                   % http_nginx.KEEPALIVE_REQUESTS)
    if any(s.name == "serverkit-log" for s in specs):
        out.append("serverkit-log: each access-log line is the logger's "
                   "own prefix (time, level, thread, source) followed by "
                   "nginx's combined format; nginx-log: combined format")
    out.append("server CPU: utime + stime of the server's process group "
               "(nginx's workers included) over wrk's run; wrk's CPU from "
               "its rusage; client_bound: wrk >= %d%% of its core"
               % round(100 * http_run.CLIENT_BOUND_UTIL))
    return out
