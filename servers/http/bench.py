#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/bench.py
# -----------------------------------------------------------------------------
#
# The HTTP benchmark: REST requests under wrk, our server against nginx.
#
#   bazel run -c opt //bench:http -- [--profile=smoke|default|full]
#       [--out=PATH] [--server_flags='--buffer=ring ...'] [--servers=a,b]
#       [--seconds=S] [--repetitions=N] [--threads=N] [--wrk_threads=N]
#       [--margin=M] [--no_latency] [--latency_rounds=N]
#       [--latency_seconds=S] [--no_pool_route]
#
# Servers, each started fresh for every point on a free loopback port and
# stopped (its whole process group) after it:
#   serverkit       //servers/http:server (the reactor + http_handler), with
#                   --server_flags (the policy flags), no access log
#   serverkit-uring the same over io_uring (--backend=uring; epoll, said on
#                   its stderr, where io_uring cannot be set up)
#   serverkit-log   the same with an access log: --logger=async-double-buffer
#                   (or the --logger of --server_flags) to a file in the
#                   point's temporary directory, nginx's combined format
#   nginx           /usr/sbin/nginx from a generated config in the point's
#                   temporary directory (daemon off, worker_processes =
#                   threads, return 200 with the same body), access_log off
#   nginx-log       the same with access_log <tmp>/access.log combined
#   beast           //servers/http:beast_server (Boost.Beast)
#   evhttp          //servers/http:evhttp_server (libevent's evhttp)
# every one answering GET /collect?v=1 with {"ok":true}.
#
# Load: Debian's wrk, `wrk -t1 -c<C> -d<S>s --latency
# http://127.0.0.1:<port>/collect?v=1` for C in 50 and 200 (the seed's -t4
# -c200 scaled to 2 cores). The server gets --threads (default 1). When the
# server's threads and wrk's fit on disjoint cores, the server is pinned to
# the upper half of the cores and wrk to the lower half (on 2 cores: server
# cpu 1, wrk cpu 0), and the output says so. Repetitions interleave the
# servers: each repetition runs every server once per connection count, and
# each such block of back-to-back runs takes the next order of a Williams
# design (servers.driver.side_by_side.order), so each server follows every
# other equally often.
#
# Then the pool route (unless --no_pool_route or serverkit is not run):
# our GET /work (20 us of CPU on a pool of 1 thread) with --pool=mutex and
# with the reactor's choice from results/winners.json, -c50, run by run in
# turn; nginx has no such handler: "not comparable" (default about 15 s).
#
# Then latency at set rates (latency.py, unless --no_latency): the
# open-loop generator at 75 and 90% of the slowest server's wrk capacity
# against ours (epoll, io_uring), nginx, Beast and evhttp, p99 over nginx's
# paired by round; a run where the generator lagged is void, not a figure.
#
# Profiles (7 servers x connection counts x repetitions x seconds, then 5
# servers and the floor x 2 rates x latency rounds of latency seconds;
# 12 rounds because 6 gave the p99 ratios intervals spanning 10-100x):
#   smoke    -c50 only, 1 repetition of 1 s; 1 latency round of 0.3 s:
#            about 25 s
#   default  -c50 and -c200, 3 repetitions of 3 s; 12 latency rounds of
#            0.5 s: about 4 minutes
#   full     -c50 and -c200, 5 repetitions of 15 s; 12 latency rounds of
#            2 s: about 24 minutes (not measured)
#
# A point is ok when wrk ran clean: exit 0, requests made, no non-2xx
# response and no socket error (and, with an access log, a non-empty log).
# Per point: requests/s, p50 and p99 latency, the server's CPU seconds
# (every process of its group, nginx's workers included, from /proc) and
# CPU us per request, wrk's CPU as a share of its core (from its rusage),
# and client_bound when that share is >= 90%: the figure may then be wrk's
# ceiling, not the server's, and the CPU per request still ranks servers.
# other_cpu_s is the machine's busy CPU (/proc/stat, interrupts excluded)
# that neither the server nor wrk used: other work (a compile) that skews
# the point; a note says when it passed 10% of a core.
#
# Output: one progress line per point, then a table per connection count
# (medians over the ok repetitions; requests/s and CPU per request as
# ratios to nginx with the same access-log setting; the server's CPU share;
# the most CPU other work took; how many repetitions were wrk-bound: where
# wrk is at its ceiling, CPU per request is the figure that still ranks
# the servers), then the paired summary (each server over its nginx across
# every connection count and repetition, with its 95% interval and what
# the interval says against the margin m, --margin, default 5%: ahead by
# more than m, ahead, equivalent within ±m, or not told apart), and JSON
# at $BUILD_WORKSPACE_DIRECTORY/results/http.json (or --out). Exit status 0
# when every point ran clean, 1 when one failed, 2 on a usage or setup
# error, 130 when interrupted (the JSON then holds the points run so far,
# "interrupted": true). Every process
# started is stopped at the end, on failure and on Ctrl-C too.
#
# The modules, in layers (each imports only those below it):
#   wrk, nginx, loops   wrk's command line and output; nginx's config;
#                       our server's per-loop stop lines
#   run                 one point (with servers.driver.procs)
#   context, tables     the profiles, the JSON's context, the notes; the
#                       summary tables and the paired summary (with
#                       servers.driver.side_by_side)
#   latency             latency at set rates (with
#                       servers.driver.latency_point and latency_sweep)
#   bench               this command line

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
from types import FrameType
from typing import Any, Optional

