# -----------------------------------------------------------------------------
# validation/tails.py
# -----------------------------------------------------------------------------
#
# Issue 51's checks "on 16 cores where lent" as one call that fits a lent
# machine's few minutes (docs/methods.md, "On a lent machine"). With 12 or
# more CPUs every server runs 4 threads on cpus 8-11 and the open-loop
# generator 8 threads on cpus 0-7; on fewer, one thread each on the last
# and the first CPU, with shorter windows (on 2 cores, with --sched=fifo,
# the batches of docs/results/2026-11-28-2core-uring-readiness.md). The
# phases, in order:
#
#   capacity  the closed-loop client, twice per ping-pong server,
#             interleaved (4 KiB, 100 sessions, 2 s);
#   pingpong  epoll, io_uring and Asio (and the floor) at
#             fractions of the slowest's capacity: 4 KiB echo, 100
#             connections, pipelined, each round's servers fresh and in a
#             random order;
#   http      ours and nginx (reuseport and affinity, servers/http/nginx.py)
#             at set rates, serial and pipelined, 50 connections;
#   ceiling   the generator against our epoll server on 8 threads (cpus
#             8-15) at rising rates and thread counts;
#   cpu       (not run unless named) the closed-loop client against each
#             ping-pong server at 4, 16 and 64 KiB, servers in a random
#             order per round: the server's CPU per MiB echoed, paired by
#             round.
#
# Every run is one JSON line (Run) appended to --out as it ends, with the
# server's `serverkit ...:` stop line. A phase starts no run once --budget
# seconds are spent, so a call cut short still leaves its lines.
# --report=FILE prints the markdown tables of such a file: medians and the
# per-round paired ratios (pick.decide.paired); --report=A,B pools the
# rounds of several batches (each round still pairs runs of one batch).
#
#   tools/pack_lent.sh .lent          # -c opt binaries, nginx, their .so
#   python3 -m validation.tails --bin=.lent --out=runs.jsonl [--budget=420]
#       [--sched=fifo]
#   python3 -m validation.tails --report=runs.jsonl

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Optional, Sequence

from pick.decide import paired
from servers.driver import host
from servers.driver import latency_point
from servers.driver import procs
from servers.http import run as http_run

PHASES = ("capacity", "pingpong", "http", "ceiling", "cpu")
DEFAULT_PHASES = PHASES[:4]
PINGPONG = ("epoll", "uring", "asio", "floor")
# The ping-pong servers: (binary in --bin, flags, environment). "uring" is
# the io_uring server as it ships (readiness I/O: one-shot polls through
# the ring, then readv/writev as over epoll); the uring-completion*
# variants are its completion I/O (reactor/poller/uring_poller.h), plain
# and with every send submitted at once (reactor/poller/uring_poller.cc),
# the leads for its tail (docs/results/2026-11-28-2core-uring-tail.md);
# uring-oneshot is readiness I/O re-arming a one-shot poll per event, as
# before reads kept a multishot poll armed (reactor/poller/uring_poller.h).
URING = ("--backend=uring",)
COMPLETION = URING + ("--uring_io=completion",)
SERVERS: dict[str, tuple[str, tuple[str, ...], dict[str, str]]] = {
    "epoll": ("server", (), {}),
    "uring": ("server", URING, {}),
    "asio": ("asio_server", (), {}),
    "uring-completion": ("server", COMPLETION, {}),
    "uring-completion-flush1": ("server", COMPLETION,
                                {"SERVERKIT_URING_FLUSH_SENDS": "1"}),
    "uring-oneshot": ("server", URING,
                      {"SERVERKIT_URING_MULTISHOT_POLL": "0"})}
KNOWN = tuple(SERVERS) + ("floor",)
CEILING = ((1, 150e3), (1, 300e3), (2, 300e3), (2, 600e3), (4, 450e3),
           (4, 700e3), (8, 450e3), (8, 700e3), (8, 900e3))
