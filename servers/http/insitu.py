# -----------------------------------------------------------------------------
# servers/http/insitu.py
# -----------------------------------------------------------------------------
#
# What a log line costs inside our HTTP server, thread by thread: the
# validation's access-log case (GET /collect under wrk -t1 -c50, one
# access-log line per request, the server on one core and wrk on the
# other) run with each logger in rounds, every logger once a round in a
# fresh random order, and each server thread's CPU, migrations and
# voluntary and involuntary switches read from /proc/<pid>/task/<tid>/
# {sched,stat} before and after wrk, per request. Hardware counters
# (cache and TLB misses) through perf_event_open where the kernel has them;
# the record says why where it refuses.
#
#   PYTHONPATH=. python3 -m servers.http.insitu --rounds 3 --seconds 10 \
#       --json /tmp/insitu.json
#
# --pingpong --connections 1: the log-per-message case at 1 session.
#
# The validation's question is why the server pays more per line than the
# micro benchmark measures; this answers where (which thread, switches).
#
# Layer 2 of servers/http, beside run: wrk and loops below it.

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from typing import Any, Optional

from servers.driver import procs
from servers.http import loops as http_loops
from servers.http import wrk as http_wrk

# bazel-bin follows the last build's mode; the validation runs -c opt.
SERVER = "bazel-out/k8-opt/bin/servers/http/server"
LOGGERS = ("none", "sync", "async-queue-bounded-mpmc")
URL = "http://127.0.0.1:%d/collect?v=1"
# --pingpong: the validation's log-per-message case instead (4 KiB echo, a
# line per message; --connections is then the sessions).
PP = "bazel-out/k8-opt/bin/servers/pingpong/"


@dataclasses.dataclass(frozen=True)
class ThreadStat:
    """One thread's counters at one moment."""
    tid: int
    cpu_ns: float        # se.sum_exec_runtime: ns precision, unlike ticks
    ticks: int           # utime + stime from stat, for a cross-check
    migrations: int
    voluntary: int
    involuntary: int


_SCHED = re.compile(r"^(se\.sum_exec_runtime|se\.nr_migrations|"
                    r"nr_voluntary_switches|nr_involuntary_switches)"
                    r"\s*:\s*([0-9.]+)", re.MULTILINE)


def parse_thread(tid: int, sched: str, stat: str) -> ThreadStat:
    """A ThreadStat from the texts of /proc/.../task/<tid>/sched and stat."""
    f = {k: float(v) for k, v in _SCHED.findall(sched)}
    # stat's comm may hold spaces: the fields after its closing ')'.
    rest = stat[stat.rindex(")") + 2:].split()
    return ThreadStat(tid, f.get("se.sum_exec_runtime", 0.0) * 1e6,
                      int(rest[11]) + int(rest[12]),
                      int(f.get("se.nr_migrations", 0)),
                      int(f.get("nr_voluntary_switches", 0)),
                      int(f.get("nr_involuntary_switches", 0)))


def read_threads(pid: int) -> dict[int, ThreadStat]:
    out = {}
    base = "/proc/%d/task" % pid
    for name in os.listdir(base):
        try:
            with open(os.path.join(base, name, "sched")) as f:
                sched = f.read()
            with open(os.path.join(base, name, "stat")) as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended
        out[int(name)] = parse_thread(int(name), sched, stat)
    return out


def thread_deltas(pid: int, before: dict[int, ThreadStat],
                  after: dict[int, ThreadStat], async_logger: bool
                  ) -> dict[str, dict[str, float]]:
    """Per role, the change over the run: "io" is the main thread (the one
    loop runs there), "backend" the busiest other thread of an async
    logger, "other" the rest summed."""
    d: dict[int, dict[str, float]] = {}
    for tid, a in after.items():
        b = before.get(tid, ThreadStat(tid, 0.0, 0, 0, 0, 0))
        d[tid] = dict(cpu_ns=a.cpu_ns - b.cpu_ns, ticks=a.ticks - b.ticks,
                      migrations=a.migrations - b.migrations,
                      voluntary=a.voluntary - b.voluntary,
                      involuntary=a.involuntary - b.involuntary)
    roles: dict[str, dict[str, float]] = {}
    rest = sorted((t for t in d if t != pid), key=lambda t: -d[t]["cpu_ns"])
    if pid in d:
        roles["io"] = d[pid]
    if async_logger and rest:
        roles["backend"] = d[rest.pop(0)]
    if rest:
        roles["other"] = {k: sum(d[t][k] for t in rest) for k in d[rest[0]]}
    return roles


