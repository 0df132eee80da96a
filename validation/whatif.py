#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/whatif.py
# -----------------------------------------------------------------------------
#
# What each component choice would buy in your server: `bazel run -c opt
# //bench:whatif`. The validation's engine (run.py, rounds.py, predict.py)
# pointed at a server it did not build.
#
#   bazel run -c opt //bench:whatif -- \
#       --server='path/to/server --port={port} {policy}' \
#       --protocol=http --path=/items/42 --rate=20000 --connections=64 \
#       --components=logger,task_queue [--results=DIR] [--out=DIR]
#       [--baseline=logger:sync,...] [--candidate=logger:NAME,...]
#       [--seconds=S] [--rounds=N] [--budget_s=S] [--load='CMD {port}']
#       [--ops=library|http|pingpong] [--pin=auto|yes|no] [--margin=M]
#   bazel run -c opt //bench:whatif -- --server=... --probe=SITE:FAMILY
#
# The server is started once per run, {port} filled with a free port and
# {policy} with the flags of the side under test: the baseline, the
# candidate, and the baseline slowed on purpose by d and 2d ns per
# operation (the positive controls, components/'s *_slowdown_ns flags),
# in Williams-ordered rounds. It is driven by the open-loop generator at
# --rate (requests/s), by wrk closed loop (--rate=max, HTTP), or by --load,
# a command of yours whose last printed number is the units of work it
# completed. The figure is the server's CPU per unit (its process group,
# from /proc). The controls give the exchange rate (what a nanosecond per
# operation costs the server per request) and the baseline's share; with
# the micro sweep's costs (--results, a `make bench` results folder with
# winners.json) every implementation's effect is predicted, and the
# candidate (against a --baseline of yours the lowest micro cost, the top
# prediction; else the micro pick, or the best alternative to the baseline
# it kept) is run to check its prediction. The operations are counted from
# the server's stop line (--ops: components/'s "serverkit components:"
# line by default; http or pingpong: our own servers' lines).
#
# --probe=SITE:FAMILY measures a server that is not built on serverkit:
# SERVERKIT_PROBE=SITE:ns (probe/probe.h) spins at that call site; the
# rounds run the site counting (0 ns), off, and at d and 2d ns, and the
# answer is the exchange rate at the site, and the most the best
# implementation of FAMILY (task_queue, buffer, logger, thread_pool) could
# buy (whatif_report.py).
#
# Writes OUT/whatif.json and OUT/WHATIF.md (the section "Your server at R
# requests/s", whatif_report.py), and a chart where matplotlib is present;
# OUT defaults to results/whatif/<slug of the server's command>. Exit 0 when
# every component ran, 1 when some failed, 2 on bad flags.

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any, Optional, Sequence

from servers.driver import procs
from validation import cases, micro, run, user_server, whatif_report
from validation.cases import COMPONENTS, MARGIN, PROFILES
from validation.micro import FAMILY

PROBE = "probe"


