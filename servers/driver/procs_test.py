#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/driver/procs_test.py
# -----------------------------------------------------------------------------
#
# The descriptor limit the drivers' children inherit (procs.raise_fd_limit),
# in a child process whose limits are set first, so that the test's own are
# untouched; real-time scheduling for the latency sweeps (fifo_refused,
# set_fifo, spawn's fifo) on a child with two threads.

import os
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from servers.driver import procs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

CHILD = """
import resource, sys
from servers.driver import procs
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 1024))
print(procs.raise_fd_limit(), *resource.getrlimit(resource.RLIMIT_NOFILE))
print(procs.raise_fd_limit(int(sys.argv[1])),
      *resource.getrlimit(resource.RLIMIT_NOFILE))
"""


class FdLimitTest(unittest.TestCase):
    def test_soft_to_hard_then_hard_to_the_need(self) -> None:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, "2048"], check=True,
            capture_output=True, text=True, cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=ROOT)).stdout.split("\n")
        self.assertEqual(out[0], "1024 1024 1024")
        # Only a process with CAP_SYS_RESOURCE may raise its hard limit
        # (root in a container may not); the others keep the hard one, and
        # the drivers skip what does not fit.
        self.assertIn(out[1], ("2048 2048 2048", "1024 1024 1024"))


# Two threads that sleep: the process and its second thread.
TWO_THREADS = ("import threading, time; threading.Thread(target=time.sleep, "
               "args=(30,), daemon=True).start(); time.sleep(30)")


class FifoTest(unittest.TestCase):
    def test_refused_without_throttling_or_an_unreadable_file(self) -> None:
        with tempfile.NamedTemporaryFile("w", suffix="rt") as f:
            f.write("-1\n")
            f.flush()
            self.assertIn("real-time throttling is off",
                          procs.fifo_refused(f.name))
        self.assertIn("unreadable", procs.fifo_refused("/nonexistent/rt"))

    def test_every_thread_of_the_group(self) -> None:
        why = procs.fifo_refused()
        if why:  # a process without CAP_SYS_NICE: the refusal is the test
            with open(os.devnull, "w") as null, \
                    self.assertRaises(Exception):
                procs.stop(procs.spawn(["true"], None, null, null, 5))
            return
        with open(os.devnull, "w") as null:
            p = procs.spawn([sys.executable, "-c", TWO_THREADS], None,
                            null, null)
            g = procs.spawn(["sleep", "30"], None, null, null, 5)
        try:
            tids: list[str] = []
            for _ in range(200):  # until the second thread exists
                tids = os.listdir("/proc/%d/task" % p.pid)
                if len(tids) == 2:
                    break
                time.sleep(0.01)
            self.assertEqual(len(tids), 2)
            self.assertEqual(os.sched_getscheduler(p.pid), os.SCHED_OTHER)
            self.assertEqual(procs.set_fifo(p.pid, 5), 2)
            for t in tids:
                self.assertEqual(os.sched_getscheduler(int(t)),
                                 os.SCHED_FIFO)
                self.assertEqual(os.sched_getparam(int(t)).sched_priority, 5)
            self.assertEqual(os.sched_getscheduler(g.pid), os.SCHED_FIFO)
            self.assertEqual(procs.group_pids(g.pid), [g.pid])
            self.assertEqual(procs.set_fifo(999999999), 0)  # no such group
        finally:
            procs.stop(p)
            procs.stop(g)

    def test_a_thread_made_during_the_walk_is_set_by_the_next(self) -> None:
        # Thread 12 appears after the first walk listed the task folder,
        # made by thread 11 before 11 was set: a second walk must set it,
        # and a third find nothing new.
        listings = [["11"], ["11", "12"], ["11", "12"]]
        walks: list[str] = []
        set_tids: list[int] = []

        def listdir(path: str) -> list[str]:
            walks.append(path)
            return listings[min(len(walks), len(listings)) - 1]

        def setscheduler(tid: int, policy: int, param: object) -> None:
            set_tids.append(tid)

        with mock.patch.object(procs, "group_pids", lambda pgid: [pgid]), \
                mock.patch.object(os, "listdir", listdir), \
                mock.patch.object(os, "sched_setscheduler", setscheduler):
            n = procs.set_fifo(11, 5)
        self.assertEqual((n, set_tids), (2, [11, 12]))
        self.assertEqual(walks, ["/proc/11/task"] * 3)


if __name__ == "__main__":
    unittest.main()