BLOCK = 4096
# The cpu phase's points, (bytes per block, sessions): the sizes at which
# the 2-core batches of 2026-11-28 compared the I/O paths.
CPU_POINTS = ((4096, 100), (16384, 100), (65536, 20))
# A closed-loop client using this share of its cores or more is the
# bottleneck (servers/http/run.py's rule).
CLIENT_BOUND = 0.9
# The phases that run the closed-loop client, not the generator.
CLOSED_LOOP = ("capacity", "cpu")
# A run's cost beyond its warm-up and window: the server's start and stop
# (a run of 1.3 s of load took 1.4 s on the lent machine, 2026-11-28).
RUN_OVERHEAD_S = 0.2


@dataclasses.dataclass(frozen=True)
class Layout:
    """Where the sides run: the servers' CPUs and threads, the generator's."""
    server_cpus: frozenset[int]
    server_threads: int
    generator_cpus: frozenset[int]
    generator_threads: int
    window_s: float
    warmup_s: float


def layout(ncpu: int) -> Layout:
    if ncpu >= 12:
        return Layout(frozenset(range(8, 12)), 4, frozenset(range(8)), 8,
                      1.0, 0.3)
    return Layout(frozenset({ncpu - 1}), 1, frozenset({0}), 1, 0.5, 0.2)


@dataclasses.dataclass
class Run:
    """One run: a server (or the generator alone) under one load."""
    phase: str
    server: str
    round: int = 0
    rate: float = 0.0
    fraction: float = 0.0
    mode: str = ""
    generator_threads: int = 1
    rc: int = 0
    ok: bool = False
    void: bool = False
    void_reason: str = ""
    error: str = ""
    p50_us: Optional[float] = None
    p99_us: Optional[float] = None
    p999_us: Optional[float] = None
    lag_p99_us: Optional[float] = None
    completed: int = 0
    unanswered: int = 0
    messages_per_s: float = 0.0  # capacity: the closed-loop client's
    stop_line: str = ""
    fifo: int = 0  # the SCHED_FIFO priority of server and generator; 0: none
    # The most steal on one of the run's CPUs while its load ran (host.py);
    # None where unread.
    steal_ms: Optional[int] = None
    # Closed loop (capacity, cpu): bytes per block and sessions, the
    # server's CPU seconds while the client ran and per MiB echoed, the
    # MiB/s, and the client's cores used (CLIENT_BOUND).
    size: int = 0
    sessions: int = 0
    server_cpu_s: Optional[float] = None
    cpu_ms_per_mib: Optional[float] = None
    mib_per_s: float = 0.0
    client_cores: Optional[float] = None

    @staticmethod
    def from_json(d: dict[str, Any]) -> "Run":
        names = {f.name for f in dataclasses.fields(Run)}
        return Run(**{k: v for k, v in d.items() if k in names})


# --- running -----------------------------------------------------------------

