# -----------------------------------------------------------------------------
# servers/driver/procs.py
# -----------------------------------------------------------------------------
#
# The drivers' processes, shared by the ping-pong sweep
# (servers/pingpong/sweep.py), the chat and HTTP drivers and the validation
# (validation/run.py): finding a server or the client by path or
# label (resolve, Server), starting one in its own process group that dies with
# the driver (spawn, PR_SET_PDEATHSIG) and stopping it with its whole group
# (stop, stop_all), a free loopback port, waiting until a server accepts,
# a process's CPU seconds from /proc, the descriptor limit the children
# inherit (raise_fd_limit), real-time scheduling for the latency sweeps
# (fifo_refused, set_fifo, spawn's fifo), and one point: a server with the
# client against it (run_point, a Point).
#
# Every server is started as
#     PATH 127.0.0.1 <free port> <threads> --protocol=echo|header [flags...]
# and the client as
#     client 127.0.0.1 <port> <threads> <block> <sessions> <seconds|limit>
#            --protocol=echo|header --json=PATH [--count=N]
#
# The bottom layer of the servers' drivers (servers/driver): standard
# library only.

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import resource
import signal
import socket
import subprocess
import time
from typing import IO, Any, Callable, Optional

# Our server (the reactor, a policy chosen by flags) and the one client.
SERVER = "//servers/pingpong:server"
CLIENT = "//servers/pingpong:client"

HERE = os.path.dirname(os.path.abspath(__file__))
RUNFILES_ROOT = os.path.dirname(os.path.dirname(HERE))  # .../serverkit
WORKSPACE = os.environ.get("BUILD_WORKSPACE_DIRECTORY", "")

_live: list[subprocess.Popen[bytes]] = []  # still to be stopped


class SweepError(Exception):
    pass


# --- processes ---------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _child_setup(cpus: Optional[set[int]], fifo: int
                 ) -> Callable[[], None]:
    def setup() -> None:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if cpus:
            os.sched_setaffinity(0, cpus)
        if fifo:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(fifo))
    return setup


def spawn(argv: list[str], cpus: Optional[set[int]], stdout: IO[str],
          stderr: IO[str], fifo: int = 0,
          env: Optional[dict[str, str]] = None) -> subprocess.Popen[bytes]:
    """Starts argv in a session of its own, on cpus (None: any), killed
    when this process dies; under SCHED_FIFO at priority fifo when it is
    not 0 (raises PermissionError where that is refused); env, if given,
    added to this process's environment."""
    p = subprocess.Popen(argv, stdout=stdout, stderr=stderr,
                         stdin=subprocess.DEVNULL, start_new_session=True,
                         preexec_fn=_child_setup(cpus, fifo),
                         env=dict(os.environ, **env) if env else None)
    _live.append(p)
    return p


# --- real-time scheduling ----------------------------------------------------

# The latency sweeps' priority: above every ordinary thread, so that a
# housekeeping thread (the kernel's DAMON scan, an agent, an idle JVM)
# cannot hold a pinned core for milliseconds, and below the kernel's own
# real-time threads (interrupt threads at 50, migration at 99).
FIFO_PRIORITY = 10
RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"


def fifo_refused(rt_runtime: str = RT_RUNTIME) -> str:
    """'' when children may run under SCHED_FIFO here, else why not: the
    kernel must throttle real-time threads (so that a server that spins
    cannot starve the driver) and must let this process raise them."""
    try:
        with open(rt_runtime) as f:
            runtime = int(f.read())
    except (OSError, ValueError) as e:
        return "%s unreadable (%s)" % (rt_runtime, e)
    if runtime < 0:
        return ("real-time throttling is off (%s is -1): a server that "
                "spun could starve the driver" % rt_runtime)
    try:
        subprocess.run(["true"], check=True, stdin=subprocess.DEVNULL,
                       preexec_fn=_child_setup(None, FIFO_PRIORITY))
    except (OSError, subprocess.SubprocessError) as e:
        return "SCHED_FIFO refused (%s): run as root or with CAP_SYS_NICE" \
            % e
    return ""


def group_pids(pgid: int) -> list[int]:
    """The live processes of process group pgid, from /proc."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                # pgrp is the third field after the command's last bracket
                if f.read().rsplit(")", 1)[1].split()[2] == str(pgid):
                    pids.append(int(entry))
        except (OSError, IndexError):
            continue
    return pids


# set_fifo walks the group again until a walk finds no thread it has not
# set: a thread that an unset thread creates during a walk is caught by
# the next one (threads made by a set thread inherit SCHED_FIFO).
SET_FIFO_WALKS = 10


def set_fifo(pgid: int, priority: int = FIFO_PRIORITY) -> int:
    """Puts every thread of every process in process group pgid under
    SCHED_FIFO at priority: the threads set (threads that exit meanwhile
    are skipped; raises PermissionError where that is refused)."""
    done: set[int] = set()
    for _walk in range(SET_FIFO_WALKS):
        found = 0
        for pid in group_pids(pgid):
            try:
                tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)]
            except OSError:
                continue
            for tid in tids:
                if tid in done:
                    continue
                try:
                    os.sched_setscheduler(tid, os.SCHED_FIFO,
                                          os.sched_param(priority))
                    done.add(tid)
                    found += 1
                except ProcessLookupError:
                    pass
        if not found:
            break
    return len(done)


def stop(p: subprocess.Popen[bytes], grace: float = 2.0) -> None:
    """Stops p's whole process group: SIGTERM, then SIGKILL."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(p.pid, signal.SIGKILL)  # stragglers in the group
    except (ProcessLookupError, PermissionError):
        pass
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if p in _live:
        _live.remove(p)


