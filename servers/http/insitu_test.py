#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/insitu_test.py
# -----------------------------------------------------------------------------
#
# The in-situ driver's arithmetic on fixtures: a thread's /proc texts
# (testdata/insitu_sched.txt and insitu_stat.txt, read from a live
# thread, the comm edited to hold a space and a parenthesis), the roles of
# a server's threads, per-request figures, the exchange rate and γ of a
# round, and the logger sweep's file read back.

from __future__ import annotations

import os
import unittest
from typing import Any

from servers.http import insitu

HERE = os.path.dirname(os.path.abspath(__file__))


def fixture(name: str) -> str:
    with open(os.path.join(HERE, "testdata", name)) as f:
        return f.read()


def T(tid: int, cpu: float, vol: int = 0, inv: int = 0) -> insitu.ThreadStat:
    return insitu.ThreadStat(tid, cpu, 0, 0, vol, inv)


def run(logger: str, rnd: int, io: float, backend: float = 0.0,
        micro: Any = None) -> dict[str, Any]:
    roles = {"io": dict(cpu_ns=io, voluntary=0, involuntary=0,
                        migrations=0)}
    if backend:
        roles["backend"] = dict(cpu_ns=backend, voluntary=100,
                                involuntary=0, migrations=0)
    r = dict(logger=logger, round=rnd, roles=roles, replies=1000,
             busy_polls=100, hw={})
    if micro:
        r["micro"] = micro
    return r


class ThreadTest(unittest.TestCase):
    def test_parse(self) -> None:
        t = insitu.parse_thread(7, fixture("insitu_sched.txt"),
                                fixture("insitu_stat.txt"))
        self.assertEqual(t.tid, 7)
        self.assertAlmostEqual(t.cpu_ns, 552684.0, places=0)
        self.assertEqual((t.ticks, t.migrations, t.voluntary,
                          t.involuntary), (88, 0, 0, 1))

    def test_roles(self) -> None:
        before = {10: T(10, 0), 11: T(11, 0), 12: T(12, 0)}
        after = {10: T(10, 900, inv=5), 11: T(11, 1), 12: T(12, 300, vol=9)}
        r = insitu.thread_deltas(10, before, after, async_logger=True)
        self.assertEqual(r["io"]["cpu_ns"], 900)
        self.assertEqual(r["backend"]["cpu_ns"], 300)
        self.assertEqual(r["backend"]["voluntary"], 9)
        self.assertEqual(r["other"]["cpu_ns"], 1)
        # A sync logger has no backend: every other thread is "other".
        r = insitu.thread_deltas(10, before, after, async_logger=False)
        self.assertNotIn("backend", r)
        self.assertEqual(r["other"]["cpu_ns"], 301)

    def test_flags(self) -> None:
        self.assertEqual(insitu.logger_flags("none", "L"), [])
        self.assertEqual(insitu.logger_flags("sync+623", "L"),
                         ["--logger=sync", "--log_file=L",
                          "--log_slowdown_ns=623"])


class SummaryTest(unittest.TestCase):
    def test_round(self) -> None:
        micro = {"latency-file/sync": 1000.0, "latency-file/a": 2000.0}
        runs = [run("none", 0, 4_000_000), run("sync", 0, 5_000_000),
                run("sync+1000", 0, 6_000_000),
                run("a", 0, 5_000_000, 2_000_000, micro)]
        pr = insitu.per_request(runs[3])
        self.assertEqual(pr["backend_cpu_ns"], 2000)
        self.assertEqual(pr["cpu_ns"], 7000)
        self.assertEqual(pr["backend_voluntary"], 0.1)
        s = insitu.summarise(runs)["per_round_median"]
        self.assertEqual(s["k"], 1.0)
        self.assertEqual(s["a:extra_cpu_ns"], 2000)
        self.assertEqual(s["a:line_cpu_ns"], 3000)
        self.assertEqual(s["sync:line_cpu_ns"], 1000)
        self.assertAlmostEqual(s["a:cpu_ratio"], 5 / 7)
        self.assertEqual(s["a:latency-file:micro_extra_ns"], 1000)
        self.assertEqual(s["a:latency-file:gamma_k1"], 2.0)

    def test_micro_file(self) -> None:
        doc = {"benchmarks": [
            {"name": "logger/latency-file/sync/callers:1/bytes:32",
             "cpu_ns_per_item": 10.0},
            {"name": "logger/latency-file/sync/callers:1/bytes:32",
             "cpu_ns_per_item": 30.0},
            {"name": "logger/floor/cache-line", "p50_ns": 3.0}]}
        self.assertEqual(insitu.micro_costs(doc), {"latency-file/sync": 20.0})


if __name__ == "__main__":
    unittest.main()