class Runner:
    """The binaries of --bin, the layout, the output and the budget."""

    def __init__(self, bin_dir: str, out: str, budget_s: float,
                 lay: Layout, say: Callable[[str], None],
                 fifo: int = 0) -> None:
        self.bin_dir, self.lay, self.say, self.fifo = bin_dir, lay, say, fifo
        self.out = open(out, "a")
        self.deadline = time.monotonic() + budget_s
        self.tmp = tempfile.mkdtemp(prefix="tails-")
        lib = os.path.join(bin_dir, "lib")
        if os.path.isdir(lib):  # the pack's libraries, for the children
            os.environ["LD_LIBRARY_PATH"] = lib

    def close(self) -> None:
        self.out.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name: str) -> str:
        return os.path.join(self.bin_dir, name)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def record(self, r: Run) -> None:
        self.out.write(json.dumps(dataclasses.asdict(r)) + "\n")
        self.out.flush()

    def start(self, name: str, threads: int = 0,
              cpus: Optional[frozenset[int]] = None, fifo: int = 0
              ) -> tuple[subprocess.Popen[bytes], int, str]:
        """A ping-pong server (or the floor) accepting, under SCHED_FIFO at
        priority fifo when it is not 0; raises procs.SweepError when it
        does not start."""
        cpus = cpus or self.lay.server_cpus
        log = os.path.join(self.tmp, "server.log")
        for _attempt in range(3):  # a port taken between probe and bind
            port = procs.free_port()
            env: dict[str, str] = {}
            if name == "floor":  # as many loops as the servers' threads
                argv = latency_point.floor_argv(
                    self.path("stall_echo_server"), port, BLOCK,
                    threads or self.lay.server_threads)
            else:
                binary, flags, env = SERVERS[name]
                argv = [self.path(binary), "127.0.0.1", str(port),
                        str(threads or self.lay.server_threads),
                        "--protocol=echo", *flags]
            with open(log, "w") as lf:
                p = procs.spawn(argv, set(cpus), lf, lf, fifo=fifo, env=env)
            if procs.wait_accepting(p, port):
                return p, port, log
            procs.stop(p)
        raise procs.SweepError("%s did not start: %s" % (name,
                                                         procs.tail(log)))

    def generate(self, r: Run, port: int, protocol: str,
                 connections: int,
                 server_cpus: Optional[frozenset[int]] = None) -> None:
        """The generator at r.rate against port (echo of BLOCK bytes, or
        GET http_run.PATH; r.mode) under r.fifo, its figures (read as the
        sweeps read them, latency_point.fill) and the host's steal on its
        and the server's CPUs into r."""
        out_json = os.path.join(self.tmp, "loadgen.json")
        if os.path.exists(out_json):
            os.unlink(out_json)
        st = latency_point.Settings(
            workload=r.phase, unit="requests/s", reference="",
            protocol=protocol, connections=connections, rounds=1,
            seconds=self.lay.window_s, warmup_s=self.lay.warmup_s,
            capacity_source="", size=BLOCK, path=http_run.PATH, mode=r.mode)
        argv = latency_point.generator_argv(
            self.path("loadgen"), st, port, r.rate, r.round + 1, out_json,
            threads=r.generator_threads)
        log = os.path.join(self.tmp, "loadgen.log")
        watched = set(self.lay.generator_cpus | (server_cpus or
                                                 self.lay.server_cpus))
        before = host.read()
        with open(log, "w") as lf:
            g = procs.spawn(argv, set(self.lay.generator_cpus), lf, lf,
                            fifo=r.fifo)
            try:
                r.rc = g.wait(timeout=self.lay.window_s + 30)
            except subprocess.TimeoutExpired:
                procs.stop(g)
                r.rc, r.error = -1, "the generator timed out"
                return
        seen = host.during(before, host.read(), watched)
        doc = None
        try:
            with open(out_json) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            pass
        pt = latency_point.LatencyPoint(r.server, r.fraction, r.rate, r.round)
        latency_point.fill(pt, r.rc, doc if isinstance(doc, dict) else None,
                           procs.tail(log, 3))
        latency_point.note_host(pt, seen)
        r.ok, r.void, r.void_reason, r.error = (pt.ok, pt.void,
                                                pt.void_reason, pt.error)
        r.p50_us, r.p99_us, r.p999_us = pt.p50_us, pt.p99_us, pt.p999_us
        r.lag_p99_us, r.steal_ms = pt.lag_p99_us, pt.steal_ms
        r.completed, r.unanswered = pt.completed, pt.unanswered

    def closed_loop(self, r: Run, seconds: float) -> None:
        """The closed-loop client (r.size bytes, r.sessions sessions) for
        `seconds` against a fresh r.server, run as the ping-pong sweep runs
        it (procs.run_client): its MiB/s, the server's CPU while it ran and
        per MiB, the client's share of its cores, and the host's steal on
        both sides' CPUs while it ran, into r."""
        p, port, log = self.start(r.server)
        point = procs.Point("echo", self.lay.server_threads,
                            self.lay.generator_threads, r.size, r.sessions,
                            seconds=seconds)
        rec: dict[str, Any] = {}
        before = host.read()
        try:
            procs.run_client(rec, p, self.path("client"), self.tmp, port,
                             point, set(self.lay.generator_cpus),
                             sorted(self.lay.generator_cpus), log)
        finally:
            r.stop_line = self.stop(p, log)
        r.steal_ms = host.during(before, host.read(), set(
            self.lay.generator_cpus | self.lay.server_cpus)).steal_ms
        r.rc = int(rec.get("client_rc", -1))
        r.messages_per_s = float(rec.get("messages_per_s") or 0.0)
        r.mib_per_s = float(rec.get("mib_per_s") or 0.0)
        if "client_cores_used" in rec:
            r.client_cores = round(rec["client_cores_used"] /
                                   self.lay.generator_threads, 3)
        r.ok = bool(rec.get("ok")) and r.messages_per_s > 0 and \
            (rec.get("bytes") or 0) > 0
        if r.ok and (rec.get("server_cpu_s") or 0) > 0:
            r.server_cpu_s = rec["server_cpu_s"]
            r.cpu_ms_per_mib = rec.get("server_cpu_ms_per_mib")
        elif not r.ok:
            r.error = str(rec.get("error") or "the client exited %d after "
                          "%.0f messages/s" % (r.rc, r.messages_per_s))

    def stop(self, p: subprocess.Popen[bytes], log: str) -> str:
        """Stops a server; its `serverkit ...:` stop line, if any."""
        procs.stop(p)
        try:
            with open(log) as f:
                lines = [x for x in f.read().splitlines()
                         if x.startswith("serverkit ")]
        except OSError:
            return ""
        return lines[-1] if lines else ""