# --- perf_event_open ---------------------------------------------------------

# (name, type, config): PERF_TYPE_HARDWARE 0, PERF_TYPE_HW_CACHE 3 with
# cache | op << 8 | result << 16 (L1D 0, LL 2, DTLB 3; read 0; miss 1).
HW_EVENTS = (("cycles", 0, 0), ("instructions", 0, 1),
             ("cache_misses", 0, 3), ("l1d_read_misses", 3, 0 | 1 << 16),
             ("llc_read_misses", 3, 2 | 1 << 16),
             ("dtlb_read_misses", 3, 3 | 1 << 16))
_NR_PERF_EVENT_OPEN = 298  # x86_64
_libc = ctypes.CDLL(None, use_errno=True)


def perf_open(tid: int, type_: int, config: int) -> tuple[int, str]:
    """A counting fd on thread tid (user and kernel), or (-1, why)."""
    attr = (ctypes.c_uint8 * 128)()
    for off, val, size in ((0, type_, 4), (4, 128, 4), (8, config, 8)):
        ctypes.memmove(ctypes.addressof(attr) + off,
                       val.to_bytes(size, "little"), size)
    fd = _libc.syscall(_NR_PERF_EVENT_OPEN, attr, tid, -1, -1, 0)
    if fd < 0:
        err = ctypes.get_errno()
        return -1, "%s (errno %d)" % (os.strerror(err), err)
    return int(fd), ""


class Counters:
    """HW_EVENTS on every thread of pid, opened now; read() sums them."""

    def __init__(self, pid: int, tids: list[int]) -> None:
        self.fds: dict[str, list[int]] = {}
        self.refused: dict[str, str] = {}
        for name, type_, config in HW_EVENTS:
            for tid in tids:
                fd, why = perf_open(tid, type_, config)
                if fd < 0:
                    self.refused[name] = why
                    break
                self.fds.setdefault(name, []).append(fd)
        for name in self.refused:
            for fd in self.fds.pop(name, []):
                os.close(fd)

    def read(self) -> dict[str, int]:
        return {name: sum(int.from_bytes(os.read(fd, 8), "little")
                          for fd in fds) for name, fds in self.fds.items()}

    def close(self) -> None:
        for fds in self.fds.values():
            for fd in fds:
                os.close(fd)
        self.fds = {}


# --- one run -----------------------------------------------------------------

def logger_flags(logger: str, log: str) -> list[str]:
    """"none": no access log; "NAME+N": NAME with N ns of busy wait per
    line (the validation's positive control)."""
    if logger == "none":
        return []
    name, _, slow = logger.partition("+")
    flags = ["--logger=" + name, "--log_file=" + log]
    return flags + (["--log_slowdown_ns=" + slow] if slow else [])


