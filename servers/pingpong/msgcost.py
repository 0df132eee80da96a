#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/pingpong/msgcost.py
# -----------------------------------------------------------------------------
#
# The cost of one echoed block, per server: system calls and CPU time per
# block, and where the server's time goes.
#
#   bazel run -c opt //servers/pingpong:msgcost -- [--servers=a,b,...]
#       [--points=THREADS:BLOCK:SESSIONS,...] [--seconds=S] [--no_record]
#       [--top=N] [--pin=auto|yes|no] [--cycles] [--out=PATH]
#       [--server 'NAME=PATH-OR-TARGET [server flags...]'] ...
#
# For each point and server (the sweep's servers: serverkit,
# serverkit-uring, asio, libevent; --servers picks among them, and each
# --server adds one more, as in the sweep, e.g. an older build), the server
# is started and driven by the ping-pong client exactly as in the sweep
# (servers/driver/procs.py; pinned apart when the threads fit the cores),
# twice:
#   1. Counting: Debian's linux-perf `perf stat` watches the server from
#      before the client starts until it ends, counting its system calls
#      through the syscalls:sys_enter_* tracepoints (exact counts, unlike
#      sampling, and cheap, unlike strace) and its task clock. The client
#      sends only once every session is connected and stops at its
#      snapshot, so its byte count is what was echoed under perf: figures
#      are per block echoed (bytes / block size), whatever the reads and
#      writes were split into (perf_output.py). The CPU includes the
#      connects, as the sweep's CPU per MiB does.
#   2. Sampling (unless --no_record): `perf record` (cpu-clock, 1999 Hz)
#      for one second once the sessions are connected, and `perf report`:
#      the share of the kernel, the server's binary, libc and libstdc++,
#      and the top symbols. A run of its own, since sampling slows the
#      server.
# Hardware counters (cycles, instructions) with --cycles, where the machine
# has them (a hypervisor may not expose them).
#
# Output: a table per point, and JSON in results/msgcost.json (or --out).
# Needs root or kernel.perf_event_paranoid <= -1 for the tracepoints.

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Optional

from servers.pingpong import perf_output
from servers.driver import procs
from servers.pingpong.sweep import PEERS

DEFAULT_POINTS = "1:4096:1,1:4096:100,1:4096:1000,1:16384:1000"


def parse_points(spec: str) -> list[procs.Point]:
    out = []
    for item in spec.split(","):
        try:
            threads, block, sessions = (int(x) for x in item.split(":"))
        except ValueError:
            raise SystemExit("msgcost: --points wants THREADS:BLOCK:SESSIONS,"
                             " got %r" % item)
        if min(threads, block, sessions) <= 0:
            raise SystemExit("msgcost: every figure of %r must be > 0" % item)
        out.append(procs.Point("echo", threads, threads, block, sessions))
    return out


def perf_events(cycles: bool) -> str:
    events = ["task-clock"] + (["cycles", "instructions"] if cycles else [])
    return ",".join(events + perf_output.tracepoints())


