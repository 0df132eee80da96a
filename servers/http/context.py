# -----------------------------------------------------------------------------
# servers/http/context.py
# -----------------------------------------------------------------------------
#
# What a run of the HTTP benchmark is and says about itself: the profiles
# (connection counts, wrk's repetitions and seconds, the latency sweep's
# rounds and seconds), the JSON's "context" (the machine, the pinning, each
# server's command line) and the notes printed and kept with the results.
#
# Layer 2 of servers/http: run and nginx below it.

from __future__ import annotations

import argparse
import dataclasses
import os
from typing import Any

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
    "default": Profile((50, 200), 3.0, 3, 6, 0.5),
    "full": Profile((50, 200), 15.0, 5, 10, 2.0),
}


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