def run_one(server: str, logger: str, seconds: int, connections: int,
            server_cpus: set[int], wrk_cpus: set[int], wrk: str,
            workdir: str, pingpong: bool = False) -> dict[str, Any]:
    """One server with `logger` under wrk (or the ping-pong client):
    per-request figures by role."""
    log = os.path.join(workdir, "access.log")
    out = os.path.join(workdir, "server.out")
    port = procs.free_port()
    argv = [PP + "server" if pingpong else server, "127.0.0.1", str(port),
            "1"] + (["--protocol=echo"] if pingpong else [])
    argv += logger_flags(logger, log)
    load = [PP + "client", "127.0.0.1", str(port), "1", "4096",
            str(connections), str(seconds), "--protocol=echo",
            "--json=" + os.path.join(workdir, "client.json")] if pingpong \
        else http_wrk.argv(wrk, 1, connections, seconds, URL % port)
    with open(out, "w") as f:
        srv = procs.spawn(argv, server_cpus, f, f)
    rec: dict[str, Any] = dict(logger=logger)
    try:
        if not procs.wait_accepting(srv, port):
            rec["error"] = "server did not start"
            return rec
        before = read_threads(srv.pid)
        ctr = Counters(srv.pid, sorted(before))
        c0 = ctr.read()
        with open(os.path.join(workdir, "wrk.txt"), "w+") as wf:
            subprocess.run(
                load, stdout=wf, stderr=subprocess.STDOUT, check=False,
                preexec_fn=lambda: os.sched_setaffinity(0, wrk_cpus))
            wf.seek(0)
            if not pingpong:
                rec["requests_per_s"] = http_wrk.parse(
                    wf.read()).requests_per_s
        c1 = ctr.read()
        ctr.close()
        after = read_threads(srv.pid)
        rec["roles"] = thread_deltas(srv.pid, before, after,
                                     not logger.startswith(("sync", "none")))
        rec["hw"] = {k: c1[k] - c0[k] for k in c1}
        rec["hw_refused"] = ctr.refused
    finally:
        procs.stop(srv)
    with open(out, errors="replace") as f:
        text = f.read()
    shares = http_loops.loop_shares(text)
    msgs = re.search(r"messages (\d+)", text) if pingpong else None
    rec["replies"] = int(msgs.group(1)) if msgs else sum(
        s.replies for s in shares)
    rec["busy_polls"] = sum(s.busy_polls for s in shares)
    rec["log_bytes"] = os.path.getsize(log) if os.path.exists(log) else 0
    if os.path.exists(log):
        os.unlink(log)
    return rec


MICRO = "bazel-out/k8-opt/bin/logger/logger_benchmark"
MICRO_FILTER = ("logger/(shared-core-file|latency-file)/(%s)/callers:1/"
                "(ws_kib:64|bytes:32)$")


def micro_costs(doc: dict[str, Any]) -> dict[str, float]:
    """"<scenario>/<impl>": the median cpu_ns_per_item of a logger sweep
    file's runs."""
    got: dict[str, list[float]] = {}
    for b in doc.get("benchmarks", []):
        parts = str(b.get("name", "")).split("/")
        v = b.get("cpu_ns_per_item")
        if len(parts) > 2 and isinstance(v, (int, float)):
            got.setdefault(parts[1] + "/" + parts[2], []).append(float(v))
    return {k: statistics.median(v) for k, v in got.items()}


