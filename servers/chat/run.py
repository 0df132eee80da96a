# -----------------------------------------------------------------------------
# servers/chat/run.py
# -----------------------------------------------------------------------------
#
# One point of the chat benchmark: a server started on a free loopback port
# (servers/driver/procs.py: its own process group, killed with the driver,
# optionally pinned), the load test against it, and one record:
#
#   server  PATH 127.0.0.1 <port> <threads> [flags...]
#   load    loadtest 127.0.0.1 <port> <clients> 1 --rounds=R
#           --message_size=N --json=PATH --timeout=S --server_pid=PID
#
# The record carries the driver's view of the server's CPU (utime + stime
# before and after the whole load test, connects and join included:
# server_cpu_s), the load test's view over the measured rounds only
# (server_cpu_rounds_s, exact, from schedstat), the server's CPU per
# delivered message over the rounds, the server's and the load test's
# share of a core over the rounds (server_cpu_util, client_cpu_util), and
# whether the load test used about all of its core (client_bound).

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from typing import Any, Optional

from servers.driver import procs

SERVER = "//servers/chat:server"
ASIO = "//servers/chat:asio_server"
LOADTEST = "//servers/chat:loadtest"

# The load test at or above this share of its core may be the bottleneck.
CLIENT_BOUND = 0.9

Record = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class ChatServer:
    name: str         # the column name: "serverkit", "asio"
    path: str
    flags: list[str]


@dataclasses.dataclass(frozen=True)
class Point:
    server: str
    threads: int       # the server's
    clients: int       # K
    rounds: int        # R
    message_size: int  # bytes of message (the frame adds 4)
    repetition: int


@dataclasses.dataclass(frozen=True)
class Pinning:
    pinned: bool
    server_cpus: Optional[set[int]]
    load_cpus: Optional[set[int]]
    text: str          # the JSON context's "pin"


def pinning(cores: list[int]) -> Pinning:
    """Server and load test on disjoint halves of the cores (server the
    upper half), or nothing pinned on one core."""
    if len(cores) < 2:
        return Pinning(False, None, None,
                       "not pinned (%d core)" % len(cores))
    half = len(cores) // 2
    server, load = set(cores[half:]), set(cores[:half])

    def names(cpus: set[int]) -> str:
        return ",".join(str(c) for c in sorted(cpus))
    return Pinning(True, server, load, "server cpus %s, load test cpus %s"
                   % (names(server), names(load)))


def loadtest_argv(loadtest: str, port: int, p: Point, out_json: str,
                  timeout: float, server_pid: int) -> list[str]:
    return [loadtest, "127.0.0.1", str(port), str(p.clients), "1",
            "--rounds=%d" % p.rounds, "--message_size=%d" % p.message_size,
            "--json=" + out_json, "--timeout=%g" % timeout,
            "--server_pid=%d" % server_pid]


def record_of(p: Point, lt: Record, server_cpu_s: float) -> Record:
    """The point's record from the load test's JSON and the server CPU the
    driver measured (pure: no processes)."""
    rec: Record = dict(
        server=p.server, threads=p.threads, clients=p.clients,
        rounds=p.rounds, message_size=p.message_size,
        repetition=p.repetition, ok=bool(lt.get("ok")))
    if not rec["ok"]:
        rec["error"] = lt.get("error") or "the load test failed"
    rec["round_ms"] = {k: lt.get("round_ms", {}).get(k, 0.0)
                       for k in ("p50", "min", "max")}
    rec["delivery_us"] = {k: lt.get("delivery_us", {}).get(k, 0.0)
                          for k in ("p50", "p99", "max")}
    rec["server_cpu_s"] = round(server_cpu_s, 4)
    deliveries = int(lt.get("deliveries", 0))
    rounds_cpu = float(lt.get("server_cpu_rounds_s", -1))
    rec["server_cpu_rounds_s"] = round(rounds_cpu, 6)
    rec["server_cpu_us_per_delivery"] = (
        round(1e6 * rounds_cpu / deliveries, 4)
        if deliveries > 0 and rounds_cpu >= 0 else 0.0)
    seconds = float(lt.get("seconds", 0))
    util = float(lt.get("client_cpu_s", 0)) / seconds if seconds > 0 else 0
    rec["client_cpu_util"] = round(util, 3)
    rec["client_bound"] = util >= CLIENT_BOUND
    # The server's cores busy over the rounds (near its pinned cores: the
    # server is the bottleneck).
    rec["server_cpu_util"] = (round(rounds_cpu / seconds, 3)
                              if seconds > 0 and rounds_cpu >= 0 else 0.0)
    for k in ("deliveries", "seconds", "connect_seconds", "join_seconds",
              "join_probes"):
        if k in lt:
            rec[k] = lt[k]
    return rec


def failed(p: Point, error: str) -> Record:
    return record_of(p, {"ok": False, "error": error}, 0.0)


def run_point(server: ChatServer, loadtest: str, p: Point, pin: Pinning,
              tmp: str, timeout: float) -> Record:
    """Starts the server, runs the load test against it, stops the server;
    returns the record (ok False with an error on any failure)."""
    log = os.path.join(tmp, "server-%s.log" % server.name)
    srv: Optional[subprocess.Popen[bytes]] = None
    port = 0
    for _attempt in range(3):  # a port taken between probe and bind
        port = procs.free_port()
        argv = [server.path, "127.0.0.1", str(port), str(p.threads)]
        with open(log, "w") as lf:
            srv = procs.spawn(argv + server.flags, pin.server_cpus, lf, lf)
        if procs.wait_accepting(srv, port):
            break
        procs.stop(srv)
        srv = None
    if srv is None:
        return failed(p, "server did not start: " + procs.tail(log))
    try:
        return _load(srv, port, loadtest, p, pin, tmp, timeout, log)
    finally:
        procs.stop(srv)


def _load(srv: subprocess.Popen[bytes], port: int, loadtest: str, p: Point,
          pin: Pinning, tmp: str, timeout: float, log: str) -> Record:
    out_json = os.path.join(tmp, "loadtest.json")
    lt_log = os.path.join(tmp, "loadtest.log")
    if os.path.exists(out_json):
        os.remove(out_json)
    # Connect, join, the rounds: each phase may take `timeout` without
    # progress; beyond that the load test fails on its own.
    budget = 4 * timeout + 30
    cpu0 = procs.proc_cpu_seconds(srv.pid)
    with open(lt_log, "w") as lf:
        lt = procs.spawn(loadtest_argv(loadtest, port, p, out_json, timeout,
                                       srv.pid), pin.load_cpus, lf, lf)
        try:
            rc = lt.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            return failed(p, "load test timed out after %.0f s" % budget)
        finally:
            procs.stop(lt)
    cpu = procs.proc_cpu_seconds(srv.pid) - cpu0
    try:
        with open(out_json) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return failed(p, "load test wrote no JSON (rc %d): %s"
                      % (rc, procs.tail(lt_log)))
    rec = record_of(p, data, cpu)
    if srv.poll() is not None:
        rec["ok"] = False
        rec["error"] = "server exited (%s): %s" % (srv.returncode,
                                                   procs.tail(log))
    elif rc != 0 and rec["ok"]:
        rec["ok"] = False
        rec["error"] = "load test exit %d: %s" % (rc, procs.tail(lt_log))
    return rec
