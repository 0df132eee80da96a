# -----------------------------------------------------------------------------
# servers/http/run.py
# -----------------------------------------------------------------------------
#
# One point of the HTTP benchmark: a server started on a free loopback port
# (ours, Beast, evhttp as `PATH 127.0.0.1 PORT THREADS [flags]`; nginx from
# a generated config in the point's temporary directory), wrk against
# http://127.0.0.1:PORT/collect?v=1 (or PointSpec.path), both pinned to
# disjoint cores when they fit, then the server stopped with its whole
# process group (nginx's master and workers). The record holds wrk's
# figures, the server's CPU seconds (utime + stime of every process in its
# group, from /proc, before and after wrk) and wrk's own CPU (its rusage
# from wait4) as a share of one core per wrk thread.
#
# Layer 2 of servers/http: wrk and nginx below it, and
# servers/driver/procs.py (spawn, stop, free_port, wait_accepting).

from __future__ import annotations

import dataclasses
import os
import subprocess
import time
from typing import Any, Optional

from servers.http import loops as http_loops
from servers.http import nginx as http_nginx
from servers.http import wrk as http_wrk

from servers.driver import procs

PATH = "/collect?v=1"
# The /collect body of every server (http_handler.h's kCollectBody).
BODY = '{"ok":true}'
# wrk at or above this share of its cores: the point may measure wrk.
CLIENT_BOUND_UTIL = 0.9


@dataclasses.dataclass(frozen=True)
class ServerSpec:
    name: str          # "serverkit", "serverkit-log", "nginx", ...
    kind: str          # "binary" (PATH addr port threads flags) or "nginx"
    path: str
    flags: tuple[str, ...]
    access_log: bool
    # Ours with a logger: --log_file=<the point's directory>/access.log.
    log_file_flag: bool = False


@dataclasses.dataclass(frozen=True)
class PointSpec:
    connections: int
    wrk_threads: int
    seconds: float
    threads: int       # the server's
    repetition: int
    path: str = PATH   # what wrk GETs (the validation's pool case: /work)


@dataclasses.dataclass(frozen=True)
class Pinning:
    pinned: bool
    server_cpus: Optional[frozenset[int]]
    wrk_cpus: Optional[frozenset[int]]

    def describe(self) -> str:
        if not self.pinned or not self.server_cpus or not self.wrk_cpus:
            return "not pinned"
        return "server cpus %s, wrk cpus %s" % (
            ",".join(map(str, sorted(self.server_cpus))),
            ",".join(map(str, sorted(self.wrk_cpus))))


def pinning(threads: int, wrk_threads: int, cores: list[int]) -> Pinning:
    """Disjoint cores for the server (the upper half) and wrk (the lower
    half) when both fit; otherwise no pinning."""
    half = len(cores) // 2
    if half < 1 or threads > len(cores) - half or wrk_threads > half:
        return Pinning(False, None, None)
    return Pinning(True, frozenset(cores[half:]), frozenset(cores[:half]))