def capacity(rn: Runner) -> float:
    """The slowest server's better closed-loop run, in messages/s."""
    best: dict[str, list[float]] = {}
    seconds = 2.0 if rn.lay.window_s >= 1 else 0.5
    for rep in range(2):
        order = ["epoll", "uring", "asio"]
        random.Random(rep).shuffle(order)
        for name in order:
            r = Run("capacity", name, round=rep, size=BLOCK, sessions=100)
            rn.closed_loop(r, seconds)
            rn.record(r)
            rn.say("capacity %s: %s" % (
                name, "%.0f messages/s" % r.messages_per_s if r.ok
                else "failed: " + (r.error or "exit %d" % r.rc)))
            best.setdefault(name, []).append(
                r.messages_per_s if r.ok else 0.0)
    failed = sorted(s for s, v in best.items() if max(v) <= 0)
    if failed:
        raise procs.SweepError("no capacity measured for %s: pass "
                               "--capacity, or see the lines above"
                               % ", ".join(failed))
    return min(max(v) for v in best.values())


def cpu(rn: Runner, servers: Sequence[str], rounds: int,
        seconds: float) -> None:
    """Each ping-pong server (the floor has no CPU to compare) at each of
    CPU_POINTS, closed loop, in a fresh random order per round."""
    names = [s for s in servers if s != "floor"]
    rng = random.Random(13)
    for rnd in range(rounds):
        for size, sessions in CPU_POINTS:
            if rn.left() < (seconds + RUN_OVERHEAD_S) * len(names):
                rn.say("cpu: the budget is spent (round %d)" % rnd)
                return
            order = list(names)
            rng.shuffle(order)
            for name in order:
                r = Run("cpu", name, round=rnd, size=size, sessions=sessions)
                rn.closed_loop(r, seconds)
                rn.record(r)
                rn.say(line(r))


def pingpong(rn: Runner, cap: float, fractions: Sequence[float],
             servers: Sequence[str], rounds: int) -> None:
    rng = random.Random(7)
    per_run = rn.lay.window_s + rn.lay.warmup_s + RUN_OVERHEAD_S
    for rnd in range(rounds):
        for f in fractions:
            if rn.left() < per_run * len(servers):
                rn.say("pingpong: the budget is spent (round %d)" % rnd)
                return
            order = list(servers)
            rng.shuffle(order)
            for name in order:
                r = Run("pingpong", name, round=rnd, rate=cap * f,
                        fraction=f, mode="pipelined",
                        generator_threads=rn.lay.generator_threads,
                        fifo=rn.fifo)
                p, port, log = rn.start(name, fifo=r.fifo)
                rn.generate(r, port, "echo", 100)
                r.stop_line = rn.stop(p, log)
                rn.record(r)
                rn.say(line(r))


