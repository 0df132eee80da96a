# -----------------------------------------------------------------------------
# servers/soak/procs.py
# -----------------------------------------------------------------------------
#
# The soak's processes and what /proc says of them: a server started on a
# free loopback port (the drivers' spawn, free_port and wait_accepting:
# servers/driver/procs.py), stopped with SIGTERM to the server alone and
# its exit status checked (a soaked server must exit 0 on SIGTERM, which
# the drivers' group kill, procs.stop, does not ask; its log's tail is the
# drivers' procs.tail); one sample of a live process
# (VmRSS and Threads from /proc/PID/status, the entries of /proc/PID/fd);
# and `Tally`, the counters and failures that the clients' threads share
# with the driver.
#
# The bottom layer of servers/soak, beside wire, over servers.driver.

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import threading
from typing import IO, Optional

from servers.driver.procs import free_port, spawn, wait_accepting


@dataclasses.dataclass(frozen=True)
class Sample:
    """One sample of a server: seconds from the soak's start, resident set
    (KiB), open descriptors, threads."""
    t: float
    rss_kib: int
    fds: int
    threads: int


def sample(pid: int, t: float) -> Optional[Sample]:
    """The process's sample now; None when it is gone."""
    rss = threads = -1
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
        fds = len(os.listdir("/proc/%d/fd" % pid))
    except (OSError, ValueError):
        return None
    if rss < 0 or threads < 0:
        return None  # a zombie has no VmRSS
    return Sample(round(t, 3), rss, fds, threads)


def start_server(command: list[str], rest: list[str], log: IO[str]
                 ) -> Optional[tuple[subprocess.Popen[bytes], int]]:
    """command + [127.0.0.1, <free port>] + rest, accepting: (process,
    port), or None (its output is in log)."""
    for _attempt in range(3):  # a port taken between probe and bind: retry
        port = free_port()
        argv = command + ["127.0.0.1", str(port)] + rest
        p = spawn(argv, None, log, log)
        if wait_accepting(p, port, timeout=15.0):
            return p, port
        stop(p)
    return None


def stop(p: subprocess.Popen[bytes], grace: float = 5.0) -> Optional[str]:
    """SIGTERM, then SIGKILL after grace seconds. Returns what went wrong
    (None when it was still running and stopped with status 0)."""
    if p.poll() is not None:
        return "had exited with status %s" % p.returncode
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(timeout=5)
        return "did not stop within %.0f s of SIGTERM" % grace
    return None if rc == 0 else "stopped with status %d" % rc


class Tally:
    """What the clients' threads count and report, thread-safe: replies
    checked per server, hostile connections per server and kind, the
    failures of normal clients (the first one stops the soak: `stop` is
    set), and the stop event every thread watches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.stop = threading.Event()
        self.checked: dict[str, int] = {}
        self.hostile: dict[str, dict[str, int]] = {}
        self.failures: list[str] = []

    def add_checked(self, server: str, n: int) -> None:
        with self._lock:
            self.checked[server] = self.checked.get(server, 0) + n

    def add_hostile(self, server: str, kind: str, n: int) -> None:
        with self._lock:
            kinds = self.hostile.setdefault(server, {})
            kinds[kind] = kinds.get(kind, 0) + n

    def fail(self, what: str) -> None:
        with self._lock:
            self.failures.append(what)
        self.stop.set()

    def snapshot(self) -> tuple[dict[str, int], dict[str, dict[str, int]],
                                list[str]]:
        with self._lock:
            return (dict(self.checked),
                    {k: dict(v) for k, v in self.hostile.items()},
                    list(self.failures))
