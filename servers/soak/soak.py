#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/soak/soak.py
# -----------------------------------------------------------------------------
#
# The soak: our three servers at once for --minutes under a mixed load,
# sampled, then judged (docs/testing.md, "The soak"; `make soak MINUTES=N`
# builds them with -c opt and runs this):
#
#   soak.py --minutes=N [--interval=10] [--warmup=0.2] [--progress=60]
#           [--out=results/soak.json] [--seed=1] [--threads=2]
#           (a relative --out is under the workspace when run by bazel run)
#           [--bin_dir=DIR | --pingpong=PATH --chat=PATH --http=PATH]
#
#   servers   servers/pingpong/server (--protocol=header --max_body=65536),
#             servers/chat/server, servers/http/server, each with --threads
#             I/O loops, on free loopback ports; found under --bin_dir (the
#             output of `bazel info -c opt bazel-bin`), or given one by one
#             (a path ending in .py runs under this interpreter: a stand-in),
#             else in this script's runfiles;
#   load      normal clients that check every byte (normal.py): 4
#             ping-pong connections, 3 chat clients, 2 HTTP keep-alive
#             connections, about 1,400 replies a second in all; a loss, a
#             corrupt byte, a hang or a disconnection fails the soak at once;
#   hostile   one thread per server cycling the hostile kinds
#             (hostile.py) for the whole run;
#   samples   every --interval s, each server's VmRSS, open descriptors and
#             threads from /proc (and whether it still runs);
#   verdict   trend.py on each series after the warm-up (the first
#             --warmup fraction of the run); a server that exits, or does
#             not stop cleanly on SIGTERM at the end, fails the soak.
#
# Prints a progress line every --progress s, then the per-server table;
# writes every sample, trend and failure to --out (JSON). Exit status 0
# when the soak passed, 1 when it failed, 2 when it could not run.
#
# The top layer of servers/soak.

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Optional

from servers.driver import procs as driver_procs
from servers.soak import normal as soak_normal
from servers.soak import procs as soak_procs
from servers.soak import report as soak_report
from servers.soak import trend as soak_trend
from servers.soak.hostile import Hostile
from servers.soak.procs import Tally
from servers.soak.report import ServerRecord, SoakRecord

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # runfiles root or workspace
NAMES = ("pingpong", "chat", "http")
# The lines of a failed server's log kept in the record and printed.
TAIL_LINES = 8
EXTRA: dict[str, list[str]] = {
    "pingpong": ["--protocol=header", "--max_body=65536"],
    "chat": [],
    "http": [],
}
# Normal clients: (connections, batches or messages a second each).
PINGPONG = (4, 40.0)
CHAT_RATE = 15.0
HTTP = (2, 40.0)


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="soak", description="Our three servers under a mixed load "
        "for N minutes; fails on a leak, a crash or a lost reply.")
    ap.add_argument("--minutes", type=float, default=10.0,
                    help="length of the run (default 10)")
    ap.add_argument("--interval", type=float, default=10.0,
                    help="seconds between samples (default 10)")
    ap.add_argument("--warmup", type=float, default=0.2,
                    help="fraction of the run left out of the trend test "
                    "(default 0.2)")
    ap.add_argument("--progress", type=float, default=60.0,
                    help="seconds between progress lines (default 60)")
    ap.add_argument("--out", default="results/soak.json",
                    help="the JSON file (default results/soak.json)")
    ap.add_argument("--seed", type=int, default=1,
                    help="the hostile clients' random order")
    ap.add_argument("--threads", type=int, default=2,
                    help="each server's I/O loops (default 2)")
    ap.add_argument("--bin_dir", default="",
                    help="where servers/<name>/server are (bazel info -c "
                    "opt bazel-bin)")
    for name in NAMES:
        ap.add_argument("--" + name, default="",
                        help="the %s server (overrides --bin_dir)" % name)
    a = ap.parse_args(argv)
    if a.minutes <= 0 or a.interval <= 0 or not 0 <= a.warmup < 1:
        ap.error("--minutes and --interval must be positive, --warmup in "
                 "[0, 1)")
    n = judged_samples(a.minutes, a.interval, a.warmup)
    if n < soak_trend.MIN_SAMPLES:
        # Refused before it starts: a run too short to judge is not a
        # failure of the servers.
        need = soak_trend.MIN_SAMPLES * a.interval / (1 - a.warmup) / 60
        ap.error("%g minute(s) sampled every %g s give %d sample(s) after the "
                 "warm-up; the trend test needs %d: run at least %.1f "
                 "minutes, or sample more often (--interval)" % (
                     a.minutes, a.interval, n, soak_trend.MIN_SAMPLES,
                     need))
    return a


