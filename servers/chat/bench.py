#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/chat/bench.py
# -----------------------------------------------------------------------------
#
# The chat broadcast benchmark: our server against Boost.Asio's.
#
#   bazel run -c opt //bench:chat -- [--profile=smoke|default|full]
#       [--out=PATH] [--server_flags='--task_queue=... --buffer=...']
#       [--clients=K,K] [--threads=T,T] [--rounds=R] [--repetitions=N]
#       [--message_size=N] [--timeout=S] [--no_uring] [--margin=M]
#
# For each server thread count and each K, ours (`serverkit`,
# //servers/chat:server with --server_flags), ours over io_uring
# (`serverkit-uring`, the same with --backend=uring; not with --no_uring)
# and `asio` (//servers/chat:asio_server) run in turn, R rounds each
# (run.py: one server, the load test //servers/chat:loadtest against it),
# repetitions interleaved: each block of back-to-back runs (a thread count,
# a K, a repetition) takes the next order of a Williams design
# (servers.driver.side_by_side.order; with two servers, in turn and reversed),
# so each server follows every other equally often. On 2+
# cores the server and the load test are pinned to disjoint cores, and the
# output says which.
#
# Profiles (K, server threads, rounds, repetitions):
#   smoke    100, 500          1        20   1    (under ~20 s)
#   default  1000, 5000,       1, 2     50   2    (about 110 s on 2 cores
#            10000, 20000                         without K = 20000: two
#                                                 servers took 75 s)
#   full     as default        1, 2, 4  200  5
# A K whose descriptors do not fit (the load test holds K sockets, so does
# the server) is skipped with a note: the driver first raises its soft
# RLIMIT_NOFILE to the hard limit (children inherit it), and, when that is
# not enough, tries the hard limit too (a process with CAP_SYS_RESOURCE
# may). With a hard limit of 20000, K = 20000 is skipped.
#
# Output: a progress line per run, then the table and the paired summary
# (each of ours over asio with its 95% interval, and what the interval says
# against the margin m, --margin, default 5%: ahead by more than m, ahead,
# equivalent within ±m, or not told apart; tables.py), notes,
# failures; JSON at $BUILD_WORKSPACE_DIRECTORY/results/chat.json (else
# ./results/chat.json, or --out). Every process it starts is stopped at the
# end, also on failure, Ctrl-C or SIGTERM (servers.driver.procs.stop_all). Exit
# status 0 when every run was clean, 1 when one failed, 130 when interrupted, 2
# on a usage error.
#
# The modules, in layers (each imports only those below it):
#   codec                the codec (for the tests)
#   run, tables, clients one point (with servers.driver.procs); the
#                        document and the table (with
#                        servers.driver.side_by_side); the tests' clients
#                        and servers
#   bench                this command line

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shlex
import signal
import sys
import tempfile
import time
from types import FrameType
from typing import Any, Optional

from servers.chat import run as chat_run
from servers.chat import tables as chat_tables
from servers.chat.run import ChatServer, Point, Record
from servers.driver import procs
from servers.driver import side_by_side

PROFILES: dict[str, dict[str, Any]] = {
    "smoke": dict(clients=[100, 500], threads=[1], rounds=20,
                  repetitions=1),
    "default": dict(clients=[1000, 5000, 10000, 20000], threads=[1, 2],
                    rounds=50, repetitions=2),
    "full": dict(clients=[1000, 5000, 10000, 20000], threads=[1, 2, 4],
                 rounds=200, repetitions=5),
}
# Descriptors besides the K sockets (listening socket, epoll, eventfds,
# logs, the runtime's own).
FD_MARGIN = 64


def _on_signal(signum: int, _frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt("signal %d" % signum)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="chat_bench",
        description="Chat broadcast: our server against Boost.Asio's.")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="default")
    ap.add_argument("--out", default="", help="JSON path")
    ap.add_argument("--server_flags", default="",
                    help="flags for our server (policy: --task_queue, "
                         "--buffer, --coalesce, --logger, ...)")
    ap.add_argument("--clients", type=_ints, default=None,
                    help="comma-separated K (default: the profile's)")
    ap.add_argument("--threads", type=_ints, default=None,
                    help="comma-separated server threads")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--repetitions", type=int, default=0)
    ap.add_argument("--no_uring", action="store_true",
                    help="do not run serverkit-uring (ours over io_uring)")
    ap.add_argument("--message_size", type=int, default=64)
    ap.add_argument("--timeout", type=float, default=20.0,
                    help="seconds a load test phase may make no progress")
    ap.add_argument("--margin", type=side_by_side.margin_arg,
                    default=side_by_side.MARGIN,
                    help="the paired summary's margin m as a fraction "
                         "(default %(default)s): ahead by more than m, "
                         "ahead, equivalent within ±m, or not told apart")
    return ap.parse_args(argv)