def stop_all() -> None:
    for p in list(_live):
        stop(p, grace=1.0)


# --- paths -------------------------------------------------------------------

def resolve(spec: str) -> str:
    """An executable for a path or a label; raises SweepError."""
    candidates = []
    if spec.startswith("//") or spec.startswith("@"):
        label = spec.split("//", 1)[1]
        pkg, _, name = label.partition(":")
        if not name:
            name = os.path.basename(pkg)
        rel = os.path.join(pkg, name)
        candidates.append(os.path.join(RUNFILES_ROOT, rel))
        if WORKSPACE:
            candidates.append(os.path.join(WORKSPACE, "bazel-bin", rel))
    elif os.path.isabs(spec):
        candidates.append(spec)
    else:
        candidates.append(os.path.join(RUNFILES_ROOT, spec))
        if WORKSPACE:
            candidates.append(os.path.join(WORKSPACE, spec))
        candidates.append(os.path.abspath(spec))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise SweepError("cannot find an executable for %r (looked at %s); build "
                     "it or add it to the data of //validation:pingpong"
                     % (spec, ", ".join(candidates)))


class Server:
    """A server to run: its column name, path or label, and the flags it
    gets on every run. Raises SweepError when it cannot be found."""

    def __init__(self, name: str, spec: str, extra: list[str]) -> None:
        self.name, self.spec, self.extra = name, spec, extra
        self.path = resolve(spec)


def raise_fd_limit(need: int = 0) -> int:
    """Raises the hard descriptor limit to `need` where allowed (root), and
    the soft one to the hard one, for this process and its children;
    returns the soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, need))
            soft, hard = need, need
        except (ValueError, OSError):
            pass
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


# --- one point ---------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_accepting(proc: subprocess.Popen[bytes], port: int,
                   timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.02)
    return False


def tail(path: str, n: int = 5) -> str:
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:]).strip()
    except OSError:
        return ""


def proc_cpu_seconds(pid: int) -> float:
    """The CPU seconds a live process's threads have run: the sum of their
    /proc schedstat run times (nanoseconds; the 10 ms ticks of utime and
    stime are too coarse for a 1 s run), or utime + stime where schedstat
    is missing; 0 when the process is gone."""
    try:
        total = 0
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def add_server_cpu_per_work(rec: dict[str, Any]) -> None:
    """The server's CPU per unit of work, beside the throughput: ms per MiB
    moved (echo) and us per message (header). The CPU is the server's
    utime + stime over the client's whole run, connects included, so a
    point with many sessions counts its connects too (for every server
    alike); the work is what the client counted in its timed window. The
    figure that still ranks servers where the client is the bottleneck."""
    cpu = rec.get("server_cpu_s")
    if cpu is None:
        return
    mib = rec.get("bytes", 0) / float(1 << 20)
    if mib > 0:
        rec["server_cpu_ms_per_mib"] = round(1000.0 * cpu / mib, 4)
    if rec.get("messages"):
        rec["server_cpu_us_per_message"] = round(
            1e6 * cpu / rec["messages"], 3)


@dataclasses.dataclass(frozen=True)
class Point:
    """One point: the echo protocol runs for `seconds`; the header protocol
    runs `count` messages per session, for at most `limit` seconds."""
    protocol: str        # "echo" or "header"
    threads: int         # the server's
    client_threads: int
    block: int           # bytes per echo block (header: unused by the client)
    sessions: int
    seconds: float = 0.0
    count: int = 0
    limit: float = 0.0
    server_cores: int = 0  # cores the server may use; 0: half of them

    def duration(self) -> float:
        """The client's time argument."""
        return self.seconds if self.protocol == "echo" else self.limit


def cpu_split(pin: str, p: Point
              ) -> tuple[bool, Optional[set[int]], Optional[set[int]],
                         list[int]]:
    """(pinned, server cpus, client cpus, this process's cores): disjoint
    sets when pin is "yes", or "auto" and the threads fit: the server gets
    p.server_cores cores (its I/O threads plus room for a helper thread such
    as a logger's backend), or half of them when that is 0; the client the
    rest."""
    cores = sorted(os.sched_getaffinity(0))
    server_n = p.server_cores or len(cores) // 2
    need = (p.server_cores or p.threads) + p.client_threads
    pinned = (pin == "yes" or (pin == "auto" and len(cores) >= 2 and
                               need <= len(cores)))
    if not pinned or server_n >= len(cores):
        return False, None, None, cores
    return (True, set(cores[len(cores) - server_n:]),
            set(cores[:len(cores) - server_n]), cores)