def run_micro(binary: str, loggers: list[str], workdir: str
              ) -> dict[str, float]:
    """Two rounds of the logger sweep's two CPU scenarios, these loggers."""
    out = os.path.join(workdir, "micro.json")
    names = "|".join(lg for lg in loggers if lg not in ("none",) and
                     "+" not in lg)
    subprocess.run([binary, "--benchmark_filter=" + MICRO_FILTER % names,
                    "--min_rounds=2", "--max_rounds=2",
                    "--round_budget_s=5", "--benchmark_out=" + out],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    try:
        with open(out) as f:
            return micro_costs(json.load(f))
    except (OSError, ValueError):
        return {}


def per_request(rec: dict[str, Any]) -> dict[str, float]:
    """The run's figures per request (ns for CPU)."""
    n = max(int(rec.get("replies", 0)), 1)
    out: dict[str, float] = {}
    total = 0.0
    for role, d in rec.get("roles", {}).items():
        out[role + "_cpu_ns"] = d["cpu_ns"] / n
        total += d["cpu_ns"]
        for k in ("voluntary", "involuntary", "migrations"):
            out["%s_%s" % (role, k)] = d[k] / n
    out["cpu_ns"] = total / n
    for k, v in rec.get("hw", {}).items():
        out["hw_" + k] = v / n
    out["lines_per_busy_poll"] = n / max(int(rec.get("busy_polls", 1)), 1)
    return out


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per logger the median per-request figures, and per round the ratio
    and difference of each figure against sync."""
    by: dict[str, list[dict[str, float]]] = {}
    for r in runs:
        if "error" not in r:
            by.setdefault(r["logger"], []).append(per_request(r))
    med = {lg: {k: statistics.median(x[k] for x in xs if k in x)
                for k in xs[0]} for lg, xs in by.items()}
    pairs: dict[str, list[float]] = {}
    for rnd in sorted({r["round"] for r in runs}):
        got = {r["logger"]: per_request(r) for r in runs
               if r["round"] == rnd and "error" not in r}
        for lg, x in got.items():
            # Against no log: what a line costs in situ, thread by thread.
            if lg != "none" and "none" in got:
                z = got["none"]
                pairs.setdefault(lg + ":line_cpu_ns", []).append(
                    x["cpu_ns"] - z["cpu_ns"])
                pairs.setdefault(lg + ":line_io_cpu_ns", []).append(
                    x["io_cpu_ns"] - z["io_cpu_ns"])
            if lg.startswith("sync+") and "sync" in got:
                # The exchange rate in situ: server ns per injected ns.
                pairs.setdefault("k", []).append(
                    (x["cpu_ns"] - got["sync"]["cpu_ns"]) /
                    float(lg.partition("+")[2]))
            if lg not in ("sync", "none") and "+" not in lg and \
                    "sync" in got:
                s = got["sync"]
                pairs.setdefault(lg + ":cpu_ratio", []).append(
                    s["cpu_ns"] / x["cpu_ns"])
                pairs.setdefault(lg + ":extra_cpu_ns", []).append(
                    x["cpu_ns"] - s["cpu_ns"])
                pairs.setdefault(lg + ":io_extra_cpu_ns", []).append(
                    x["io_cpu_ns"] - s["io_cpu_ns"])
        micro: dict[str, float] = next(
            (r["micro"] for r in runs
             if r["round"] == rnd and r.get("micro")), {})
        for key in micro:
            scen, _, impl = key.partition("/")
            if impl not in got or "sync" not in got or impl == "sync":
                continue
            d = micro[key] - micro.get(scen + "/sync", micro[key])
            pairs.setdefault("%s:%s:micro_extra_ns" % (impl, scen),
                             []).append(d)
            # γ at k = 1: the server's extra CPU over the micro's.
            extra = got[impl]["cpu_ns"] - got["sync"]["cpu_ns"]
            pairs.setdefault("%s:%s:gamma_k1" % (impl, scen), []).append(
                extra / d if d else float("nan"))
    return dict(median=med, per_round=pairs,
                per_round_median={k: statistics.median(v)
                                  for k, v in pairs.items()})


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--server", default=SERVER)
    ap.add_argument("--wrk", default="/usr/bin/wrk")
    ap.add_argument("--loggers", default=",".join(LOGGERS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--server_cpus", default="1")
    ap.add_argument("--wrk_cpus", default="0")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default="")
    ap.add_argument("--pingpong", action="store_true",
                    help="the ping-pong server and client, not HTTP")
    ap.add_argument("--micro", default="",
                    help="the logger sweep binary: after each round, its "
                    "shared-core-file and latency-file CPU per line "
                    "(e.g. " + MICRO + ")")
    a = ap.parse_args(argv)
    cpus = [{int(c) for c in s.split(",")}
            for s in (a.server_cpus, a.wrk_cpus)]
    rng = random.Random(a.seed)
    runs = []
    for rnd in range(a.rounds):
        order = a.loggers.split(",")
        rng.shuffle(order)
        for lg in order:
            with tempfile.TemporaryDirectory(dir="/dev/shm") as d:
                rec = run_one(a.server, lg, a.seconds, a.connections,
                              cpus[0], cpus[1], a.wrk, d, a.pingpong)
            rec["round"] = rnd
            runs.append(rec)
            pr = per_request(rec)
            print("round %d %-26s %s" % (rnd, lg, " ".join(
                "%s=%.4g" % kv for kv in sorted(pr.items()))), flush=True)
        if a.micro:
            with tempfile.TemporaryDirectory() as d:
                runs[-1]["micro"] = run_micro(a.micro, order, d)
            print("round %d micro %s" % (rnd, json.dumps(runs[-1]["micro"])),
                  flush=True)
    summary = summarise(runs)
    print(json.dumps(summary["per_round_median"], indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(runs=runs, summary=summary,
                           loadavg=os.getloadavg()), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