@dataclasses.dataclass
class PointRecord:
    server: str
    access_log: bool
    threads: int
    connections: int
    wrk_threads: int
    seconds: float
    repetition: int
    ok: bool = False
    error: str = ""
    requests: int = 0
    requests_per_s: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    non_2xx: int = 0
    socket_errors: int = 0
    server_cpu_s: float = 0.0
    server_cpu_us_per_request: float = 0.0
    client_cpu_util: float = 0.0
    client_bound: bool = False
    # CPU seconds used on the machine during wrk's run by everything but
    # the server's group and wrk (other work, the hypervisor's steal
    # included; interrupts excluded).
    other_cpu_s: float = 0.0
    loops: list[http_loops.LoopShare] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The point as results/http.json holds it ("error" only when not
        ok)."""
        d: dict[str, Any] = dict(
            server=self.server, access_log=self.access_log,
            threads=self.threads, connections=self.connections,
            wrk_threads=self.wrk_threads, seconds=self.seconds,
            repetition=self.repetition, ok=self.ok)
        if not self.ok:
            d["error"] = self.error or "failed"
        d.update(requests=self.requests,
                 requests_per_s=round(self.requests_per_s, 2),
                 latency_ms=dict(p50=round(self.p50_ms, 4),
                                 p99=round(self.p99_ms, 4)),
                 non_2xx=self.non_2xx, socket_errors=self.socket_errors,
                 server_cpu_s=round(self.server_cpu_s, 3),
                 server_cpu_us_per_request=round(
                     self.server_cpu_us_per_request, 3),
                 client_cpu_util=round(self.client_cpu_util, 3),
                 client_bound=self.client_bound,
                 other_cpu_s=round(self.other_cpu_s, 3))
        if self.loops:
            d["loops"] = [dataclasses.asdict(x) for x in self.loops]
        return d


def group_cpu_seconds(pgid: int) -> float:
    """The CPU seconds of every live process in process group pgid
    (procs.proc_cpu_seconds: schedstat's nanoseconds where present)."""
    return sum((procs.proc_cpu_seconds(pid) for pid in procs.group_pids(pgid)),
               0.0)


def machine_cpu_seconds() -> float:
    """CPU seconds the whole machine spent busy (all cores) outside
    interrupts (irq, softirq), from /proc/stat's cpu line; steal (a
    hypervisor's other guests) counts as busy."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    # user nice system idle iowait irq softirq steal guest guest_nice
    ticks = [int(x) for x in fields[1:9]]
    busy = ticks[0] + ticks[1] + ticks[2] + ticks[7]
    return busy / os.sysconf("SC_CLK_TCK")


def _server_argv(spec: ServerSpec, port: int, threads: int,
                 pointdir: str, cpus: frozenset[int] = frozenset()
                 ) -> list[str]:
    if spec.kind == "nginx":
        cfg = http_nginx.NginxConfig(
            prefix=pointdir, port=port, workers=threads,
            body=BODY, access_log=spec.access_log, cpus=tuple(cpus))
        return http_nginx.argv(spec.path, cfg, http_nginx.write_config(cfg))
    argv = [spec.path, "127.0.0.1", str(port), str(threads)]
    argv += list(spec.flags)
    if spec.log_file_flag:
        argv.append("--log_file=" + os.path.join(pointdir, "access.log"))
    return argv


def start_server(spec: ServerSpec, threads: int, pin: Pinning,
                 pointdir: str
                 ) -> tuple[Optional[subprocess.Popen[bytes]], int, str]:
    """(process, port, "") once it accepts, or (None, 0, why)."""
    log = os.path.join(pointdir, "server.log")
    for _attempt in range(3):  # a port taken between probe and bind: retry
        port = procs.free_port()
        argv = _server_argv(spec, port, threads, pointdir,
                            pin.server_cpus or frozenset())
        with open(log, "w") as lf:
            srv = procs.spawn(argv, set(pin.server_cpus or ()) or None, lf,
                              lf)
        if procs.wait_accepting(srv, port):
            return srv, port, ""
        procs.stop(srv)
    why = procs.tail(log) or procs.tail(os.path.join(pointdir, "error.log"))
    return None, 0, "server did not start: " + why


def wait_rusage(p: subprocess.Popen[bytes], timeout: float
                ) -> Optional[tuple[int, float]]:
    """Waits for p: (exit status, its CPU seconds from wait4's rusage), or
    None on timeout (p still runs)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            return p.returncode, ru.ru_utime + ru.ru_stime
        if time.monotonic() > deadline:
            return None
        time.sleep(0.02)


def run_point(spec: ServerSpec, wrk: str, pt: PointSpec, pin: Pinning,
              pointdir: str) -> PointRecord:
    """Runs wrk against one freshly started server; never raises for a
    failed server or client (the record says why)."""
    os.makedirs(pointdir, exist_ok=True)
    rec = PointRecord(server=spec.name, access_log=spec.access_log,
                      threads=pt.threads, connections=pt.connections,
                      wrk_threads=pt.wrk_threads, seconds=pt.seconds,
                      repetition=pt.repetition)
    srv, port, why = start_server(spec, pt.threads, pin, pointdir)
    if srv is None:
        rec.error = why
        return rec
    try:
        _run_wrk(rec, srv, wrk, port, pt, pin, pointdir)
    finally:
        procs.stop(srv)
    log = os.path.join(pointdir, "server.log")
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            rec.loops = http_loops.loop_shares(f.read())
    if rec.ok and spec.access_log:
        log = os.path.join(pointdir, "access.log")
        if not os.path.exists(log) or os.path.getsize(log) == 0:
            rec.ok, rec.error = False, "the access log is empty"
    return rec


def _run_wrk(rec: PointRecord, srv: subprocess.Popen[bytes], wrk: str,
             port: int, pt: PointSpec, pin: Pinning, pointdir: str) -> None:
    out = os.path.join(pointdir, "wrk.txt")
    argv = http_wrk.argv(wrk, pt.wrk_threads, pt.connections, pt.seconds,
                         "http://127.0.0.1:%d%s" % (port, pt.path))
    cpu0 = group_cpu_seconds(srv.pid)
    machine0 = machine_cpu_seconds()
    t0 = time.monotonic()
    with open(out, "w") as f:
        cp = procs.spawn(argv, set(pin.wrk_cpus or ()) or None, f, f)
        try:
            waited = wait_rusage(cp, pt.seconds + 30)
        finally:
            procs.stop(cp)
    wall = time.monotonic() - t0
    rec.server_cpu_s = group_cpu_seconds(srv.pid) - cpu0
    machine = machine_cpu_seconds() - machine0
    if waited is None:
        rec.error = "wrk timed out after %.0f s" % (pt.seconds + 30)
        return
    rc, wrk_cpu = waited
    rec.other_cpu_s = max(0.0, machine - rec.server_cpu_s - wrk_cpu)
    if srv.poll() is not None:
        rec.error = "server exited (%s): %s" % (
            srv.returncode, procs.tail(os.path.join(pointdir, "server.log")))
        return
    with open(out, errors="replace") as f:
        text = f.read()
    try:
        res = http_wrk.parse(text)
    except http_wrk.WrkParseError as e:
        rec.error = "wrk exited %d: %s" % (rc, e)
        return
    rec.requests, rec.requests_per_s = res.requests, res.requests_per_s
    rec.p50_ms, rec.p99_ms = res.p50_ms, res.p99_ms
    rec.non_2xx, rec.socket_errors = res.non_2xx, res.socket_errors
    if res.requests:
        rec.server_cpu_us_per_request = 1e6 * rec.server_cpu_s / res.requests
    rec.client_cpu_util = wrk_cpu / max(wall, 1e-9) / pt.wrk_threads
    rec.client_bound = rec.client_cpu_util >= CLIENT_BOUND_UTIL
    problems = []
    if rc != 0:
        problems.append("wrk exited %d" % rc)
    if res.requests == 0:
        problems.append("no requests")
    if res.non_2xx:
        problems.append("%d non-2xx responses" % res.non_2xx)
    if res.socket_errors:
        problems.append("socket errors: " + res.socket_error_detail)
    rec.ok = not problems
    rec.error = "; ".join(problems)
