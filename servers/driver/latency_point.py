# -----------------------------------------------------------------------------
# servers/driver/latency_point.py
# -----------------------------------------------------------------------------
#
# One run of the latency sweeps (latency_sweep.py): what the sweep is set
# to (Settings), a server (or the floor, stall_echo_server answering at
# once) started fresh, the open-loop generator (//servers/loadgen:loadgen)
# at one rate against it, the server stopped, and the run's record
# (LatencyPoint) read from the generator's exit status and JSON: clean,
# void (exit 3: the generator could not keep its schedule, so its
# latencies describe the generator) or failed, with why. Standard library
# and procs only.

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import statistics
import subprocess
import time
from typing import Any, Callable, Mapping, Optional, Sequence

from servers.driver import host
from servers.driver import procs
from pick.margin import MARGIN


LOADGEN = "//servers/loadgen:loadgen"
FLOOR_SERVER = "//servers/loadgen:stall_echo_server"
FLOOR = "floor"
FLOOR_SIZE = 64  # the floor's message where the workload is HTTP
# The rates, as fractions of the slowest server's capacity: 75 and 90% only.
# On 2 cores the floor's p99 at 25-50% is as large as the servers' (the
# machine's tail, not theirs), so that time buys rounds at the rates that
# can tell servers apart (docs/methods.md, "Sizing the sweep").
FRACTIONS = (0.75, 0.9)
# The default profile's rounds: the exact signed-rank interval needs 6 and
# is the Walsh averages' [min, max] there; 12 cut the smallest log ratio it
# detects 2.6-fold for the same spread (3.9 to 1.5 spreads, with the
# spread's upper bound: pick.decide.paired.mde).
ROUNDS = 12
# Void runs are run again only while the retries have taken less than this
# share of the sweep's planned time: on a busy machine most runs can be
# void (60% of the HTTP runs of the 2026-11-28 fourth make bench), and
# retrying each twice cost 100 s over the plan. Past it a void stays void.
RETRY_SHARE = 0.25
# A run's wall time beyond its warm-up and window: the server's start and
# stop (0.1 s in every run of the 2026-11-28 make bench).
START_STOP_S = 0.1
VOID_RC = 3
# One generator thread per this many requests/s, at most one per CPU the
# generator may use: on a lent 16-core Xeon one thread kept 150,000 4 KiB
# echoes/s within the lag bound (p99 772 us) and not 300,000
# (docs/methods.md, "Latency at a set rate"). On 2 cores it has one CPU.
RATE_PER_THREAD = 100_000
QUANTILES = (("p50_us", "p50"), ("p90_us", "p90"), ("p99_us", "p99"),
             ("p999_us", "p999"), ("max_us", "max"))


@dataclasses.dataclass(frozen=True)
class Settings:
    """The sweep's settings: what the generator speaks and how long."""
    workload: str          # "http" or "pingpong"
    unit: str              # "requests/s" or "messages/s"
    reference: str         # the server every other is compared to
    protocol: str          # the generator's --protocol: "http" or "echo"
    connections: int
    rounds: int
    seconds: float
    warmup_s: float
    capacity_source: str
    fractions: tuple[float, ...] = FRACTIONS
    retry_share: float = RETRY_SHARE
    arrivals: str = "uniform"
    max_lag_us: int = 1000
    size: int = 0          # echo: bytes per message
    path: str = "/"        # http: the request's path
    margin: float = MARGIN
    # The generator's --mode, "serial" (one request in flight per
    # connection) or "pipelined"; "" leaves its default (the protocol's).
    mode: str = ""
    # The servers' and the generator's SCHED_FIFO priority (0: ordinary
    # scheduling), and why it is what it is (sched_of).
    fifo: int = 0
    sched_note: str = ""


@dataclasses.dataclass
class LatencyPoint:
    server: str
    fraction: float
    rate: float
    round: int
    attempt: int = 0  # > 0: a retry after a void run
    ok: bool = False
    void: bool = False
    void_reason: str = ""
    error: str = ""
    p50_us: Optional[float] = None
    p90_us: Optional[float] = None
    p99_us: Optional[float] = None
    p999_us: Optional[float] = None
    max_us: Optional[float] = None
    uncorrected_p99_us: Optional[float] = None
    lag_p99_us: Optional[float] = None
    achieved_rate: float = 0.0
    completed: int = 0
    unanswered: int = 0
    errors: int = 0
    wall_s: float = 0.0
    # While the generator ran (host.During): the most steal on one of the
    # run's CPUs and which, and the machine's TCP retransmission timeouts;
    # None where unread.
    steal_ms: Optional[int] = None
    steal_cpu: Optional[int] = None
    tcp_timeouts: Optional[int] = None
    generator_threads: int = 1  # its --threads (generator_threads)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# Where the generator runs: start(server, point dir) -> (process, port,