def count_run(server: procs.Server, client: str, p: procs.Point,
              args: argparse.Namespace, tmp: str, rec: dict[str, Any]
              ) -> Optional[tuple[dict[str, float], float, dict[str, Any]]]:
    """One client run with `perf stat` on the server from before the client
    starts until after it ends: (counts, perf's wall seconds, the client's
    record), or None with rec["error"] set. The client sends nothing until
    every session is connected and nothing after its snapshot, so the bytes
    it counts are the bytes echoed while perf counted."""
    started = start(server, p, args, tmp, rec)
    if started is None:
        return None
    srv, port, ccpus = started
    stat_out = os.path.join(tmp, "stat.csv")
    try:
        perf = subprocess.Popen(
            ["perf", "stat", "-x,", "-e", perf_events(args.cycles), "-p",
             str(srv.pid), "-o", stat_out], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        time.sleep(0.3)  # perf attaches
        t0 = time.monotonic()
        client_rec = run_client(client, port, p, args.seconds, ccpus, tmp)
        perf.send_signal(signal.SIGINT)
        perf.wait(timeout=30)
        wall = time.monotonic() - t0
        with open(stat_out) as f:
            counts, _ = perf_output.parse_stat(f.read())
        return counts, wall, client_rec
    except (OSError, ValueError, KeyError, subprocess.SubprocessError,
            perf_output.ParseError) as e:
        rec["error"] = "%s: %s" % (type(e).__name__, e)
        return None
    finally:
        procs.stop(srv)


def record_run(server: procs.Server, client: str, p: procs.Point,
               args: argparse.Namespace, tmp: str, rec: dict[str, Any]
               ) -> list[perf_output.Symbol]:
    """A second client run, with `perf record` (cpu-clock, 1999 Hz) on the
    server for a second once the sessions are connected (kept apart from
    the counting run, whose rate it would slow): where the samples went."""
    started = start(server, p, args, tmp, rec)
    if started is None:
        return []
    srv, port, ccpus = started
    data = os.path.join(tmp, "perf.data")
    settle = 0.5 + p.sessions / 2000.0
    try:
        with open(os.path.join(tmp, "record.log"), "w") as lf:
            perf = subprocess.Popen(
                ["bash", "-c", "sleep %.2f && exec perf record -F 1999 -e "
                 "cpu-clock -p %d -o %s -- sleep 1" % (settle, srv.pid, data)],
                stdout=lf, stderr=lf)
            run_client(client, port, p, settle + 1.5, ccpus, tmp)
            perf.wait(timeout=30)
        report = subprocess.run(
            ["perf", "report", "-i", data, "--stdio", "--no-children",
             "--sort", "dso,symbol", "--percent-limit", "0.5"],
            check=True, capture_output=True, text=True).stdout
        return perf_output.parse_report(report)
    except (OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
        rec["record_error"] = "%s: %s" % (type(e).__name__, e)
        return []
    finally:
        procs.stop(srv)


def start(server: procs.Server, p: procs.Point, args: argparse.Namespace,
          tmp: str, rec: dict[str, Any]) -> Optional[
              tuple[subprocess.Popen[bytes], int, Optional[set[int]]]]:
    """The server, pinned as in the sweep: (process, port, the client's
    cpus), or None with rec["error"] set."""
    pinned, scpus, ccpus, _ = procs.cpu_split(args.pin, p)
    rec["pinned"] = pinned
    log = os.path.join(tmp, "server.log")
    started = procs.start_server(server, p, scpus, log)
    if started is None:
        rec["error"] = "server did not start: " + procs.tail(log)
        return None
    return started[0], started[1], ccpus


def run_client(client: str, port: int, p: procs.Point, seconds: float,
               ccpus: Optional[set[int]], tmp: str) -> dict[str, Any]:
    """The ping-pong client for `seconds`; its JSON record (KeyError when
    it wrote none)."""
    out_json = os.path.join(tmp, "client.json")
    if os.path.exists(out_json):
        os.remove(out_json)
    point = procs.Point("echo", p.threads, p.client_threads, p.block,
                        p.sessions, seconds=seconds)
    with open(os.path.join(tmp, "client.log"), "w") as cf:
        cp = procs.spawn(procs.client_argv(client, port, point, out_json),
                         ccpus, cf, cf)
        cp.wait(timeout=seconds + 60 + p.sessions / 100.0)
    if not os.path.exists(out_json):
        raise KeyError("the client wrote no JSON: " + procs.tail(
            os.path.join(tmp, "client.log")))
    with open(out_json) as f:
        rec: dict[str, Any] = json.load(f)
    return rec


def one(server: procs.Server, client: str, p: procs.Point,
        args: argparse.Namespace, tmp: str) -> dict[str, Any]:
    rec: dict[str, Any] = dict(server=server.name, threads=p.threads,
                               block=p.block, sessions=p.sessions, ok=False)
    counted = count_run(server, client, p, args, tmp, rec)
    if counted is None:
        return rec
    counts, wall, client_rec = counted
    rec["mib_per_s"] = client_rec["mib_per_s"]
    rec["client_cores_used"] = round(client_rec.get("client_cpu_s", 0) /
                                     max(client_rec["seconds"], 1e-9), 2)
    blocks = client_rec["bytes"] / float(p.block)
    cost = perf_output.per_block(counts, blocks)
    if cost is None:
        rec["error"] = "no block was echoed"
        return rec
    rec.update(per_block=cost.syscalls, syscalls_per_block=cost.total_syscalls,
               cpu_ns_per_block=cost.cpu_ns, counts=counts,
               server_cores_used=round(counts["task-clock"] / 1e9 / wall, 2))
    if "cycles" in counts:
        rec["cycles_per_block"] = round(counts["cycles"] / blocks)
        rec["instructions_per_block"] = round(counts["instructions"] / blocks)
    if not args.no_record:
        symbols = record_run(server, client, p, args, tmp, rec)
        rec["where"] = perf_output.where(symbols,
                                         os.path.basename(server.path))
        rec["top"] = [dict(percent=s.percent, dso=s.dso,
                           symbol=perf_output.short_name(s.name))
                      for s in symbols[:args.top]]
    rec["ok"] = (client_rec.get("errors", 0) == 0 and
                 client_rec.get("connect_failures", 0) == 0)
    return rec


def table(recs: list[dict[str, Any]]) -> str:
    head = ("| server | MiB/s | read | write | wait | epoll_ctl | syscalls "
            "| CPU us | server cores | kernel % | ours % |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|")
    rows = [head]
    for r in recs:
        if not r.get("per_block"):
            rows.append("| %s | error: %s |" % (r["server"], r.get("error")))
            continue
        pb, w = r["per_block"], r.get("where", {})
        rows.append("| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
                    "%.2f | %s | %s |" % (
                        r["server"], r["mib_per_s"], pb["read"], pb["write"],
                        pb["wait"], pb["epoll_ctl"], r["syscalls_per_block"],
                        r["cpu_ns_per_block"] / 1000.0,
                        r["server_cores_used"], w.get("kernel", "-"),
                        w.get("ours", "-")))
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        allow_abbrev=False,
        description="The cost of one echoed block per server: system calls "
        "by tracepoint and CPU per block (perf stat), and where the "
        "server's samples go (perf record).")
    ap.add_argument("--servers", default=",".join(n for n, _, _ in PEERS),
                    help="comma-separated, among the sweep's servers "
                    "(default: all of them)")
    ap.add_argument("--points", default=DEFAULT_POINTS,
                    help="THREADS:BLOCK:SESSIONS,... (default %(default)s)")
    ap.add_argument("--seconds", type=float, default=3.0,
                    help="client run per server and point (at least 0.5)")
    ap.add_argument("--no_record", action="store_true",
                    help="skip the perf record run (no kernel %% / ours %%)")
    ap.add_argument("--cycles", action="store_true",
                    help="count cycles and instructions (hardware counters)")
    ap.add_argument("--server", action="append", default=[],
                    help="'NAME=PATH-OR-TARGET [flags]': one more server")
    ap.add_argument("--top", type=int, default=8,
                    help="symbols listed per server from perf report")
    ap.add_argument("--pin", default="auto", choices=["auto", "yes", "no"],
                    help="server and client on separate CPUs (auto: when "
                    "there are at least 2)")
    ap.add_argument("--out", default="",
                    help="directory for the JSON and perf outputs")
    args = ap.parse_args(argv)
    if shutil.which("perf") is None:
        raise SystemExit("msgcost: needs perf (Debian's linux-perf; "
                         "tools/install_deps.sh installs it)")
    if args.seconds < 0.5:
        raise SystemExit("msgcost: --seconds must be at least 0.5")
    wanted = [n for n in args.servers.split(",") if n]
    known = {n: (s, f) for n, s, f in PEERS}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise SystemExit("msgcost: unknown server(s) %s; known: %s" % (
            ", ".join(unknown), ", ".join(known)))
    try:
        servers = [procs.Server(n, *known[n]) for n in wanted]
        for entry in args.server:
            words = shlex.split(entry)
            if not words or "=" not in words[0]:
                raise SystemExit("msgcost: --server wants 'NAME=PATH [FLAGS]'"
                                 ", got %r" % entry)
            name, spec = words[0].split("=", 1)
            servers.append(procs.Server(name, spec, words[1:]))
        client = procs.resolve(procs.CLIENT)
    except procs.SweepError as e:
        raise SystemExit("msgcost: %s" % e)
    recs: list[dict[str, Any]] = []
    for p in parse_points(args.points):
        print("\n%d thread(s), %d B blocks, %d sessions (per block echoed)" % (
            p.threads, p.block, p.sessions), flush=True)
        point_recs = []
        for s in servers:
            with tempfile.TemporaryDirectory() as tmp:
                point_recs.append(one(s, client, p, args, tmp))
        print(table(point_recs), flush=True)
        for r in point_recs:
            if r.get("top") and r["server"].startswith("serverkit"):
                print("  %s top: %s" % (r["server"], "; ".join(
                    "%.1f%% %s" % (t["percent"], t["symbol"])
                    for t in r["top"][:5])))
        recs.extend(point_recs)
    out = args.out or os.path.join(
        procs.WORKSPACE or os.getcwd(), "results", "msgcost.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(dict(records=recs, cores=len(os.sched_getaffinity(0))), f,
                  indent=1)
    print("\nmsgcost: JSON in %s" % out)
    return 0 if all(r["ok"] for r in recs) else 1


def _main() -> Optional[int]:
    try:
        return main(sys.argv[1:])
    finally:
        procs.stop_all()


if __name__ == "__main__":
    sys.exit(_main())