def http(rn: Runner, rates: Sequence[float], rounds: int) -> None:
    pin = http_run.Pinning(True, rn.lay.server_cpus, rn.lay.generator_cpus)
    specs = {"serverkit": http_run.ServerSpec(
                 "serverkit", "binary", rn.path("http_server"), (), False),
             "nginx": http_run.ServerSpec("nginx", "nginx", rn.path("nginx"),
                                          (), False)}
    rng = random.Random(11)
    per_run = rn.lay.window_s + rn.lay.warmup_s + RUN_OVERHEAD_S
    for rnd in range(rounds):
        for rate in rates:
            if rn.left() < per_run * 4:
                rn.say("http: the budget is spent (round %d)" % rnd)
                return
            todo = [(m, s) for m in ("serial", "pipelined") for s in specs]
            rng.shuffle(todo)
            for mode, name in todo:
                r = Run("http", name, round=rnd, rate=rate, mode=mode,
                        generator_threads=rn.lay.generator_threads,
                        fifo=rn.fifo)
                pointdir = tempfile.mkdtemp(dir=rn.tmp)
                start = latency_point.fifo_starter(
                    lambda s, d: http_run.start_server(
                        specs[s], rn.lay.server_threads, pin, d), rn.fifo)
                srv, port, why = start(name, pointdir)
                if srv is None:
                    r.error = why
                else:
                    rn.generate(r, port, "http", 50)
                    procs.stop(srv)
                rn.record(r)
                rn.say(line(r))


def ceiling(rn: Runner) -> None:
    cpus = frozenset(range(8, 16)) if rn.lay.server_threads > 1 \
        else rn.lay.server_cpus
    for threads, rate in CEILING:
        if rn.left() < rn.lay.window_s + rn.lay.warmup_s + RUN_OVERHEAD_S:
            return
        threads = min(threads, len(rn.lay.generator_cpus))
        r = Run("ceiling", "epoll", rate=rate, mode="pipelined",
                generator_threads=threads, fifo=rn.fifo)
        p, port, log = rn.start("epoll", len(cpus), cpus, r.fifo)
        rn.generate(r, port, "echo", 100, cpus)
        r.stop_line = rn.stop(p, log)
        rn.record(r)
        rn.say(line(r))


def line(r: Run) -> str:
    if r.phase in CLOSED_LOOP:
        return "%-30s round %d %6d B x%d: %s" % (
            "%s %s" % (r.phase, r.server), r.round, r.size, r.sessions,
            "%.1f MiB/s, server %s ms/MiB, client cores %s" % (
                r.mib_per_s, num(r.cpu_ms_per_mib), num(r.client_cores))
            if r.ok else "failed: " + (r.error or "exit %d" % r.rc))
    what = "%s %s" % (r.phase, r.server)
    if r.phase == "http":
        what += " " + r.mode
    if r.ok:
        state = "ok"
    elif r.void:
        state = "void: " + r.void_reason
    else:
        state = "failed: " + r.error
    return "%-30s round %d %9.0f/s x%d: p50 %s p99 %s lag p99 %s us; %s" % (
        what, r.round, r.rate, r.generator_threads, us(r.p50_us),
        us(r.p99_us), us(r.lag_p99_us), state)


def us(v: Optional[float]) -> str:
    return "-" if v is None else "%.0f" % v


def num(v: Optional[float]) -> str:
    return "-" if v is None else "%.3g" % v


# --- the report --------------------------------------------------------------

def read(path: str) -> list[Run]:
    """The runs of a file of JSON lines; ValueError names a bad line."""
    out = []
    with open(path) as f:
        for i, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                d = json.loads(text)
                if not isinstance(d, dict):
                    raise ValueError("not an object")
                out.append(Run.from_json(d))
            except (ValueError, TypeError) as e:
                raise ValueError("%s:%d: not a run: %s" % (path, i, e))
    return out


def read_batches(paths: Sequence[str]) -> list[Run]:
    """The runs of one file or of several, each file's rounds numbered
    after the files before it, so that a round pairs runs of one batch
    only and the report pools the batches' rounds."""
    out: list[Run] = []
    for path in paths:
        shift = max((r.round for r in out), default=-1) + 1
        out += [dataclasses.replace(r, round=r.round + shift)
                for r in read(path)]
    return out