# why); the process is stopped with procs.stop after the run.
Starter = Callable[[str, str],
                   tuple[Optional[subprocess.Popen[bytes]], int, str]]


def fifo_starter(start: Starter, fifo: int) -> Starter:
    """start, then every thread of the server's process group under
    SCHED_FIFO at priority `fifo` (procs.set_fifo; 0: start as it is). A
    refusal stops the server and says why."""
    if not fifo:
        return start

    def started(name: str, pointdir: str
                ) -> tuple[Optional[subprocess.Popen[bytes]], int, str]:
        srv, port, why = start(name, pointdir)
        if srv is not None:
            try:
                procs.set_fifo(srv.pid, fifo)
            except OSError as e:
                procs.stop(srv)
                return None, 0, "SCHED_FIFO refused for the server: %s" % e
        return srv, port, why
    return started


def nearest(counts: Sequence[int], wanted: int) -> int:
    """`wanted` when counts has it, else the nearest count (the smaller
    of two as near)."""
    return min(counts, key=lambda n: (abs(n - wanted), n))


def capacity(records: Sequence[Mapping[str, Any]], count_key: str,
             wanted: int, value_key: str) -> tuple[int, dict[str, float]]:
    """The closed-loop capacity the rates come from: (the count used,
    nearest(..., wanted) of the records' count_key values, and each
    server's median value_key over its clean records at that count);
    (wanted, {}) without records."""
    counts = sorted({r[count_key] for r in records})
    if not counts:
        return wanted, {}
    at = nearest(counts, wanted)
    by: dict[str, list[float]] = {}
    for r in records:
        v = r.get(value_key)
        if r[count_key] == at and r.get("ok") and v and v > 0:
            by.setdefault(r["server"], []).append(v)
    return at, {s: statistics.median(v) for s, v in by.items()}


def floor_size(st: Settings) -> int:
    """The floor's message: the workload's echo size, else FLOOR_SIZE."""
    return st.size if st.protocol == "echo" and st.size > 0 else FLOOR_SIZE


def floor_argv(path: str, port: int, size: int, threads: int) -> list[str]:
    """stall_echo_server without stalls: `size`-byte messages on `port`,
    with `threads` loops."""
    argv = [path, "--port=%d" % port, "--size=%d" % size]
    if threads > 1:
        argv.append("--threads=%d" % threads)
    return argv


def start_floor(path: str, st: Settings, cpus: Optional[set[int]],
                pointdir: str, threads: int = 1
                ) -> tuple[Optional[subprocess.Popen[bytes]], int, str]:
    """stall_echo_server (no stalls) accepting on a free port, with
    `threads` loops (as many as the servers' threads)."""
    log = os.path.join(pointdir, "server.log")
    for _attempt in range(3):  # a port taken between probe and bind
        port = procs.free_port()
        argv = floor_argv(path, port, floor_size(st), threads)
        try:
            with open(log, "w") as lf:
                p = procs.spawn(argv, cpus, lf, lf)
        except OSError as e:
            return None, 0, "the floor server did not start: %s" % e
        if procs.wait_accepting(p, port):
            return p, port, ""
        procs.stop(p)
    return None, 0, "the floor server did not start: " + procs.tail(log)


def generator_threads(rate: float, cpus: Optional[set[int]],
                      connections: int) -> int:
    """The generator's threads at `rate`: one per RATE_PER_THREAD, at most
    one per CPU it is pinned to (1 where unpinned) and per connection."""
    most = min(len(cpus) if cpus else 1, max(1, connections))
    return max(1, min(most, math.ceil(rate / RATE_PER_THREAD)))


def generator_argv(generator: str, st: Settings, port: int, rate: float,
                   seed: int, out_json: str, floor: bool = False,
                   threads: int = 1) -> list[str]:
    if floor:
        st = dataclasses.replace(st, protocol="echo", size=floor_size(st))
    argv = [generator, "--protocol=" + st.protocol, "--port=%d" % port,
            "--connections=%d" % st.connections, "--threads=%d" % threads,
            "--rate=%g" % rate, "--duration=%g" % st.seconds,
            "--warmup=%g" % st.warmup_s, "--arrivals=" + st.arrivals,
            "--seed=%d" % seed, "--max_lag_us=%d" % st.max_lag_us,
            "--json=" + out_json]
    if st.mode:  # the floor too: it is sent what the servers are
        argv.append("--mode=" + st.mode)
    if st.protocol == "echo":
        argv.append("--size=%d" % st.size)
    else:
        argv.append("--path=" + st.path)
    return argv