from servers.http import context as http_context
from servers.http import latency as http_latency
from servers.http import nginx as http_nginx
from servers.http import run as http_run
from servers.driver import latency_point
from servers.driver import latency_sweep
from servers.http import tables as http_tables
from servers.driver import procs
from servers.driver import side_by_side
from servers.http.context import PROFILES, Profile as Profile
from servers.http.run import PointSpec, ServerSpec

WRK = "/usr/bin/wrk"
WRK_THREADS = 1
SERVER = "//servers/http:server"
BEAST = "//servers/http:beast_server"
EVHTTP = "//servers/http:evhttp_server"
DEFAULT_LOGGER = "async-double-buffer"
ALL_SERVERS = ["serverkit", "serverkit-uring", "serverkit-log", "nginx",
               "nginx-log", "beast", "evhttp"]


class SetupError(Exception):
    pass


def _on_signal(signum: int, _frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt("signal %d" % signum)


def default_out() -> str:
    return os.path.join(procs.WORKSPACE or os.getcwd(), "results",
                        "http.json")


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="http_bench",
        description="REST requests under wrk: our server, nginx, Beast, "
                    "evhttp (see the header of servers/http/bench.py)")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="default")
    ap.add_argument("--out", default="", help="JSON path (default "
                    "$BUILD_WORKSPACE_DIRECTORY/results/http.json)")
    ap.add_argument("--server_flags", default="",
                    help="policy flags for our server, e.g. "
                         "'--buffer=ring --logger=sync'")
    ap.add_argument("--servers", default=",".join(ALL_SERVERS),
                    help="a comma-separated subset of " +
                         ",".join(ALL_SERVERS))
    ap.add_argument("--seconds", type=float, default=0.0,
                    help="seconds per point (default: the profile's)")
    ap.add_argument("--repetitions", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1,
                    help="server threads / nginx workers (default 1)")
    ap.add_argument("--wrk_threads", type=int, default=WRK_THREADS,
                    help="wrk's threads (default %d)" % WRK_THREADS)
    ap.add_argument("--wrk", default=WRK)
    ap.add_argument("--nginx", default=http_nginx.NGINX)
    ap.add_argument("--margin", type=side_by_side.margin_arg,
                    default=side_by_side.MARGIN,
                    help="the paired summary's margin m as a fraction "
                         "(default %(default)s): ahead by more than m, "
                         "ahead, equivalent within ±m, or not told apart")
    ap.add_argument("--no_pool_route", action="store_true",
                    help="skip GET /work with a thread pool")
    latency_point.add_flags(ap)
    args = ap.parse_args(argv)
    latency_point.check_flags(ap, args)
    return args


def _executable(path: str, what: str) -> str:
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SetupError("%s not found at %s (tools/install_deps.sh "
                         "installs it: apt-get install %s)"
                         % (what, path, "wrk" if what == "wrk"
                            else "nginx-light"))
    return path


