# -----------------------------------------------------------------------------
# servers/pingpong/sweep.py
# -----------------------------------------------------------------------------
#
# The ping-pong's side-by-side sweep (validation/pingpong.py's command line
# runs it): the servers it compares (PEERS), the profiles, the points of one
# repetition, every server at every point back to back with a progress line per
# point (servers.driver.procs.run_point; each point of each repetition, a
# block, takes the next order of a Williams design,
# servers.driver.side_by_side.order, so each server follows every other equally
# often and none always runs first), then the tables (tables.py), the paired
# summary read against the margin (summary.py) and the JSON dict with the
# context of the run; then latency at set rates
# (servers/driver/latency_sweep.py): the open-loop generator at 75 and 90% of
# the slowest server's closed-loop capacity at one echo point, with the floor
# (a server that answers at once), each server's p99 over asio's, paired by
# round.

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import tempfile
import time
from typing import Any

from servers.driver import latency_point
from servers.driver import latency_sweep
from servers.driver import procs
from servers.driver import side_by_side
from servers.pingpong import summary as sweep_paired
from servers.pingpong import tables
from servers.driver.procs import Server

# (name, path or label, flags): ours over epoll and over io_uring
# (--backend=uring; epoll, said on stderr, where io_uring is not
# permitted), then the peers.
PEERS: tuple[tuple[str, str, list[str]], ...] = (
    ("serverkit", procs.SERVER, []),
    ("serverkit-uring", procs.SERVER, ["--backend=uring"]),
    ("asio", "//servers/pingpong:asio_server", []),
    ("libevent", "//servers/pingpong:libevent_server", []),
)

PROFILES: dict[str, dict[str, Any]] = {
    # A moment per point: checks that the sweep runs end to end.
    "smoke": dict(seconds=0.3, sessions=[10], threads=[1, 2],
                  blocks=[4096, 16384], repetitions=1,
                  latency_rounds=1, latency_seconds=0.3,
                  header_sessions=[10], header_threads=[1], header_count=256,
                  header_limit=20.0),
    # A few minutes on 2 cores.
    "default": dict(seconds=1.5, sessions=[1, 10, 100, 1000, 10000],
                    threads=[1, 2], blocks=[4096, 16384], repetitions=1,
                    latency_rounds=12, latency_seconds=0.5,
                    header_sessions=[1, 10, 100], header_threads=[1, 2],
                    header_count=1024, header_limit=60.0),
    # The long sweep: longer points, three repetitions (median reported).
    "full": dict(seconds=5.0, sessions=[1, 10, 100, 1000, 10000],
                 threads=[1, 2], blocks=[4096, 16384], repetitions=3,
                 latency_rounds=12, latency_seconds=2.0,
                 header_sessions=[1, 10, 100, 1000], header_threads=[1, 2],
                 header_count=8192, header_limit=300.0),
}

LIBEVENT_NOTE = ("libevent 2.1 reads at most 4096 bytes per read call "
                 "(EVBUFFER_MAX_READ, plus a FIONREAD ioctl per read; "
                 "evbuffer_set_max_read exists only from 2.2): at 16 KiB "
                 "blocks its figure measures that cap as much as its reactor.")

Record = dict[str, Any]

# validation/pingpong.py's --margin: its default (pick.margin.MARGIN) and its
# type.
MARGIN = side_by_side.MARGIN
margin_arg = side_by_side.margin_arg


def flush() -> None:
    sys.stdout.flush()


# --- the sweep ---------------------------------------------------------------

def sessions_within(wanted: list[int], soft: int
                    ) -> tuple[list[int], list[str]]:
    """The session counts the descriptor limit allows, and a note per count
    skipped."""
    sessions, notes = [], []
    for n in wanted:
        if soft == resource.RLIM_INFINITY or n + 100 <= soft:
            sessions.append(n)
        else:
            notes.append("%d sessions skipped: RLIMIT_NOFILE allows %d "
                         "descriptors per process (soft raised to the hard "
                         "limit); raise the hard limit (ulimit -Hn, as root) "
                         "to run it" % (n, soft))
    return sessions, notes