def fill(pt: LatencyPoint, rc: int, doc: Optional[dict[str, Any]],
         log_tail: str) -> None:
    """The generator's exit status and JSON into pt: ok, void, or an
    error that says why."""
    if doc is None:
        pt.error = "the generator wrote no JSON (exit %d): %s" % (
            rc, log_tail)
        return
    lat = doc.get("latency_us") or {}
    for key, src in QUANTILES:
        v = lat.get(src)
        setattr(pt, key, float(v) if isinstance(v, (int, float)) else None)
    unc = (doc.get("uncorrected_us") or {}).get("p99")
    pt.uncorrected_p99_us = float(unc) if isinstance(unc, (int, float)) \
        else None
    lag = (doc.get("lag_us") or {}).get("p99")
    pt.lag_p99_us = float(lag) if isinstance(lag, (int, float)) else None
    pt.achieved_rate = float(doc.get("achieved_rate") or 0.0)
    for key in ("completed", "unanswered", "errors"):
        setattr(pt, key, int(doc.get(key) or 0))
    if rc == VOID_RC or doc.get("void"):
        pt.void = True
        pt.void_reason = str(doc.get("void_reason") or "void")
    elif rc == 0 and doc.get("ok"):
        pt.ok = True
    else:
        pt.error = str(doc.get("error") or "") or (
            "exit %d: %d errors, %d unanswered" % (
                rc, pt.errors, pt.unanswered))


def note_host(pt: LatencyPoint, seen: host.During) -> None:
    """seen into pt, and into the reason of a void or failed run where
    the host did something: '... (during the run: host steal 40 ms on
    cpu 1)'."""
    pt.steal_ms, pt.steal_cpu = seen.steal_ms, seen.steal_cpu
    pt.tcp_timeouts = seen.tcp_timeouts
    words = seen.words()
    if not words:
        return
    if pt.void:
        pt.void_reason += " (during the run: %s)" % words
    elif not pt.ok:
        pt.error += " (during the run: %s)" % words


def run_point(st: Settings, pt: LatencyPoint, start: Starter,
              generator: str, cpus: Optional[set[int]], pointdir: str,
              server_cpus: Optional[set[int]] = None) -> None:
    """One server started fresh, the generator at pt.rate (on `cpus`),
    the server stopped; never raises for a failed server or generator.
    The host's steal is read on cpus and server_cpus (every CPU unless
    both are given)."""
    os.makedirs(pointdir, exist_ok=True)
    t0 = time.monotonic()
    srv, port, why = start(pt.server, pointdir)
    if srv is None:
        pt.error = why
        return
    out_json = os.path.join(pointdir, "loadgen.json")
    log = os.path.join(pointdir, "loadgen.log")
    budget = st.seconds + st.warmup_s + 30
    pt.generator_threads = generator_threads(pt.rate, cpus, st.connections)
    watched = cpus | server_cpus if cpus and server_cpus else None
    before = host.read()
    seen = None
    rc = 0
    try:
        with open(log, "w") as lf:
            g = procs.spawn(generator_argv(generator, st, port, pt.rate,
                                           pt.round + 1, out_json,
                                           pt.server == FLOOR,
                                           pt.generator_threads),
                            cpus, lf, lf, st.fifo)
            try:
                rc = g.wait(timeout=budget)
            except subprocess.TimeoutExpired:
                pt.error = "the generator timed out after %.0f s" % budget
            finally:
                procs.stop(g)
                seen = host.during(before, host.read(), watched)
        if not pt.error and srv.poll() is not None:
            pt.error = "the server exited (%s) during the run" % (
                srv.returncode)
    finally:
        procs.stop(srv)
        pt.wall_s = round(time.monotonic() - t0, 3)
    if not pt.error:
        doc = None
        try:
            with open(out_json) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            pass
        fill(pt, rc, doc if isinstance(doc, dict) else None,
             procs.tail(log, 3))
    if seen is not None:
        note_host(pt, seen)