def judged_samples(minutes: float, interval: float, warmup: float) -> int:
    """The samples a run surely takes at or after its warm-up: one every
    interval seconds from the start, the one at the very end not counted
    (it may come just too late)."""
    duration = minutes * 60.0
    return sum(1 for k in range(int(duration / interval) + 1)
               if warmup * duration <= k * interval < duration)


def server_argv(a: argparse.Namespace, name: str) -> Optional[list[str]]:
    """The server's command up to its address: [path] or [python, path]."""
    path = getattr(a, name)
    if not path:
        rel = os.path.join("servers", name, "server")
        candidates = ([os.path.join(a.bin_dir, rel)] if a.bin_dir else
                      [os.path.join(ROOT, rel)])
        path = next((c for c in candidates if os.access(c, os.X_OK)), "")
        if not path:
            print("soak: no %s server at %s" % (name, ", ".join(candidates)),
                  file=sys.stderr)
            return None
    if path.endswith(".py"):
        return [sys.executable, path]
    return [path]


class Soak:
    """One run: the servers, the clients' threads, the samples."""

    def __init__(self, a: argparse.Namespace, tmp: str) -> None:
        self.a, self.tmp = a, tmp
        self.duration = a.minutes * 60.0
        self.tally = Tally()
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.ports: dict[str, int] = {}
        self.logs: dict[str, str] = {}
        self.soak = SoakRecord(a.minutes, a.interval, a.warmup,
                               round(a.warmup * self.duration, 3), 0.0,
                               a.seed, soak_report.RULE.format(
                                   warmup=a.warmup))
        self.records: dict[str, ServerRecord] = {}

    def start_servers(self) -> bool:
        for name in NAMES:
            head = server_argv(self.a, name)
            if head is None:
                return False
            log = os.path.join(self.tmp, name + ".log")
            self.logs[name] = log
            with open(log, "w") as lf:
                started = soak_procs.start_server(
                    head, [str(self.a.threads)] + EXTRA[name], lf)
            if started is None:
                print("soak: the %s server did not start: %s"
                      % (name, driver_procs.tail(log, TAIL_LINES)),
                      file=sys.stderr)
                return False
            p, port = started
            self.procs[name], self.ports[name] = p, port
            args = p.args if isinstance(p.args, list) else [p.args]
            self.records[name] = ServerRecord(
                name, [str(x) for x in args], p.pid)
            self.soak.servers.append(self.records[name])
        return True

    def clients(self) -> tuple[list[threading.Thread], list[Hostile]]:
        t = self.tally
        normal: list[threading.Thread] = [
            soak_normal.PingPong(self.ports["pingpong"], i, PINGPONG[1], t)
            for i in range(PINGPONG[0])]
        normal.append(soak_normal.ChatRoom(self.ports["chat"], CHAT_RATE, t))
        normal += [soak_normal.Http(self.ports["http"], i, HTTP[1], t)
                   for i in range(HTTP[0])]
        hostile = [Hostile(n, self.ports[n], self.a.seed * 31 + i, t)
                   for i, n in enumerate(NAMES)]
        return normal, hostile

    def take_samples(self, t: float) -> None:
        for name, p in self.procs.items():
            rec = self.records[name]
            s = soak_procs.sample(p.pid, t) if p.poll() is None else None
            if s is None:
                if rec.problem is None:
                    p.poll()
                    rec.problem = "exited (status %s) at %s" % (
                        p.returncode, soak_report.clock(t))
                    self.tally.fail("the %s server %s: %s" % (
                        name, rec.problem,
                        driver_procs.tail(self.logs[name], TAIL_LINES)))
            else:
                rec.samples.append(s)

    def run(self) -> None:
        normal, hostile = self.clients()
        for th in normal + hostile:
            th.start()
        t0 = time.monotonic()
        next_sample, next_progress = t0, t0 + self.a.progress
        while True:
            now = time.monotonic()
            if now >= next_sample:
                self.take_samples(now - t0)
                next_sample += self.a.interval
            if now >= next_progress:
                checked, hosts, _ = self.tally.snapshot()
                print(soak_report.progress(
                    now - t0, self.duration, checked, hosts,
                    {n: r.samples[-1].rss_kib for n, r in
                     self.records.items() if r.samples}), flush=True)
                next_progress += self.a.progress
            if now - t0 >= self.duration or self.tally.stop.is_set():
                break
            self.tally.stop.wait(max(0.0, min(next_sample, next_progress,
                                              t0 + self.duration) -
                                     time.monotonic()))
        self.soak.elapsed_s = round(time.monotonic() - t0, 3)
        self.tally.stop.set()
        for th in normal:
            th.join(soak_normal.REPLY_TIMEOUT + 5)
            if th.is_alive():
                self.tally.fail("normal client %s hung at the stop" % th.name)
        for h in hostile:
            h.join(30)

    def finish(self) -> None:
        """Stops the servers, judges, and fills the record."""
        for name, p in self.procs.items():
            rec = self.records[name]
            problem = soak_procs.stop(p)
            if problem and rec.problem is None:
                rec.problem = problem
                self.tally.fail("the %s server %s" % (name, problem))
            rec.log_tail = driver_procs.tail(self.logs[name], TAIL_LINES)
        checked, hosts, failures = self.tally.snapshot()
        for name, rec in self.records.items():
            rec.checked = checked.get(name, 0)
            rec.hostile = hosts.get(name, {})
            soak_report.judge_server(rec, self.soak.warmup_s)
            for t in rec.trends:
                if not t.passed:
                    failures.append("the %s server's %s: %s: %s" % (
                        name, t.series, t.verdict, t.reason))
        self.soak.failures = failures
        self.soak.passed = (not failures and
                            all(r.passed for r in self.soak.servers))