def _pairs(text: str, what: str) -> dict[str, str]:
    """'logger:sync,task_queue:mutex' -> {component: name}."""
    out: dict[str, str] = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        comp, sep, name = item.partition(":")
        if not sep or comp not in COMPONENTS or not name:
            raise ValueError("--%s: %r is not COMPONENT:NAME (components: "
                             "%s)" % (what, item, ", ".join(COMPONENTS)))
        out[comp] = name
    return out


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="whatif", description="What each component choice would buy "
        "in your server: measured, predicted and checked.")
    ap.add_argument("--server", required=True,
                    help="the server's command, with {port} and {policy}")
    ap.add_argument("--protocol", choices=("http", "echo"), default="http")
    ap.add_argument("--path", default="/", help="http: the GET's path")
    ap.add_argument("--size", type=int, default=64,
                    help="echo: bytes per message")
    ap.add_argument("--rate", default="max",
                    help="requests/s (open loop), or max (wrk, http)")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--load_threads", type=int, default=1,
                    help="the generator's (or wrk's) threads")
    ap.add_argument("--load", default="",
                    help="your load command ({port}, {seconds}, {rate}: "
                    "--rate's value); its last printed number is the units "
                    "of work it completed")
    ap.add_argument("--unit", default="request",
                    help="what one unit of work is (for the report)")
    ap.add_argument("--components", default="logger,task_queue,buffer,"
                    "thread_pool")
    ap.add_argument("--baseline", default="",
                    help="COMPONENT:NAME,...: what your server runs now "
                    "(default: winners.json's baseline)")
    ap.add_argument("--candidate", default="",
                    help="COMPONENT:NAME,...: the implementation to check "
                    "(default: the lowest micro cost against a --baseline "
                    "given, else the micro pick or the best alternative)")
    ap.add_argument("--probe", default="",
                    help="SITE:FAMILY: measure a probe site instead")
    ap.add_argument("--ops", choices=("library", "http", "pingpong"),
                    default="library",
                    help="whose stop line counts the operations")
    ap.add_argument("--server_threads", type=int, default=1,
                    help="your server's I/O threads (the logger's metric "
                    "differs where it has a spare core)")
    ap.add_argument("--results", default="",
                    help="the micro sweeps' results folder (default "
                    "results/ of the workspace)")
    ap.add_argument("--out", default="")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="default")
    ap.add_argument("--seconds", type=float, default=0.0,
                    help="each run's load (default: the profile's)")
    ap.add_argument("--rounds", type=int, default=0,
                    help="exactly N rounds per component")
    ap.add_argument("--budget_s", type=float, default=0.0,
                    help="the whole run's time budget (default: the "
                    "profile's)")
    ap.add_argument("--pin", choices=("auto", "yes", "no"), default="auto")
    ap.add_argument("--margin", type=float, default=MARGIN)
    args = ap.parse_args(list(argv))
    try:
        args.baselines = _pairs(args.baseline, "baseline")
        args.candidates = _pairs(args.candidate, "candidate")
        args.rate_value = 0.0 if args.rate == "max" else float(args.rate)
        if not (args.rate_value > 0 or args.rate == "max"):
            raise ValueError("--rate must be positive, or max")
        if args.load and "{rate}" in args.load and args.rate == "max":
            raise ValueError("--load names {rate}: give --rate")
        if args.rate == "max" and args.protocol != "http" and not args.load:
            raise ValueError("--rate=max drives HTTP only (wrk); give a "
                             "rate for echo")
        args.component_list = [
            c.strip() for c in args.components.split(",") if c.strip()]
        bad = [c for c in args.component_list if c not in COMPONENTS]
        if bad:
            raise ValueError("unknown component(s) %s; components: %s" % (
                ", ".join(bad), ", ".join(COMPONENTS)))
        if args.probe:
            site, sep, family = args.probe.partition(":")
            if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", site) or \
                    family not in FAMILY:
                raise ValueError("--probe: %r is not SITE:FAMILY (families: "
                                 "%s)" % (args.probe, ", ".join(FAMILY)))
            args.probe_site, args.probe_family = site, family
        if "{port}" not in args.server:
            raise ValueError("--server needs {port} in its command")
        if not args.probe and "{policy}" not in args.server:
            raise ValueError("--server needs {policy}: where the component "
                             "flags go")
        if not args.margin > 0:
            raise ValueError("--margin must be positive")
    except ValueError as e:
        ap.error(str(e))
    return args


def slug(command: str) -> str:
    """A folder name for a server's command: its program's name."""
    words = command.split()
    base = os.path.basename(words[0]) if words else "server"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", base) or "server"


def results_dir(args: argparse.Namespace) -> str:
    if args.results:
        return str(os.path.abspath(args.results))
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()
    return os.path.join(root, "results")


def user_case(args: argparse.Namespace, comp: str) -> dict[str, Any]:
    """One component's case: the user's server under the user's load."""
    load = user_server.Load(
        protocol=args.protocol, path=args.path, size=args.size,
        rate=args.rate_value, connections=args.connections,
        threads=args.load_threads, command=args.load, unit=args.unit)
    flags = ["--probe_site=" + args.probe_site] if comp == PROBE else []
    protocol = "your load" if args.load else args.protocol
    return dict(name="whatif", mode=protocol, protocol=protocol,
                threads=args.server_threads,
                client_threads=args.load_threads,
                block=args.size if args.protocol == "echo" else 0,
                sessions=args.connections, flags=flags, kind="user",
                user=user_server.UserServer(args.server, load))


def entries_for(args: argparse.Namespace, winners: str
                ) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each component's entry (baseline, candidate, micro figures) from
    winners.json, with the user's --baseline and --candidate."""
    entries, notes = cases.load_winners(winners)
    for comp, e in entries.items():
        if comp in args.baselines:
            e["baseline"] = args.baselines[comp]
            best = best_predicted(args, comp, e, os.path.dirname(winners))
            if best:  # the top prediction against the user's baseline
                e["winner"], e["micro_ratio"] = best
                e["origin"], e["leader"] = "winners.json", None
        if comp in args.candidates:
            e["winner"], e["origin"] = args.candidates[comp], "default"
    return entries, notes