def progress(i: int, n: int, pt: LatencyPoint, unit: str) -> str:
    """One run's line; a run at a set rate without a fraction (fraction
    0: servers.http.modes) gives the rate alone."""
    rate = "%s %s" % (format(pt.rate, ",.0f"), unit)
    at = "%3.0f%% (%s)" % (100 * pt.fraction, rate) if pt.fraction else rate
    head = "[%d/%d] latency %-15s %s round %d%s: " % (
        i, n, pt.server, at, pt.round,
        " (retry %d)" % pt.attempt if pt.attempt else "")
    if pt.void:
        return head + "VOID: " + pt.void_reason
    if not pt.ok:
        return head + "FAILED: " + pt.error
    return head + "p50 %s  p99 %s  p99.9 %s  (closed-loop p99 %s)" % (
        us(pt.p50_us), us(pt.p99_us), us(pt.p999_us),
        us(pt.uncorrected_p99_us))


def us(v: Optional[float]) -> str:
    """'120 us', '1.35 ms', or '-'."""
    if v is None or not math.isfinite(v):
        return "-"
    return "%.0f us" % v if v < 1000 else "%.2f ms" % (v / 1000)


def add_flags(ap: argparse.ArgumentParser) -> None:
    """The drivers' flags for the latency sweep: --no_latency,
    --latency_rounds, --latency_seconds (0: the profile's),
    --latency_fractions (empty: FRACTIONS) and --latency_sched;
    check_flags checks them."""
    ap.add_argument("--no_latency", action="store_true",
                    help="skip latency at set rates (the open-loop "
                         "generator after the closed-loop runs)")
    ap.add_argument("--latency_rounds", type=int, default=0,
                    help="rounds of the latency sweep (default: the "
                         "profile's, %d; an interval needs 6)" % ROUNDS)
    ap.add_argument("--latency_seconds", type=float, default=0.0,
                    help="measured seconds per latency run (default: the "
                         "profile's)")
    ap.add_argument("--latency_fractions", default=FRACTIONS,
                    type=fractions_arg,
                    help="the rates, comma-separated fractions of the "
                         "slowest server's capacity, each in (0, 1.5] "
                         "(default: %s)" % ",".join(
                             "%g" % f for f in FRACTIONS))
    ap.add_argument("--latency_sched", default="auto", choices=SCHED,
                    help="how the servers and the generator are scheduled "
                         "on their pinned cores: fifo (SCHED_FIFO, "
                         "priority %d, so that no other thread holds the "
                         "core for milliseconds), other (ordinary), auto "
                         "(fifo where the kernel throttles real-time "
                         "threads and allows it; default)"
                         % procs.FIFO_PRIORITY)


SCHED = ("auto", "fifo", "other")


def fractions_of(text: str) -> tuple[float, ...]:
    """--latency_fractions as a tuple (FRACTIONS when empty); ValueError
    for anything but fractions in (0, 1.5], each once."""
    if not text:
        return FRACTIONS
    got = tuple(float(x) for x in text.split(","))
    if not all(0 < f <= 1.5 for f in got) or len(set(got)) != len(got):
        raise ValueError(text)
    return got


def fractions_arg(text: str) -> tuple[float, ...]:
    """fractions_of for argparse: the error says what it takes."""
    try:
        return fractions_of(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            "takes comma-separated fractions in (0, 1.5], each once, e.g. "
            "0.25,0.5,0.75,0.9: %r" % text) from None


def sched_of(choice: str, refused: Optional[Callable[[], str]] = None
             ) -> tuple[int, str]:
    """--latency_sched as (SCHED_FIFO priority, 0 for ordinary; the words
    the report gives); ValueError, saying why, for fifo where it is
    refused. `refused` defaults to procs.fifo_refused, looked up when
    called."""
    if choice == "other":
        return 0, "ordinary scheduling (--latency_sched=other)"
    why = (refused or procs.fifo_refused)()
    if not why:
        return procs.FIFO_PRIORITY, (
            "servers, floor and generator under SCHED_FIFO at priority %d "
            "on their pinned cores" % procs.FIFO_PRIORITY)
    if choice == "fifo":
        raise ValueError(why)
    return 0, "ordinary scheduling: " + why


def check_flags(ap: argparse.ArgumentParser, args: argparse.Namespace
                ) -> None:
    """Exits through ap.error on a negative --latency_rounds or
    --latency_seconds, or --latency_sched=fifo where it is refused; sets
    args.latency_fifo and args.latency_sched_note (sched_of)."""
    if args.latency_rounds < 0 or args.latency_seconds < 0:
        ap.error("--latency_rounds and --latency_seconds take a number "
                 ">= 0 (0: the profile's)")
    try:
        args.latency_fifo, args.latency_sched_note = sched_of(
            args.latency_sched)
    except ValueError as e:
        ap.error("--latency_sched=fifo: %s" % e)
