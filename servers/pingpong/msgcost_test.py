#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/pingpong/msgcost_test.py
# -----------------------------------------------------------------------------
#
# perf_output.py on real perf output (testdata/msgcost/: `perf stat -x,`
# and `perf report --stdio` of our server at 1 thread, 4 KiB, 100 sessions)
# and on the errors it must name.

from __future__ import annotations

import os
import unittest

from servers.pingpong import perf_output

HERE = os.path.dirname(os.path.abspath(__file__))


DATA = os.path.join(HERE, "testdata", "msgcost")


def fixture(name: str) -> str:
    with open(os.path.join(DATA, name)) as f:
        return f.read()


class StatTest(unittest.TestCase):
    def test_counts_and_task_clock(self) -> None:
        c, secs = perf_output.parse_stat(fixture("perf_stat.csv"))
        self.assertIsNone(secs)
        self.assertEqual(c["readv"], 29079)
        self.assertEqual(c["write"], 29079)
        self.assertEqual(c["epoll_wait"], 493)
        self.assertEqual(c["read"], 0)
        self.assertAlmostEqual(c["task-clock"], 480.13e6)

    def test_intervals_are_summed(self) -> None:
        c, secs = perf_output.parse_stat(fixture("perf_stat_interval.csv"),
                                         True)
        self.assertEqual(secs, 0.604368604)
        self.assertEqual(c["read"], 7 + 6 + 6)
        self.assertEqual(c["write"], 3)
        self.assertAlmostEqual(c["task-clock"], (502.47 + 502.34 + 204.79)
                               * 1e6)
        # A plain line read as an interval line: its unit is no count.
        with self.assertRaisesRegex(perf_output.ParseError,
                                    "bad count 'msec'"):
            perf_output.parse_stat("480.13,msec,task-clock,1,100.00,,\n", True)
        with self.assertRaisesRegex(perf_output.ParseError, "bad interval"):
            perf_output.parse_stat("x,1.0,msec,task-clock,1,100.00,,\n", True)

    def test_per_block(self) -> None:
        c, _ = perf_output.parse_stat(fixture("perf_stat.csv"))
        cost = perf_output.per_block(c, 29079)
        assert cost is not None
        self.assertEqual(cost.syscalls["read"], 1.0)
        self.assertEqual(cost.syscalls["write"], 1.0)
        self.assertEqual(cost.syscalls["wait"], round(493 / 29079, 3))
        self.assertEqual(cost.syscalls["epoll_ctl"], 0.0)
        self.assertEqual(cost.total_syscalls, round(58651 / 29079, 3))
        self.assertEqual(cost.cpu_ns, round(480.13e6 / 29079, 1))
        self.assertIsNone(perf_output.per_block(c, 0))

    def test_uncountable_event_is_named(self) -> None:
        text = "<not supported>,,cycles,0,100.00,,\n1.0,msec,task-clock,1,1,,"
        with self.assertRaisesRegex(perf_output.ParseError, "cycles"):
            perf_output.parse_stat(text)

    def test_missing_task_clock(self) -> None:
        with self.assertRaisesRegex(perf_output.ParseError, "task-clock"):
            perf_output.parse_stat("5,,syscalls:sys_enter_read,1,100.00,,\n")

    def test_every_tracepoint_has_a_column(self) -> None:
        self.assertEqual(len(perf_output.tracepoints()),
                         len(perf_output.SYSCALL_COLUMNS))
        self.assertTrue(set(perf_output.SYSCALL_COLUMNS.values())
                        <= set(perf_output.COLUMNS))


class ReportTest(unittest.TestCase):
    def test_symbols_best_first(self) -> None:
        syms = perf_output.parse_report(fixture("perf_report.txt"))
        self.assertGreater(len(syms), 10)
        self.assertEqual(syms[0], perf_output.Symbol(
            26.06, "[kernel.kallsyms]", "pvm_irq_enable"))
        self.assertEqual(syms[2].dso, "libc.so.6")
        self.assertEqual(syms[2].name, "__GI___readv")
        pcts = [s.percent for s in syms]
        self.assertEqual(pcts, sorted(pcts, reverse=True))

    def test_where(self) -> None:
        syms = perf_output.parse_report(fixture("perf_report.txt"))
        split = perf_output.where(syms, "server")
        self.assertGreater(split["kernel"], split["ours"])
        self.assertGreater(split["ours"], 0)
        self.assertAlmostEqual(sum(split.values()),
                               sum(s.percent for s in syms), delta=0.5)

    def test_short_name(self) -> None:
        self.assertEqual(
            perf_output.short_name("serverkit::reactor::TcpConnection<"
                                   "serverkit::LinearBuffer>::send_in_loop"),
            "serverkit::reactor::TcpConnection<>::send_in_loop")
        self.assertEqual(perf_output.short_name("f(int, std::vector<int>)"),
                         "f()")
        self.assertEqual(len(perf_output.short_name("x" * 100, 20)), 20)


if __name__ == "__main__":
    unittest.main()