def progress_line(r: Record, p: procs.Point, done: int, total: int) -> str:
    if p.protocol == "echo":
        return "[%d/%d] echo %-10s threads %d block %5d sessions %5d: %s" % (
            done, total, r["server"], p.threads, p.block, p.sessions,
            "%.1f MiB/s" % r["mib_per_s"] if r["ok"]
            else "FAILED %s" % r.get("error", ""))
    return "[%d/%d] header %-8s threads %d sessions %5d x %d: %s" % (
        done, total, r["server"], p.threads, p.sessions, p.count,
        "%.0f messages/s, p99 session %.3f s" % (
            r["messages_per_s"], r["p99_session_s"]) if r["ok"] else
        "FAILED %s" % r.get("error", ""))


def points(args: argparse.Namespace, prof: dict[str, Any],
           sessions: list[int]) -> list[procs.Point]:
    """Every point of one repetition: the echo points, then the header
    points."""
    out = [procs.Point("echo", t, args.client_threads or t, b, n,
                       seconds=prof["seconds"])
           for t in prof["threads"] for b in prof["blocks"]
           for n in sessions]
    if not args.no_header:
        out += [procs.Point("header", t, args.client_threads or t, 100, n,
                            count=prof["header_count"],
                            limit=prof["header_limit"])
                for t in prof["header_threads"]
                for n in prof["header_sessions"]]
    return out


def run_points(args: argparse.Namespace, prof: dict[str, Any],
               servers: list[Server], client: str, sessions: list[int]
               ) -> tuple[list[Record], list[Record], bool]:
    """Every server at every point, back to back, each (repetition,
    point) in the next order of the Williams design: (echo records,
    header records, interrupted)."""
    todo = points(args, prof, sessions)
    total = len(todo) * len(servers) * prof["repetitions"]
    echo: list[Record] = []
    header: list[Record] = []
    try:
        with tempfile.TemporaryDirectory(prefix="pingpong-") as tmp:
            for rep in range(prof["repetitions"]):
                for i, p in enumerate(todo):
                    for s in side_by_side.order(servers, rep * len(todo) + i):
                        r = procs.run_point(s, client, tmp, p, args.pin)
                        r["repetition"] = rep
                        (echo if p.protocol == "echo" else header).append(r)
                        print(progress_line(r, p, len(echo) + len(header),
                                            total))
                        flush()
    except KeyboardInterrupt:
        print("\nsweep: interrupted; stopping servers, writing what ran",
              file=sys.stderr)
        return echo, header, True
    finally:
        procs.stop_all()
    return echo, header, False


def run_sweep(args: argparse.Namespace, prof: dict[str, Any],
              servers: list[Server], client: str, soft: int
              ) -> tuple[dict[str, Any], list[Record], bool]:
    """The side-by-side sweep: runs it, prints its tables; returns
    (JSON dict, failed records, interrupted)."""
    # Said only where libevent runs.
    libevent = [LIBEVENT_NOTE] if any(s.name == "libevent"
                                      for s in servers) else []
    notes = list(libevent)
    sessions, skipped = sessions_within(prof["sessions"], soft)
    for note in skipped:
        notes.append(note)
        print("sweep: " + note, file=sys.stderr)

    cores = len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    context = dict(profile=args.profile, cores=cores, margin=args.margin,
                   seconds_per_point=prof["seconds"],
                   repetitions=prof["repetitions"], fd_limit=soft,
                   loadavg_at_start=round(load, 2), pin=args.pin,
                   client_threads=args.client_threads or "server's",
                   kernel=platform.release(),
                   header_count=prof["header_count"],
                   servers=[dict(name=s.name, path=s.path, flags=s.extra)
                            for s in servers])
    print("ping-pong sweep, profile %s: %d servers (%s), %d cores, %.1f s per "
          "echo point, %d repetition(s)" % (
              args.profile, len(servers), ", ".join(s.name for s in servers),
              cores, prof["seconds"], prof["repetitions"]))
    for note in libevent:
        print("note: " + note)
    if load > cores:
        note = ("load average %.1f exceeds the %d cores at start: other work "
                "shares the machine; absolute figures are noisy, read ratios" %
                (load, cores))
        notes.append(note)
        print("note: " + note)
    flush()

    started = time.monotonic()
    echo, header, interrupted = run_points(args, prof, servers, client,
                                           sessions)
    names = [s.name for s in servers]
    lines = tables.echo_tables(echo, names, prof["threads"], prof["blocks"],
                               sessions, args.client_threads, cores)
    lines += tables.header_tables(header, names, prof["header_threads"],
                                  prof["header_sessions"],
                                  prof["header_count"])
    paired = sweep_paired.summarise(echo, names, args.margin)
    lines += sweep_paired.paired_lines(paired, prof["repetitions"])
    lines += tables.closing_lines(echo + header)
    lines += ["\nnote: " + note for note in libevent]
    print("\n".join(lines))

    data = dict(context=context, notes=notes, interrupted=interrupted,
                elapsed_s=round(time.monotonic() - started, 1),
                echo=echo, header=header,
                paired=[r.as_json() for r in paired])
    return data, [r for r in echo + header if not r.get("ok")], interrupted