def best_predicted(args: argparse.Namespace, comp: str, e: dict[str, Any],
                   results: str) -> Optional[tuple[str, Optional[float]]]:
    """The implementation with the lowest micro cost per operation other
    than the baseline (the model's predictions order as the costs do), and
    the baseline's cost over its; None without micro costs."""
    server, _ = user_server.cores_apart(args.pin)
    spare = server is not None and len(server) > args.server_threads
    mc = micro.micro_costs(results, comp, e.get("source"),
                           args.size if args.protocol == "echo" else 0,
                           spare)
    costs = mc.confirm if e["baseline"] in mc.confirm else mc.sweep
    med = {x: statistics.median(v.values()) for x, v in costs.items() if v}
    others = [x for x in med if x != e["baseline"]]
    if not others:
        return None
    best = min(others, key=lambda x: med[x])
    base = med.get(e["baseline"])
    return best, (base / med[best] if base and med[best] > 0 else None)


def probe_entry() -> dict[str, Any]:
    """The probe's rows: the site counting is the baseline, the site off
    the candidate (the probe's own cost, end to end)."""
    return dict(winner="off", baseline="counting", micro_ratio=None,
                source=None, cv=None, origin="default")


def todo_of(args: argparse.Namespace, entries: dict[str, dict[str, Any]]
            ) -> list[run.Todo]:
    if args.probe:
        return [(PROBE, user_case(args, PROBE), probe_entry(), "off",
                 "default")]
    out: list[run.Todo] = []
    for comp in args.component_list:
        e = entries[comp]
        candidate, question = cases.candidate_of(e)
        out.append((comp, user_case(args, comp) if candidate else None, e,
                    candidate, question))
    return out


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    micro_dir = results_dir(args)
    winners = os.path.join(micro_dir, "winners.json")
    out = os.path.abspath(args.out or os.path.join(
        micro_dir, "whatif", slug(args.server)))
    try:
        if not args.load and args.rate_value > 0:
            procs.resolve(user_server.LOADGEN)
    except procs.SweepError as e:
        print("whatif: %s" % e, file=sys.stderr)
        return 2
    entries, notes = entries_for(args, winners)
    todo = todo_of(args, entries)
    # A probe's count is its own line, whatever the server prints.
    workload = "user" if args.ops == "library" or args.probe else args.ops
    # Where the load sets the pace, the metric is the server's CPU for that
    # reason, not because the client reached its ceiling.
    paced = None if not (args.rate_value > 0 or args.load) else (
        "the load set the pace (%s %ss/s)" % (args.rate, args.unit)
        if args.rate_value > 0 and (not args.load or "{rate}" in args.load)
        else "the load is your command, whose pace is its own")
    started = time.monotonic()
    os.makedirs(out, exist_ok=True)
    log_dir = tempfile.mkdtemp(prefix=".whatif-logs-", dir=out)
    try:
        result = run.run_todo(
            todo, args.profile, "", args.pin, micro_dir, log_dir,
            seconds=args.seconds, rounds_n=args.rounds,
            budget_s=args.budget_s, margin=args.margin, workload=workload,
            notes=notes, title="whatif on %s" % args.server, paced=paced)
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
        procs.stop_all()
    result.update(server=args.server, protocol=args.protocol, load=args.load,
                  path=args.path, rate=args.rate, unit=args.unit,
                  connections=args.connections, results_dir=micro_dir,
                  elapsed_s=round(time.monotonic() - started, 1))
    for row in result["rows"]:
        row.rates = whatif_report.rates_only(row)
    if args.probe:
        result["probe"] = whatif_report.probe_bound(
            result["rows"][0], micro_dir, args.probe_site,
            args.probe_family, entries[args.probe_family].get("source"))
    with open(os.path.join(out, "whatif.json"), "w") as f:
        json.dump(run.result_json(result), f, indent=1, default=str)
        f.write("\n")
    text = whatif_report.markdown(result)
    with open(os.path.join(out, "WHATIF.md"), "w") as f:
        f.write(text)
    chart = whatif_report.chart(result, os.path.join(out, "whatif.png"))
    print("\n" + text)
    print("whatif: %s%s" % (os.path.join(out, "WHATIF.md"),
                            ", " + chart if chart else ""))
    failed = [r for r in result["rows"] if r.outcome == "error"]
    if result.get("interrupted"):
        return 130
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