def by_round(runs: Sequence[Run], **match: Any) -> dict[int, Run]:
    return {r.round: r for r in runs
            if all(getattr(r, k) == v for k, v in match.items())}


def ratio(a: dict[int, Run], b: dict[int, Run], key: str = "p99_us"
          ) -> str:
    """a's `key` over b's, paired by round: Hodges-Lehmann [exact
    interval], p and MDR; bold where the interval excludes 1."""
    logs = []
    for k in sorted(a):
        top = getattr(a[k], key)
        bottom = getattr(b[k], key) if k in b else None
        if top and bottom and a[k].ok and b[k].ok:
            logs.append(math.log(top / bottom))
    if not logs:
        return "-"
    x = paired.rank_paired(logs)
    text = "%.2fx" % x.ratio
    if x.lo is None or x.hi is None or x.mde is None:
        return text + " (n %d: no interval)" % len(logs)
    text += " [%.2f, %.2f], p %.2g, MDR %.2fx" % (x.lo, x.hi, x.p or 1.0,
                                                  1 + x.mde)
    return "**%s**" % text if x.lo > 1 or x.hi < 1 else text


def medians(runs: Sequence[Run]) -> str:
    """p50 / p99 / p99.9 in us over the clean runs, and how many were not."""
    ok = [r for r in runs if r.ok and r.p99_us]
    if not ok:
        return "-"
    text = " / ".join("%.0f" % statistics.median(
        [getattr(r, k) for r in ok if getattr(r, k) is not None] or [0.0])
        for k in ("p50_us", "p99_us", "p999_us"))
    bad = len(runs) - len(ok)
    return text + (" (%d not clean)" % bad if bad else "")