# Latency at set rates: the echo point whose closed-loop messages/s give
# the capacity (one server thread, 4 KiB blocks, 100 sessions or the
# nearest count run), and the server the others are read against.
LATENCY_REFERENCE = "asio"
LATENCY_BLOCK = 4096
LATENCY_SESSIONS = 100


def capacity(echo: list[Record], sessions: int
             ) -> tuple[int, dict[str, float]]:
    """(the session count used, each server's median messages/s over its
    clean one-thread echo points at LATENCY_BLOCK bytes and that count:
    `sessions`, or the nearest count that ran)."""
    pts = [r for r in echo if r.get("server_threads") == 1 and
           r.get("blocksize") == LATENCY_BLOCK]
    return latency_point.capacity(pts, "sessions", sessions, "messages_per_s")


def _say(line: str) -> None:
    print(line)
    flush()


def run_latency(args: argparse.Namespace, prof: dict[str, Any],
                servers: list[Server], echo: list[Record]
                ) -> dict[str, Any] | None:
    """The latency sweep over `servers` (the JSON block, its text
    printed), or None, said, when it cannot run."""
    names = [s.name for s in servers]
    sessions, cap = capacity(echo, LATENCY_SESSIONS)
    if LATENCY_REFERENCE not in names or not any(cap.get(n)
                                                 for n in names):
        print("\nlatency at set rates: skipped (needs %s among the servers "
              "and a clean one-thread %d-byte echo point)"
              % (LATENCY_REFERENCE, LATENCY_BLOCK))
        return None
    st = latency_point.Settings(
        workload="pingpong", unit="messages/s", reference=LATENCY_REFERENCE,
        protocol="echo", connections=sessions, rounds=prof["latency_rounds"],
        seconds=prof["latency_seconds"],
        warmup_s=min(0.2, prof["latency_seconds"]),
        capacity_source="the closed-loop client's messages/s at %d "
                        "sessions, %d-byte blocks, one server thread "
                        "(a floor where the client was bound)"
                        % (sessions, LATENCY_BLOCK),
        size=LATENCY_BLOCK, margin=args.margin,
        fractions=args.latency_fractions, fifo=args.latency_fifo,
        sched_note=args.latency_sched_note)
    point = procs.Point("echo", 1, 1, LATENCY_BLOCK, sessions)
    _, server_cpus, client_cpus, _ = procs.cpu_split(args.pin, point)
    by = {s.name: s for s in servers}

    def start(name: str, pointdir: str) -> tuple[Any, int, str]:
        log = os.path.join(pointdir, "server.log")
        started = procs.start_server(by[name], point, server_cpus, log)
        if started is None:
            return None, 0, "server did not start: " + procs.tail(log)
        return started[0], started[1], ""

    print()
    try:
        with tempfile.TemporaryDirectory(prefix="pingpong-latency-") as tmp:
            tools = latency_sweep.Tools(
                procs.resolve(latency_point.LOADGEN),
                procs.resolve(latency_point.FLOOR_SERVER), client_cpus,
                server_cpus)
            b = latency_sweep.run(st, names, cap, start, tools, tmp, _say)
    finally:
        procs.stop_all()
    print("\n".join(latency_sweep.lines(b)))
    return latency_sweep.to_json(b)
