#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/pingpong.py
# -----------------------------------------------------------------------------
#
# The ping-pong sweep: every server, the same client, one table.
#
#   bazel run -c opt //bench:pingpong -- [--profile=smoke|default|full]
#       [--server 'NAME=PATH-OR-TARGET [server flags...]'] ... [--no_peers]
#       [--client_threads=N] [--pin=auto|yes|no] [--seconds=S] [--out=PATH]
#       [--repetitions=N] [--margin=M]
#       [--threads=1,4,8] [--sessions=1,100,1000]
#       [--validate | --no_validate] [--winners=PATH] [--validate_seconds=S]
#       [--validate_rounds=N] [--validate_budget_s=S]
#       [--validate_components=a,b] [--no_loadmap]
#       [--no_latency] [--latency_rounds=N] [--latency_seconds=S]
#
# The side-by-side sweep runs first, then latency at set rates (unless
# --no_latency: the open-loop generator, //servers/loadgen, at 75 and 90%
# of the slowest server's capacity at one echo point, each server's p99
# over asio's paired by round; profiles: smoke 1 round of 0.3 s, default
# 12 of 0.5 s, full 12 of 2 s; servers.pingpong.sweep.run_latency), then the
# validation (run.py: our server with each component's candidate,
# the micro pick or the best
# alternative to the baseline it kept, against the baseline and a slowed
# control, in the modes where that component matters; one verdict per
# component and case, printed last). --validate runs the validation alone
# (keeping the sweep's records already in the JSON); --no_validate skips
# it. Rounds per case (cases.PROFILES): smoke one round of 0.3 s
# runs; default 6 to 60 rounds of 0.5 s runs within about 320 s in all; full
# 8 to 60 rounds of 2 s runs; --validate_rounds=N runs exactly N rounds
# per case. Then the load map (loadmap.GRIDS: default 16 loads
# per component within about 260 s; --no_loadmap skips it). run.py's
# header says how it decides and predicts.
#
# Servers. Ours, `serverkit` (//servers/pingpong:server, the reactor with the
# baseline policy) and `serverkit-uring` (the same with --backend=uring:
# every loop polls through io_uring), and the peers `asio` and `libevent`
# (//servers/pingpong:asio_server, :libevent_server) run unless --no_peers.
# Each --server adds one more: NAME is the column name, PATH-OR-TARGET an
# executable path (absolute, or relative to the runfiles tree, the
# workspace, or the current directory) or a label such as
# //reactor:pingpong_server (found in the runfiles, else in the workspace's
# bazel-bin). Words after it are passed to that server on every run, so one
# binary can appear under several names with different --policy= flags.
# Every server is started as
#     PATH 127.0.0.1 <free port> <threads> --protocol=echo|header [flags...]
# on loopback, waited on until it accepts, driven by //servers/pingpong:client,
# and killed (its whole process group) after the point; servers and clients
# also die with the driver (PR_SET_PDEATHSIG), on Ctrl-C, on errors and on
# timeouts (servers/driver/procs.py).
#
# Sweep. echo: sessions 1/10/100/1000 (+10000 when RLIMIT_NOFILE allows) x
# server threads 1, 2 x blocks 4 KiB, 16 KiB; header: a few session counts per
# server. The servers run back to back at each point (ratios come from
# neighbouring runs), each point of each repetition (--repetitions, default
# the profile's: full 3, else 1) in the next order of a Williams design, so
# each server follows every other equally often. The client gets as
# many threads as the server unless --client_threads says otherwise.
# --pin=auto pins the server and the client to disjoint cores when their
# threads fit the cores (taskset -c 1 / -c 0 in chenshuo/recipes), and says
# so.
#
# Output: progress lines, then one table per (protocol, threads, block) with
# MiB/s (header: messages/s and p99 session time) and ratios to asio and
# libevent (servers/pingpong/tables.py), then the paired summary: each server
# against asio and libevent over every echo point and repetition, as one ratio
# with its 95% interval and what that interval says against the margin m
# (--margin, default 5%: ahead by more than m, ahead, equivalent within
# ±m, or not told apart; servers/pingpong/summary.py); a figure marked "!" ran
# unclean (connect failures, errors), one marked "c" had the client at >= 90%
# of the CPU it could use, so it may be the client's ceiling (on 2 cores client
# and server get one core each). JSON in
# $BUILD_WORKSPACE_DIRECTORY/results/pingpong.json (else
# ./results/pingpong.json, or --out), with the client's and the
# server's CPU seconds per point, and the validation under "validation".
# Winners come from results/winners.json beside it (or --winners). Exit
# status 0 when every point and every validation run ran clean (a "refuted"
# verdict is a finding, not a failure).
#
# The validation's modules, in layers (each imports only those below it;
# build/python_layers.py checks there is no cycle; below them all pick,
# servers.driver and servers.pingpong: processes, the sweep, its tables and
# paired summary):
#   model, micro         the prediction's arithmetic; the micro costs per
#                        operation
#   cases, kinds         what the validation compares (pick's outcomes
#                        through it); the workloads a case runs
#   decide, predict      the verdicts; a row's prediction and its check
#   report, calibration  the validation's table and sentences; how often
#                        its rules are wrong
#   rounds               one case's rounds
#   loadmap              the load map
#   user_server          the workload of a server serverkit did not build
#   run                  the validation's engine (run_todo) and its runs
#   whatif_report, whatif  the engine on a user's server (//bench:whatif)
#   pingpong             this command line

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import time
from types import FrameType
from typing import Any, Optional