def cpu_list(cpus: Optional[set[int]], cores: list[int]) -> str:
    """"0,1": the cores a process may run on (all of them when unpinned)."""
    return ",".join(str(c) for c in sorted(cpus if cpus else cores))


def start_server(server: Server, p: Point, cpus: Optional[set[int]],
                 log: str) -> Optional[tuple[subprocess.Popen[bytes], int]]:
    """The server, accepting on a free port: (process, port), or None when
    it did not start (its output is in log)."""
    for _attempt in range(3):  # a port taken between probe and bind: retry
        port = free_port()
        argv = [server.path, "127.0.0.1", str(port), str(p.threads),
                "--protocol=" + p.protocol] + server.extra
        with open(log, "w") as lf:
            srv = spawn(argv, cpus, lf, lf)
        if wait_accepting(srv, port):
            return srv, port
        stop(srv)
    return None


def client_argv(client: str, port: int, p: Point, out_json: str
                ) -> list[str]:
    argv = [client, "127.0.0.1", str(port), str(p.client_threads),
            str(p.block), str(p.sessions), str(p.duration()),
            "--protocol=" + p.protocol, "--json=" + out_json]
    if p.protocol == "header":
        argv.append("--count=%d" % p.count)
    return argv


def run_point(server: Server, client: str, tmp: str, p: Point,
              pin: str) -> dict[str, Any]:
    """Runs one server with one client; returns a record (dict)."""
    pinned, server_cpus, client_cpus, cores = cpu_split(pin, p)
    rec: dict[str, Any] = dict(
        server=server.name, protocol=p.protocol, server_threads=p.threads,
        client_threads=p.client_threads, blocksize=p.block,
        sessions=p.sessions, pinned=pinned, ok=False,
        server_cpus=cpu_list(server_cpus, cores),
        client_cpus=cpu_list(client_cpus, cores))
    log = os.path.join(tmp, "server-%s.log" % server.name)
    started = start_server(server, p, server_cpus, log)
    if started is None:
        rec["error"] = "server did not start: " + tail(log)
        return rec
    srv, port = started
    try:
        run_client(rec, srv, client, tmp, port, p, client_cpus, cores, log)
        return rec
    finally:
        stop(srv)
        rec["server_log"] = tail(log, 10)


def run_client(rec: dict[str, Any], srv: subprocess.Popen[bytes],
               client: str, tmp: str, port: int, p: Point,
               client_cpus: Optional[set[int]], cores: list[int],
               log: str) -> None:
    """The client against the started server (log: its log); fills rec:
    the client's JSON, the server's CPU while it ran and per unit of work
    (add_server_cpu_per_work), the client's cores used, client_bound, ok
    and error."""
    out_json = os.path.join(tmp, "client.json")
    client_log = os.path.join(tmp, "client.log")
    if os.path.exists(out_json):
        os.remove(out_json)
    connect_timeout = 10.0 + p.sessions / 1000.0
    budget = p.duration() + connect_timeout + 30
    server_cpu = proc_cpu_seconds(srv.pid)
    with open(client_log, "w") as cf:
        cp = spawn(client_argv(client, port, p, out_json), client_cpus, cf,
                   cf)
        try:
            rc = cp.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            rec["error"] = "client timed out after %.0f s" % budget
            return
        finally:
            stop(cp)
    # Server CPU over the whole client run (connects included).
    rec["server_cpu_s"] = round(proc_cpu_seconds(srv.pid) - server_cpu, 6)
    if srv.poll() is not None:
        rec["error"] = "server exited (%s): %s" % (srv.returncode, tail(log))
    try:
        with open(out_json) as f:
            rec.update(json.load(f))
    except (OSError, ValueError):
        rec["error"] = "client wrote no JSON (rc %d): %s" % (
            rc, tail(client_log))
        return
    rec["client_rc"] = rc
    add_server_cpu_per_work(rec)
    # The client at >= 90% of the CPU it may use: the figure may be the
    # client's limit rather than the server's (marked "c" in the tables).
    client_cores = min(p.client_threads,
                       len(client_cpus) if client_cpus else len(cores))
    if rec.get("seconds"):
        rec["client_cores_used"] = round(
            rec.get("client_cpu_s", 0) / rec["seconds"], 3)
        rec["client_bound"] = rec["client_cores_used"] >= 0.9 * client_cores
    rec["ok"] = rc == 0 and "error" not in rec
    if not rec["ok"] and "error" not in rec:
        rec["error"] = tail(client_log, 2)