def plan(prof: dict[str, Any], servers: list[ChatServer], limit: int,
         message_size: int) -> tuple[list[Point], list[str]]:
    """The runs in order (repetitions interleaved, each block of
    back-to-back runs in the next order of side_by_side's Williams
    design), and notes on what was skipped."""
    notes: list[str] = []
    ks = []
    for k in prof["clients"]:
        if limit != resource.RLIM_INFINITY and k + FD_MARGIN > limit:
            notes.append("K=%d skipped: it needs about %d descriptors per "
                         "process, RLIMIT_NOFILE allows %d" % (
                             k, k + FD_MARGIN, limit))
        else:
            ks.append(k)
    points = []
    block = 0
    for t in prof["threads"]:
        for k in ks:
            for rep in range(prof["repetitions"]):
                order = side_by_side.order(servers, block)
                block += 1
                for s in order:
                    points.append(Point(s.name, t, k, prof["rounds"],
                                        message_size, rep))
    return points, notes


def context(args: argparse.Namespace, prof: dict[str, Any],
            servers: list[ChatServer], limit: int,
            pin: chat_run.Pinning, cores: list[int]) -> dict[str, Any]:
    return {
        "profile": args.profile, "cores": len(cores),
        "kernel": platform.release(),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "fd_limit": limit, "pin": pin.text, "rounds": prof["rounds"],
        "message_size": args.message_size,
        "repetitions": prof["repetitions"], "margin": args.margin,
        "clients": prof["clients"], "threads": prof["threads"],
        "servers": [{"name": s.name, "path": s.path, "flags": s.flags}
                    for s in servers],
    }


def progress(i: int, n: int, rec: Record) -> str:
    head = "[%d/%d] %-15s threads %d clients %5d rep %d: " % (
        i, n, rec["server"], rec["threads"], rec["clients"],
        rec["repetition"])
    if not rec["ok"]:
        return head + "FAILED: " + str(rec.get("error", "?"))
    return head + ("round p50 %.3f ms (max %.3f), delivery p99 %.0f us, "
                   "server %.3f us/msg, %.0f%% busy, load test %.0f%% of "
                   "its core%s" % (
                       rec["round_ms"]["p50"], rec["round_ms"]["max"],
                       rec["delivery_us"]["p99"],
                       rec["server_cpu_us_per_delivery"],
                       100 * rec.get("server_cpu_util", 0),
                       100 * rec["client_cpu_util"],
                       " (client-bound)" if rec["client_bound"] else ""))


def run(args: argparse.Namespace, prof: dict[str, Any],
        servers: list[ChatServer], loadtest: str, limit: int,
        cores: list[int]) -> dict[str, Any]:
    pin = chat_run.pinning(cores)
    ctx = context(args, prof, servers, limit, pin, cores)
    points, notes = plan(prof, servers, limit, args.message_size)
    print("chat: %d runs; %s; fd limit %d; load average %s" % (
        len(points), pin.text, limit, ctx["loadavg_at_start"]), flush=True)
    for n in notes:
        print("note: " + n, flush=True)
    started = time.monotonic()
    records: list[Record] = []
    interrupted = False
    by_name = {s.name: s for s in servers}
    try:
        with tempfile.TemporaryDirectory(prefix="chat-") as tmp:
            for i, p in enumerate(points, 1):
                rec = chat_run.run_point(by_name[p.server], loadtest, p, pin,
                                         tmp, args.timeout)
                records.append(rec)
                print(progress(i, len(points), rec), flush=True)
    except KeyboardInterrupt:
        interrupted = True
        notes.append("interrupted after %d of %d runs" % (len(records),
                                                          len(points)))
    finally:
        procs.stop_all()
    return chat_tables.document(ctx, notes, interrupted,
                                time.monotonic() - started, records)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    prof = dict(PROFILES[args.profile])
    for k in ("clients", "threads", "rounds", "repetitions"):
        if getattr(args, k):
            prof[k] = getattr(args, k)
    # SIGINT too: a shell starts background jobs with SIGINT ignored.
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    try:
        ours = procs.resolve(chat_run.SERVER)
        flags = shlex.split(args.server_flags)
        servers = [ChatServer(chat_tables.OURS, ours, flags)]
        if not args.no_uring:
            servers.append(ChatServer(chat_tables.OURS_URING, ours,
                                      flags + ["--backend=uring"]))
        servers.append(
            ChatServer(chat_tables.PEER, procs.resolve(chat_run.ASIO), []))
        loadtest = procs.resolve(chat_run.LOADTEST)
    except procs.SweepError as e:
        print("chat_bench: %s" % e, file=sys.stderr)
        return 2
    limit = procs.raise_fd_limit(max(prof["clients"]) + FD_MARGIN)
    cores = sorted(os.sched_getaffinity(0))
    out = args.out or os.path.join(procs.WORKSPACE or os.getcwd(),
                                   "results", "chat.json")
    doc = run(args, prof, servers, loadtest, limit, cores)

    print()
    print("chat broadcast, %d-byte messages, %d rounds x %d repetitions; %s"
          % (args.message_size, prof["rounds"], prof["repetitions"],
             doc["context"]["pin"]))
    print(chat_tables.table(doc["points"]))
    print(chat_tables.LEGEND)
    pairs = chat_tables.paired(doc["points"], args.margin)
    doc["paired"] = [r.as_json() for r in pairs]
    for line in chat_tables.PAIRED.lines(pairs):
        print(line)
    for n in doc["notes"]:
        print("note: " + n)
    fails = chat_tables.failures(doc["points"])
    for line in fails:
        print("FAILED: " + line)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("results: %s (%.0f s)" % (out, doc["elapsed_s"]))
    if doc["interrupted"]:
        return 130
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