from servers.driver import latency_point
from servers.driver import procs
from validation import run as validate
from validation import cases as validate_cases
from validation import report as validate_report
from servers.driver.procs import Server, SweepError
from servers.pingpong.sweep import (MARGIN, PEERS, PROFILES, Record,
                                    margin_arg, run_latency, run_sweep)
from pick.records import ValidationRow
from validation.cases import Outcome


def _on_signal(signum: int, _frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt("signal %d" % signum)


def results_dir() -> str:
    return os.path.join(procs.WORKSPACE or os.getcwd(), "results")


def results_path(out: str) -> str:
    return out or os.path.join(results_dir(), "pingpong.json")


# --- the command line --------------------------------------------------------

def parse_args(argv: list[str]) -> argparse.Namespace:
    comps = validate_cases.COMPONENTS
    ap = argparse.ArgumentParser(
        prog="sweep", description="Ping-pong sweep: every server, one client.")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="default")
    ap.add_argument("--server", action="append", default=[],
                    metavar="'NAME=PATH-OR-TARGET [FLAGS...]'",
                    help="add a server (repeatable); FLAGS go to that server")
    ap.add_argument("--no_peers", action="store_true",
                    help="do not run the asio and libevent peers")
    ap.add_argument("--client_threads", type=int, default=0,
                    help="client threads (default: the server's)")
    ap.add_argument("--pin", choices=["auto", "yes", "no"], default="auto")
    ap.add_argument("--seconds", type=float, default=0,
                    help="seconds per echo point (default: the profile's)")
    ap.add_argument("--repetitions", type=int, default=0,
                    help="runs of the whole sweep, interleaved (default: "
                         "the profile's)")
    ap.add_argument("--threads", default="",
                    help="server threads, comma-separated (default: the "
                         "profile's; header runs too)")
    ap.add_argument("--sessions", default="",
                    help="echo sessions, comma-separated (default: the "
                         "profile's)")
    ap.add_argument("--no_header", action="store_true",
                    help="skip the header protocol runs")
    ap.add_argument("--out", default="", help="JSON path")
    ap.add_argument("--margin", type=margin_arg, default=MARGIN,
                    help="the margin m, a fraction (default %(default)s), "
                         "that the paired summary and the validation read "
                         "each interval against: ahead by more than m, "
                         "ahead, equivalent within ±m, or not told apart")
    vg = ap.add_mutually_exclusive_group()
    vg.add_argument("--validate", action="store_true",
                    help="run only the validation (no side-by-side sweep)")
    vg.add_argument("--no_validate", action="store_true",
                    help="run only the side-by-side sweep")
    ap.add_argument("--winners", default="",
                    help="winners JSON (default results/winners.json)")
    ap.add_argument("--validate_seconds", type=float, default=0,
                    help="seconds per validation run (default: the profile's)")
    ap.add_argument("--validate_rounds", type=int, default=0,
                    help="exactly N rounds per case (default: the "
                         "profile's minimum, then until the MDE target or "
                         "the budget)")
    ap.add_argument("--validate_budget_s", type=float, default=0,
                    help="the validation's time budget (default: the "
                         "profile's)")
    ap.add_argument("--no_loadmap", action="store_true",
                    help="skip the validation's load map (baseline and "
                         "control over a grid of loads, then the candidate "
                         "where the predicted effect is largest)")
    latency_point.add_flags(ap)
    ap.add_argument("--validate_components", default=",".join(comps),
                    help="comma-separated subset of %s" % ",".join(comps))
    args = ap.parse_args(argv)
    chosen = [c for c in args.validate_components.split(",") if c]
    bad = [c for c in chosen if c not in comps]
    if bad or not chosen:
        ap.error("--validate_components: unknown %s; choose from %s" % (
            ",".join(bad) or "(none)", ",".join(comps)))
    args.validate_components = chosen
    for name in ("threads", "sessions"):
        text = getattr(args, name)
        try:
            values = [int(v) for v in text.split(",")] if text else []
        except ValueError:
            values = [0]
        if any(v < 1 for v in values):
            ap.error("--%s takes whole numbers >= 1, comma-separated (got "
                     "%r)" % (name, text))
        setattr(args, name, values)
    if args.repetitions < 0:
        ap.error("--repetitions takes a whole number >= 0 (0: the "
                 "profile's)")
    latency_point.check_flags(ap, args)
    if args.validate_rounds < 0 or args.validate_budget_s < 0 or \
            args.validate_seconds < 0:
        ap.error("--validate_rounds, --validate_budget_s and "
                 "--validate_seconds take a number >= 0 (0: the profile's)")
    return args