def main(argv: list[str]) -> int:
    a = parse_args(argv)
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY", "")
    if workspace and not os.path.isabs(a.out):  # bazel run: the workspace's
        a.out = os.path.join(workspace, a.out)
    tmp = tempfile.mkdtemp(prefix="soak-")
    soak = Soak(a, tmp)
    try:
        if not soak.start_servers():
            return 2
        print("soak: %s for %s, sampling every %g s, warm-up %s; servers "
              "%s; logs in %s" % (
                  ", ".join(NAMES), soak_report.clock(soak.duration),
                  a.interval, soak_report.clock(soak.soak.warmup_s),
                  ", ".join("%s pid %d port %d" % (n, soak.procs[n].pid,
                                                   soak.ports[n])
                            for n in NAMES), tmp), flush=True)
        soak.run()
    finally:
        soak.finish()
    print()
    print(soak_report.table(soak.soak))
    soak_report.write_json(soak.soak, a.out)
    for f in soak.soak.failures:
        print("FAIL: " + f)
    print("soak: %s (%s elapsed; rule: %s); JSON in %s" % (
        "PASSED" if soak.soak.passed else "FAILED",
        soak_report.clock(soak.soak.elapsed_s), soak.soak.rule, a.out))
    if soak.soak.passed:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print("soak: server logs kept in %s" % tmp)
    return 0 if soak.soak.passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
