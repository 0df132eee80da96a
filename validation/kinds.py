# -----------------------------------------------------------------------------
# validation/kinds.py
# -----------------------------------------------------------------------------
#
# The workloads a validation case can run our server under (a case's
# "kind"), each as one function from (flags, case, run settings) to a
# record with the same few keys, so run.py treats them alike:
#
#   pingpong  //servers/pingpong:server under the ping-pong client
#   (servers/driver/procs.py):
#             MiB/s (echo) or messages/s (header/body), higher is better
#   http      //servers/http:server under wrk, GET /collect with an access-log
#             line per request when a logger is on, or the case's "path"
#             (GET /work for the pool) (servers/http/run.py): requests/s,
#             higher is better
#   user      a server serverkit did not build, under the open-loop
#             generator, wrk or the user's load command (user_server.py,
#             for whatif.py): units (requests) per second
#   chat      //servers/chat:server under the chat load test: K clients, one
#             message broadcast per round, every message one posted task per
#             I/O loop (servers/chat/run.py): the round's p50 (ms until
#             all K have it), lower is better
#
# Every record has: ok, error (when not ok), value (the metric; None when
# the run failed), cpu_per_unit (the server's CPU seconds per unit of work,
# the figure that still ranks where the client set the pace), client_bound,
# server_cpus and client_cpus (the cores each process had), server_cpu_s
# (the server's CPU over the run), server_log (the last lines of its
# stderr, with the counts of its stop line), and the kind's own figures
# under "raw".

from __future__ import annotations

import dataclasses
import os
import shutil
from typing import Any

from servers.driver import procs
from servers.chat import run as chat_run
from servers.http import run as http_run
from validation import user_server

_SERVERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HTTP_SERVER = "//servers/http:server"
CHAT_SERVER = "//servers/chat:server"
CHAT_LOADTEST = "//servers/chat:loadtest"
Record = dict[str, Any]
Case = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Kind:
    metric: str          # the record key validate.py reports
    unit: str
    higher_is_better: bool
    work: str            # the unit of work of cpu_per_unit


def kind_of(case: Case) -> Kind:
    kind = case.get("kind", "pingpong")
    if kind == "http":
        return Kind("requests_per_s", "requests/s", True, "request")
    if kind == "user":
        return Kind("units_per_s", case["user"].load.unit + "s/s", True,
                    case["user"].load.unit)
    if kind == "chat":
        return Kind("round_ms_p50", "ms per round", False, "delivery")
    if case["protocol"] == "echo":
        return Kind("mib_per_s", "MiB/s", True, "mib")
    return Kind("messages_per_s", "messages/s", True, "message")


@dataclasses.dataclass
class Settings:
    """What every run of one validation shares."""
    client: str       # the ping-pong client
    pin: str          # auto, yes, no
    seconds: float
    tmp: str          # scratch files


def apart(case: Case, pin: str) -> tuple[str, int]:
    """(pin mode, server cores) for a validation run: the server and its
    client on disjoint cores wherever there are two (unless pin is "no"),
    the server on at most all cores but one, so that every run of a case
    has the same placement and the server's figures are its own."""
    n = len(os.sched_getaffinity(0))
    cores = case.get("server_cores", 0)
    if pin == "no" or n < 2:
        return pin, cores
    return "yes", min(cores, n - 1)


def _pingpong(name: str, flags: list[str], case: Case, s: Settings
              ) -> Record:
    server = procs.Server(name, procs.SERVER, flags)
    pin, server_cores = apart(case, s.pin)
    p = procs.Point(case["protocol"], case["threads"], case["client_threads"],
                    case["block"], case["sessions"], seconds=s.seconds,
                    count=1024, limit=60.0, server_cores=server_cores)
    r = procs.run_point(server, s.client, s.tmp, p, pin)
    k = kind_of(case)
    v = r.get(k.metric) if r.get("ok") else None
    cpu = None
    if v and r.get("seconds") and r.get("server_cpu_s"):
        cpu = r["server_cpu_s"] / (v * r["seconds"])
    return dict(ok=bool(r.get("ok")) and v is not None,
                error=r.get("error", ""), value=v, cpu_per_unit=cpu,
                client_bound=bool(r.get("client_bound")),
                server_cpus=r.get("server_cpus"),
                client_cpus=r.get("client_cpus"),
                server_cpu_s=r.get("server_cpu_s"),
                server_log=r.get("server_log", ""), raw=r)