def servers_of(args: argparse.Namespace) -> list[Server]:
    """The peers (unless --no_peers) and every --server; raises
    SweepError."""
    servers = [] if args.no_peers else [Server(n, s, list(f))
                                        for n, s, f in PEERS]
    for entry in args.server:
        words = shlex.split(entry)
        if not words or "=" not in words[0]:
            raise SweepError("--server wants 'NAME=PATH-OR-TARGET [FLAGS]', "
                             "got %r" % entry)
        name, spec = words[0].split("=", 1)
        if any(s.name == name for s in servers):
            raise SweepError("server name %r given twice" % name)
        servers.append(Server(name, spec, words[1:]))
    if not servers and not args.validate:
        raise SweepError("no servers to run")
    if not args.no_validate:
        procs.resolve(procs.SERVER)
    return servers


def failed_cases(v: dict[str, Any]) -> list[ValidationRow]:
    """The validation's rows that did not run (or ran unclean)."""
    return [r for r in v["rows"] if r.outcome == Outcome.ERROR.value]


def log_parent(out: str) -> str:
    """Where the validation's loggers write: /dev/shm where there is one (a
    disk's writeback adds noise common to every variant; docs/methods.md),
    else beside the results."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return shm
    return os.path.dirname(os.path.abspath(out))


def run_validation(args: argparse.Namespace, client: str, out: str
                   ) -> dict[str, Any]:
    """The validation, its table printed and its failures listed."""
    try:
        v = validate.run_validation(
            client, args.profile, args.pin,
            args.winners or os.path.join(results_dir(), "winners.json"),
            log_parent=log_parent(out),
            seconds=args.validate_seconds,
            rounds=args.validate_rounds, budget_s=args.validate_budget_s,
            components=args.validate_components, margin=args.margin,
            loadmap=not args.no_loadmap)
    finally:
        procs.stop_all()
    validate_report.print_table(v)
    vfailed = failed_cases(v)
    if vfailed:
        print("\n%d validation case(s) failed to run:" % len(vfailed))
        for r in vfailed:
            print("  %s/%s: %s" % (r.component, r.case, r.error))
    return v


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    prof = dict(PROFILES[args.profile])
    if args.seconds > 0:
        prof["seconds"] = args.seconds
    if args.repetitions > 0:
        prof["repetitions"] = args.repetitions
    if args.threads:
        prof["threads"] = prof["header_threads"] = args.threads
    if args.sessions:
        prof["sessions"] = args.sessions
    for key in ("latency_rounds", "latency_seconds"):
        prof[key] = getattr(args, key) or prof[key]
    # SIGINT too: a shell starts background jobs with SIGINT ignored.
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)

    try:
        client = procs.resolve(procs.CLIENT)
        servers = servers_of(args)
    except SweepError as e:
        print("sweep: %s" % e, file=sys.stderr)
        return 2
    soft = procs.raise_fd_limit()

    out = results_path(args.out)
    started = time.monotonic()
    interrupted = False
    failed: list[Record] = []
    if args.validate:
        data = previous_results(out)
    else:
        data, failed, interrupted = run_sweep(args, prof, servers, client,
                                              soft)
        if not args.no_latency and not interrupted:
            try:
                lat = run_latency(args, prof, servers, data["echo"])
            except KeyboardInterrupt:
                interrupted, lat = True, None
            if lat is not None:
                data["latency"] = lat
                failed += [p for p in lat["points"]
                           if not p["ok"] and not p["void"]]
    vfailed = []
    if not args.no_validate and not interrupted:
        v = run_validation(args, client, out)
        data["validation"] = validate.result_json(v)
        interrupted = interrupted or v.get("interrupted", False)
        vfailed = failed_cases(v)

    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print("results: %s (%.0f s)" % (out, time.monotonic() - started))
    if interrupted:
        return 130
    return 1 if failed or vfailed else 0


def previous_results(out: str) -> dict[str, Any]:
    """The JSON already at out (the last sweep's records), so that --validate
    replaces only its "validation" key; {} when absent or unreadable."""
    try:
        with open(out) as f:
            d = json.load(f)
        return d if isinstance(d, dict) else {}
    except (OSError, ValueError):
        return {}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
