# -----------------------------------------------------------------------------
# servers/http/testing.py
# -----------------------------------------------------------------------------
#
# What the HTTP servers' tests share (http_server_test.py, http_work_test.py):
# a server started on a free loopback port, in a process group of its own,
# its output in a log file (servers.driver.procs).

from __future__ import annotations

import subprocess

from servers.driver import procs


def start(path: str, threads: int, flags: list[str], log: str
          ) -> tuple[int, subprocess.Popen[bytes]]:
    """`path 127.0.0.1 PORT threads flags...` on a free port, accepting:
    (port, process). A port taken between the probe and the bind gets up to
    three tries; a server that never accepts raises AssertionError with its
    log's tail."""
    for _attempt in range(3):
        port = procs.free_port()
        with open(log, "w") as lf:
            p = procs.spawn([path, "127.0.0.1", str(port), str(threads)] +
                            flags, None, lf, lf)
        if procs.wait_accepting(p, port):
            return port, p
        procs.stop(p)
    raise AssertionError("%s did not start: %s" % (path, procs.tail(log)))