def server_specs(args: argparse.Namespace) -> list[ServerSpec]:
    """The servers asked for, in ALL_SERVERS order; raises SetupError."""
    names = [n for n in args.servers.split(",") if n]
    unknown = [n for n in names if n not in ALL_SERVERS]
    if unknown or not names:
        raise SetupError("unknown --servers %s; servers: %s"
                         % (",".join(unknown), ",".join(ALL_SERVERS)))
    flags = shlex.split(args.server_flags)
    plain = [f for f in flags if not f.startswith(("--logger=",
                                                   "--log_file="))]
    logged = [f for f in flags if not f.startswith("--log_file=")]
    if not any(f.startswith("--logger=") for f in logged):
        logged.append("--logger=" + DEFAULT_LOGGER)
    specs = []
    try:
        for n in ALL_SERVERS:
            if n not in names:
                continue
            if n in ("serverkit", "serverkit-uring"):
                extra = ["--backend=uring"] if n == "serverkit-uring" else []
                specs.append(ServerSpec(n, "binary", procs.resolve(SERVER),
                                        tuple(plain + extra), False))
            elif n == "serverkit-log":
                specs.append(ServerSpec(n, "binary", procs.resolve(SERVER),
                                        tuple(logged), True,
                                        log_file_flag=True))
            elif n in ("nginx", "nginx-log"):
                specs.append(ServerSpec(n, "nginx",
                                        _executable(args.nginx, "nginx"),
                                        (), n == "nginx-log"))
            else:
                label = BEAST if n == "beast" else EVHTTP
                specs.append(ServerSpec(n, "binary", procs.resolve(label),
                                        (), False))
    except procs.SweepError as e:
        raise SetupError(str(e)) from e
    return specs


def progress(i: int, n: int, r: http_run.PointRecord) -> str:
    head = "[%d/%d] %-15s -c%-4d rep %d: " % (i, n, r.server, r.connections,
                                              r.repetition)
    if not r.ok and not r.requests:
        return head + "FAILED: " + r.error
    line = head + ("%10s req/s  p50 %.3f ms  p99 %.3f ms  server %.2f us/req"
                   "  wrk %3.0f%%%s" % (
                       format(r.requests_per_s, ",.0f"), r.p50_ms, r.p99_ms,
                       r.server_cpu_us_per_request,
                       100 * r.client_cpu_util,
                       " (client-bound)" if r.client_bound else ""))
    if len(r.loops) > 1:
        replies = [x.replies for x in r.loops]
        polls = sum(x.busy_polls for x in r.loops)
        line += "  loops: replies %d-%d, %.1f per busy poll" % (
            min(replies), max(replies), sum(replies) / max(polls, 1))
    return line + ("" if r.ok else "  FAILED: " + r.error)


def plan(args: argparse.Namespace, prof: Profile, specs: list[ServerSpec]
         ) -> list[tuple[ServerSpec, PointSpec]]:
    """The runs in order: per repetition and connection count (a block),
    every server, in the block's Williams order (side_by_side.order)."""
    out = []
    for rep in range(prof.repetitions):
        for c, conns in enumerate(prof.connections):
            block = rep * len(prof.connections) + c
            for spec in side_by_side.order(specs, block):
                out.append((spec, PointSpec(conns, args.wrk_threads,
                                            prof.seconds, args.threads,
                                            rep)))
    return out


def run(args: argparse.Namespace, prof: Profile, specs: list[ServerSpec],
        pin: http_run.Pinning, tmp: str, data: dict[str, Any]) -> None:
    """Every point, appended to data["points"] as it finishes."""
    todo = plan(args, prof, specs)
    for i, (spec, pt) in enumerate(todo, 1):
        pointdir = os.path.join(tmp, "%03d-%s-c%d" % (i, spec.name,
                                                      pt.connections))
        rec = http_run.run_point(spec, args.wrk, pt, pin, pointdir)
        data["points"].append(rec.to_json())
        print(progress(i, len(todo), rec), flush=True)


def latency(args: argparse.Namespace, prof: Profile,
            specs: list[ServerSpec], pin: http_run.Pinning, tmp: str,
            data: dict[str, Any]) -> None:
    """Latency at set rates, into data["latency"] (and, for the text,
    data["_latency"])."""
    st = http_latency.settings(prof.latency_rounds, prof.latency_seconds,
                               args.margin, http_latency.CONNECTIONS,
                               prof.connections,
                               fractions=args.latency_fractions,
                               fifo=args.latency_fifo,
                               sched_note=args.latency_sched_note)
    chosen = http_latency.chosen(args.servers.split(","), specs)
    b = http_latency.run(st, chosen, data["points"], args.threads, pin,
                         tmp, lambda line: print(line, flush=True))
    if b is not None:
        data["latency"] = latency_sweep.to_json(b)
        data["_latency"] = b