def pairs_of(names: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs the tables compare: io_uring and epoll against Asio,
    io_uring against epoll, and each io_uring variant against both."""
    pairs = [(a, b) for a, b in (("uring", "asio"), ("uring", "epoll"),
                                 ("epoll", "asio"))
             if a in names and b in names]
    return pairs + [(v, b) for v in names if v.startswith("uring-")
                    for b in ("uring", "epoll") if b in names]


def cpu_cell(runs: Sequence[Run]) -> str:
    """'MiB/s, ms/MiB' medians over the clean runs, then how many of them
    were client-bound (the client's use of its cores at CLIENT_BOUND or
    more): '(client-bound)' for all, '(client-bound in k of n)' for some."""
    ok = [r for r in runs if r.ok and r.cpu_ms_per_mib]
    if not ok:
        return "-"
    text = "%.0f, %.3g" % (statistics.median(r.mib_per_s for r in ok),
                           statistics.median(r.cpu_ms_per_mib or 0.0
                                             for r in ok))
    cores = [r.client_cores for r in ok if r.client_cores is not None]
    bound = sum(c >= CLIENT_BOUND for c in cores)
    if cores and bound == len(cores):
        text += " (client-bound)"
    elif bound:
        text += " (client-bound in %d of %d)" % (bound, len(cores))
    bad = len(runs) - len(ok)
    return text + (" (%d not clean)" % bad if bad else "")


def point_name(size: int, sessions: int) -> str:
    return "%d KiB x %d" % (size // 1024, sessions) if size >= 1024 and \
        size % 1024 == 0 else "%d B x %d" % (size, sessions)


def cpu_report(runs: Sequence[Run]) -> list[str]:
    """The cpu phase's tables: MiB/s and server ms/MiB per server and
    point, then the ms/MiB ratios paired by round (lower is cheaper)."""
    names = [s for s in KNOWN if any(r.server == s for r in runs)]
    pairs = pairs_of(names)
    points = sorted({(r.size, r.sessions) for r in runs})
    out = ["| block x sessions | " + " | ".join(
        "%s MiB/s, ms/MiB" % s for s in names) + " |",
        "|---|" + "---|" * len(names)]
    for size, sessions in points:
        at = [r for r in runs if (r.size, r.sessions) == (size, sessions)]
        out.append("| %s | %s |" % (point_name(size, sessions), " | ".join(
            cpu_cell([r for r in at if r.server == s]) for s in names)))
    out += ["", "| block x sessions | " + " | ".join(
        "%s / %s, ms/MiB" % p for p in pairs) + " |",
        "|---|" + "---|" * len(pairs)]
    for size, sessions in points:
        at = [r for r in runs if (r.size, r.sessions) == (size, sessions)]
        out.append("| %s | %s |" % (point_name(size, sessions), " | ".join(
            ratio(by_round(at, server=a), by_round(at, server=b),
                  "cpu_ms_per_mib") for a, b in pairs)))
    return out + [""]


def report(runs: Sequence[Run]) -> list[str]:
    out: list[str] = []
    pp = [r for r in runs if r.phase == "pingpong"]
    if pp:
        names = [s for s in KNOWN if any(r.server == s for r in pp)]
        pairs = pairs_of(names)
        out += ["| load | " + " | ".join(names) + " |",
                "|---|" + "---|" * len(names)]
        fractions = sorted({r.fraction for r in pp})
        for f in fractions:
            rate = statistics.median([r.rate for r in pp if r.fraction == f])
            out.append("| %.0f%% (%s/s) | %s |" % (
                100 * f, format(round(rate), ","), " | ".join(
                    medians([r for r in pp if r.fraction == f
                             and r.server == s]) for s in names)))
        out += ["", "| load | " + " | ".join("%s / %s" % p for p in pairs)
                + " |", "|---|" + "---|" * len(pairs)]
        for f in fractions:
            out.append("| %.0f%% | %s |" % (100 * f, " | ".join(
                ratio(by_round(pp, fraction=f, server=a),
                      by_round(pp, fraction=f, server=b)) for a, b in pairs)))
        out.append("")
    web = [r for r in runs if r.phase == "http"]
    if web:
        out += ["| rate/s | mode | ours | nginx | ours / nginx, p99 |",
                "|---|---|---|---|---|"]
        for rate in sorted({r.rate for r in web}):
            for mode in ("serial", "pipelined"):
                a = by_round(web, rate=rate, mode=mode, server="serverkit")
                b = by_round(web, rate=rate, mode=mode, server="nginx")
                out.append("| %s | %s | %s | %s | %s |" % (
                    format(round(rate), ","), mode,
                    medians(list(a.values())), medians(list(b.values())),
                    ratio(a, b)))
        out.append("")
    top = [r for r in runs if r.phase == "ceiling"]
    if top:
        out += ["| generator threads | rate/s | lag p99 (us) | clean |",
                "|---|---|---|---|"]
        out += ["| %d | %s | %s | %s |" % (
            r.generator_threads, format(round(r.rate), ","),
            us(r.lag_p99_us), "yes" if r.ok else "void" if r.void else "no")
            for r in top]
        out.append("")
    spent = [r for r in runs if r.phase == "cpu"]
    if spent:
        out += cpu_report(spent)
    for kind, of_kind in (("set-rate", [r for r in runs
                                        if r.phase not in CLOSED_LOOP]),
                          ("closed-loop", [r for r in runs
                                           if r.phase in CLOSED_LOOP])):
        watched = [r for r in of_kind if r.steal_ms is not None]
        if watched:
            stolen = [r.steal_ms or 0 for r in watched if r.steal_ms]
            out += ["Host steal on a %s run's CPUs (10 ms ticks): %d of "
                    "%d runs%s." % (kind, len(stolen), len(watched),
                                    ", at most %d ms" % max(stolen)
                                    if stolen else ""), ""]
    return out


# --- the command line --------------------------------------------------------

def floats(text: str) -> list[float]:
    try:
        out = [float(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError("not numbers: %r" % text)
    if not out or any(x <= 0 for x in out):
        raise argparse.ArgumentTypeError("positive numbers, comma-separated")
    return out


def parse(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="tails", description="Issue 51's checks on a machine with room.")
    ap.add_argument("--report", default="",
                    help="print the tables of a file, or of several "
                         "(comma-separated) with their rounds pooled")
    ap.add_argument("--bin", default="", help="the pack: tools/pack_lent.sh")
    ap.add_argument("--out", default="", help="JSON lines, appended")
    ap.add_argument("--budget", type=float, default=420.0,
                    help="seconds: no run starts past them")
    ap.add_argument("--phases", default=",".join(DEFAULT_PHASES),
                    help="of %s (default: all but cpu)" % ", ".join(PHASES))
    ap.add_argument("--capacity", type=float, default=0.0,
                    help="messages/s; skips the capacity phase's figure")
    ap.add_argument("--fractions", type=floats, default=[0.25, 0.5, 0.75, 0.9])
    ap.add_argument("--servers", default=",".join(PINGPONG),
                    help="of %s" % ", ".join(KNOWN))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--http_rates", type=floats,
                    default=[60000.0, 150000.0, 300000.0])
    ap.add_argument("--http_rounds", type=int, default=6)
    ap.add_argument("--cpu_rounds", type=int, default=6)
    ap.add_argument("--cpu_seconds", type=float, default=1.0,
                    help="the cpu phase's closed-loop seconds per run")
    ap.add_argument("--sched", default="other", choices=("other", "fifo"),
                    help="the set-rate runs' servers and generator: "
                         "ordinary scheduling, or SCHED_FIFO at priority "
                         "%d (needs root or CAP_SYS_NICE)"
                         % procs.FIFO_PRIORITY)
    args = ap.parse_args(argv)
    if args.report:
        return args
    if args.sched == "fifo":
        refused = procs.fifo_refused()
        if refused:
            ap.error("--sched=fifo: " + refused)
    phases = [p for p in args.phases.split(",") if p]
    bad = [p for p in phases if p not in PHASES] + [
        s for s in args.servers.split(",") if s not in KNOWN]
    if bad:
        ap.error("unknown phase or server: %s" % ", ".join(bad))
    if not args.bin or not args.out:
        ap.error("--bin and --out are needed to run (or --report=FILE)")
    if not os.path.isfile(os.path.join(args.bin, "loadgen")):
        ap.error("--bin=%s holds no loadgen: tools/pack_lent.sh" % args.bin)
    if min(args.rounds, args.http_rounds, args.cpu_rounds) < 1 or \
            args.budget <= 0 or args.cpu_seconds <= 0:
        ap.error("--rounds, --http_rounds, --cpu_rounds, --cpu_seconds and "
                 "--budget must be positive")
    if "pingpong" in phases and "capacity" not in phases and \
            args.capacity <= 0:
        ap.error("the pingpong phase needs the capacity phase or "
                 "--capacity")
    args.phase_list = phases
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse(argv)
    if args.report:
        try:
            paths = [p for p in args.report.split(",") if p]
            print("\n".join(report(read_batches(paths))))
        except (OSError, ValueError) as e:
            print("tails: %s" % e, file=sys.stderr)
            return 1
        return 0
    lay = layout(os.cpu_count() or 1)
    t0 = time.monotonic()

    def say(text: str) -> None:
        print("%6.1f %s" % (time.monotonic() - t0, text), flush=True)
    fifo = procs.FIFO_PRIORITY if args.sched == "fifo" else 0
    rn = Runner(args.bin, args.out, args.budget, lay, say, fifo)
    say("servers on cpus %s (%d threads), generator on cpus %s (%d "
        "threads), %s; budget %.0f s" % (
            ",".join(map(str, sorted(lay.server_cpus))), lay.server_threads,
            ",".join(map(str, sorted(lay.generator_cpus))),
            lay.generator_threads,
            "set rates under SCHED_FIFO %d" % fifo if fifo
            else "ordinary scheduling", args.budget))
    try:
        cap = args.capacity
        if "capacity" in args.phase_list:
            measured = capacity(rn)
            cap = cap or measured
        if "pingpong" in args.phase_list:
            pingpong(rn, cap, args.fractions, args.servers.split(","),
                     args.rounds)
        if "http" in args.phase_list:
            http(rn, args.http_rates, args.http_rounds)
        if "ceiling" in args.phase_list:
            ceiling(rn)
        if "cpu" in args.phase_list:
            cpu(rn, args.servers.split(","), args.cpu_rounds,
                args.cpu_seconds)
    except procs.SweepError as e:
        say("stopped: %s" % e)
        return 1
    finally:
        procs.stop_all()
        rn.close()
    say("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