def _http_pinning(case: Case, pin: str) -> http_run.Pinning:
    """The ping-pong's split (apart, procs.cpu_split): the server on its
    cores, wrk on the others."""
    mode, server_cores = apart(case, pin)
    p = procs.Point("http", case["threads"], case["client_threads"], 0,
                    case["sessions"], server_cores=server_cores)
    pinned, server, client, _ = procs.cpu_split(mode, p)
    return http_run.Pinning(pinned, frozenset(server) if server else None,
                            frozenset(client) if client else None)


def _http(name: str, flags: list[str], case: Case, s: Settings) -> Record:
    wrk = shutil.which("wrk") or "/usr/bin/wrk"
    log_flag = [f for f in flags if f.startswith("--log_file=")]
    spec = http_run.ServerSpec(
        name=name, kind="binary", path=procs.resolve(HTTP_SERVER),
        flags=tuple(f for f in flags if not f.startswith("--log_file=")),
        access_log=bool(log_flag), log_file_flag=bool(log_flag))
    pt = http_run.PointSpec(connections=case["sessions"],
                            wrk_threads=case["client_threads"],
                            seconds=s.seconds, threads=case["threads"],
                            repetition=0,
                            path=case.get("path", http_run.PATH))
    pin = _http_pinning(case, s.pin)
    pointdir = os.path.join(s.tmp, "http-point")
    shutil.rmtree(pointdir, ignore_errors=True)
    rec = http_run.run_point(spec, wrk, pt, pin, pointdir)
    log_bytes = 0
    if log_flag:
        # servers.http.run wrote the access log into the point's directory; the
        # case's own --log_file is where run.py looks for it.
        src = os.path.join(pointdir, "access.log")
        dst = log_flag[0].split("=", 1)[1]
        if os.path.exists(src):
            log_bytes = os.path.getsize(src)
            shutil.move(src, dst)
    cores = sorted(os.sched_getaffinity(0))
    r = rec.to_json()
    r["log_bytes_seen"] = log_bytes
    v = rec.requests_per_s if rec.ok and rec.requests else None
    cpu = rec.server_cpu_s / rec.requests if v else None
    return dict(ok=rec.ok, error=rec.error, value=v, cpu_per_unit=cpu,
                client_bound=rec.client_bound, server_cpu_s=rec.server_cpu_s,
                server_log=procs.tail(os.path.join(pointdir, "server.log"),
                                      10),
                server_cpus=procs.cpu_list(
                    set(pin.server_cpus) if pin.server_cpus else None, cores),
                client_cpus=procs.cpu_list(
                    set(pin.wrk_cpus) if pin.wrk_cpus else None, cores),
                raw=r)


def _chat(name: str, flags: list[str], case: Case, s: Settings) -> Record:
    server = chat_run.ChatServer(name, procs.resolve(CHAT_SERVER), flags)
    p = chat_run.Point(server=name, threads=case["threads"],
                       clients=case["sessions"], rounds=case["rounds"],
                       message_size=case["block"], repetition=0)
    cores = sorted(os.sched_getaffinity(0))
    pin = chat_run.pinning(cores)
    r = chat_run.run_point(server, procs.resolve(CHAT_LOADTEST), p, pin,
                           s.tmp, timeout=30.0)
    ok = bool(r.get("ok")) and r["round_ms"]["p50"] > 0
    per_delivery = r.get("server_cpu_us_per_delivery") or 0.0
    return dict(ok=ok, error=r.get("error", ""),
                value=r["round_ms"]["p50"] if ok else None,
                cpu_per_unit=per_delivery / 1e6 if ok and per_delivery
                else None,
                client_bound=bool(r.get("client_bound")),
                server_cpus=procs.cpu_list(pin.server_cpus, cores),
                client_cpus=procs.cpu_list(pin.load_cpus, cores),
                server_cpu_s=r.get("server_cpu_s"),
                server_log=procs.tail(
                    os.path.join(s.tmp, "server-%s.log" % name), 10),
                raw=r)


def run(name: str, flags: list[str], case: Case, s: Settings) -> Record:
    """One run of our server with `flags` under the case's workload."""
    kind = case.get("kind", "pingpong")
    if kind == "user":
        return user_server.run(case["user"], flags, s.pin, s.seconds, s.tmp)
    if kind == "http":
        return _http(name, flags, case, s)
    if kind == "chat":
        return _chat(name, flags, case, s)
    return _pingpong(name, flags, case, s)