def pool_route(args: argparse.Namespace, pin: http_run.Pinning, tmp: str
               ) -> dict[str, Any]:
    """GET /work with --pool=mutex and the reactor's choice, alternating."""
    choice, source = http_context.reactor_pool(os.path.join(
        procs.WORKSPACE or os.getcwd(), "results", "winners.json"))
    specs = http_context.pool_specs(procs.resolve(SERVER), [
        f for f in shlex.split(args.server_flags)
        if not f.startswith(("--logger=", "--log_file=", "--pool"))], choice)
    reps, seconds = http_context.POOL_PLANS[args.profile]
    points = []
    for rep in range(reps):
        for spec in specs if rep % 2 == 0 else specs[::-1]:
            pt = PointSpec(http_context.POOL_CONNECTIONS, args.wrk_threads,
                           seconds, args.threads, rep,
                           path=http_context.POOL_PATH)
            rec = http_run.run_point(spec, args.wrk, pt, pin, os.path.join(
                tmp, "pool-%d-%s" % (rep, spec.name)))
            points.append(rec.to_json())
            print(progress(rep + 1, reps, rec), flush=True)
    heading = "GET /work, wrk -c%d, %s, %d x %g s; %s%s" % (
        http_context.POOL_CONNECTIONS, " ".join(http_context.POOL_FLAGS),
        reps, seconds, "the choice %s from " % choice if choice else "",
        source)
    return dict(heading=heading, choice=choice, points=points)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    p = PROFILES[args.profile]
    prof = Profile(p.connections, args.seconds or p.seconds,
                   args.repetitions or p.repetitions,
                   args.latency_rounds or p.latency_rounds,
                   args.latency_seconds or p.latency_seconds)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    try:
        _executable(args.wrk, "wrk")
        specs = server_specs(args)
    except SetupError as e:
        print("http_bench: %s" % e, file=sys.stderr)
        return 2
    cores = sorted(os.sched_getaffinity(0))
    pin = http_run.pinning(args.threads, args.wrk_threads, cores)
    out = args.out or default_out()
    started = time.monotonic()
    data: dict[str, Any] = dict(
        context=http_context.context(args, prof, specs, pin, cores),
        notes=http_context.notes(pin, specs), interrupted=False,
        elapsed_s=0.0, points=[])
    print("http_bench: profile %s, %d cores, %s, load %s" % (
        args.profile, len(cores), pin.describe(),
        data["context"]["loadavg_at_start"]), flush=True)
    tmp = tempfile.mkdtemp(prefix="http_bench.")
    try:
        run(args, prof, specs, pin, tmp, data)
        if not args.no_pool_route and "serverkit" in args.servers.split(","):
            data["pool_route"] = pool_route(args, pin, tmp)
        if not args.no_latency:
            latency(args, prof, specs, pin, tmp, data)
    except KeyboardInterrupt:
        data["interrupted"] = True
        print("http_bench: interrupted", file=sys.stderr)
    finally:
        procs.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)
    data["elapsed_s"] = round(time.monotonic() - started, 1)
    data["context"]["loadavg_at_end"] = [round(x, 2)
                                         for x in os.getloadavg()]
    other = [p["other_cpu_s"] / p["seconds"] for p in data["points"]
             if p["seconds"] and p["requests"]]
    if other and max(other) > 0.1:
        data["notes"].append(
            "other work on the machine used up to %.0f%% of a core during "
            "a point (other_cpu_s): those figures are suspect"
            % (100 * max(other)))
    print()
    print(http_tables.tables(data["points"], data["context"]))
    pairs = http_tables.paired(data["points"], args.margin)
    data["paired"] = [r.as_json() for r in pairs]
    for line in http_tables.PAIRED.lines(pairs):
        print(line)
    for line in http_tables.failures(data["points"]):
        print("failed: " + line)
    if "pool_route" in data:
        print("\n".join([""] + http_tables.pool_table(
            data["pool_route"]["points"], data["pool_route"]["heading"])))
    if "_latency" in data:
        print("\n".join(latency_sweep.lines(data.pop("_latency"))))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print("results: %s (%.0f s)" % (out, data["elapsed_s"]))
    if data["interrupted"]:
        return 130
    failed = [p for p in data.get("latency", {}).get("points", [])
              if not p["ok"] and not p["void"]]
    failed += [p for p in data.get("pool_route", {}).get("points", [])
               if not p["ok"]]
    return 0 if all(pt["ok"] for pt in data["points"]) and not failed \
        else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
