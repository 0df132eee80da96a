#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/pingpong_paired_test.py
# -----------------------------------------------------------------------------
#
# The sweep's paired summary (servers/pingpong/summary.py) on records built
# here with known ratios, and what each interval says against the margin
# (servers/driver/side_by_side.py: CPU turned so that less is ahead); the
# Williams orders (servers.driver.side_by_side.order: each server right after
# every other equally often, for 2 to 7 servers) and the sweep's use of them
# (servers/pingpong/sweep.py); the
# --repetitions and --margin flags (pingpong.py).
#
#   pingpong_paired_test.py [-v]    (//validation:pingpong_paired_test)

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import math
import os
import unittest
from typing import Any
from unittest import mock

from servers.driver import procs
from servers.driver import side_by_side
from validation import pingpong as sweep
from servers.pingpong import summary
from servers.pingpong import sweep as sweep_run
from pick.decide import paired

HERE = os.path.dirname(os.path.abspath(__file__))


Record = dict[str, Any]


def rec(server: str, sessions: int, rep: int, cpu: float, mib: float = 100.0,
        ok: bool = True, client_bound: bool = False, block: int = 4096,
        threads: int = 1) -> Record:
    return dict(server=server, protocol="echo", server_threads=threads,
                client_threads=threads, blocksize=block, sessions=sessions,
                repetition=rep, ok=ok, client_bound=client_bound,
                server_cpu_ms_per_mib=cpu, mib_per_s=mib)


class LogRatiosTest(unittest.TestCase):
    def test_pairs_runs_of_the_same_point_and_repetition(self) -> None:
        # Listed out of order: A's figure at (sessions, rep) is 2 x, 3 x or
        # 4 x B's at the same (sessions, rep) only.
        echo = [rec("b", 10, 1, 1.0), rec("a", 1, 0, 2.0),
                rec("a", 10, 1, 4.0), rec("b", 1, 0, 1.0),
                rec("a", 10, 0, 3.0), rec("b", 10, 0, 1.0)]
        got = summary.log_ratios(echo, "a", "b", "server_cpu_ms_per_mib",
                                 False)
        self.assertEqual(sorted(round(math.exp(x), 9) for x in got),
                         [2.0, 3.0, 4.0])

    def test_leaves_out_unclean_missing_and_empty_figures(self) -> None:
        echo = [rec("a", 1, 0, 2.0), rec("b", 1, 0, 1.0),
                rec("a", 10, 0, 2.0, ok=False), rec("b", 10, 0, 1.0),
                rec("a", 100, 0, 2.0),  # B never ran there
                rec("a", 1000, 0, 0.0), rec("b", 1000, 0, 1.0),
                rec("a", 1, 1, 2.0), rec("b", 1, 1, 1.0, ok=False)]
        got = summary.log_ratios(echo, "a", "b", "server_cpu_ms_per_mib",
                                 False)
        self.assertEqual(len(got), 1)
        self.assertAlmostEqual(got[0], math.log(2.0))

    def test_server_bound_leaves_out_either_client_at_its_ceiling(self
                                                                  ) -> None:
        echo = [rec("a", 1, 0, 2.0, client_bound=True), rec("b", 1, 0, 1.0),
                rec("a", 10, 0, 2.0), rec("b", 10, 0, 1.0, client_bound=True),
                rec("a", 100, 0, 3.0), rec("b", 100, 0, 1.0)]
        key = "server_cpu_ms_per_mib"
        self.assertEqual(
            len(summary.log_ratios(echo, "a", "b", key, False)), 3)
        bound = summary.log_ratios(echo, "a", "b", key, True)
        self.assertEqual([round(math.exp(x), 9) for x in bound], [3.0])


class PairsTest(unittest.TestCase):
    def test_against_the_references_when_they_ran(self) -> None:
        self.assertEqual(summary.pairs(["ours", "asio", "libevent"]),
                         [("ours", "asio"), ("libevent", "asio"),
                          ("ours", "libevent")])

    def test_against_the_first_without_references(self) -> None:
        self.assertEqual(summary.pairs(["base", "new", "other"]),
                         [("new", "base"), ("other", "base")])
        self.assertEqual(summary.pairs(["alone"]), [])


class SummaryTest(unittest.TestCase):
    def test_a_steady_ratio_gives_a_tight_interval_below_one(self) -> None:
        echo = []
        for rep in range(2):
            for n in (1, 10, 100, 1000):
                echo += [rec("ours", n, rep, 0.9 * (1 + n / 1e4)),
                         rec("asio", n, rep, 1.0 * (1 + n / 1e4), mib=90.0)]
        rows = summary.summarise(echo, ["ours", "asio"])
        self.assertEqual([(r.a, r.b, r.metric) for r in rows],
                         [("ours", "asio", "server_cpu_ms_per_mib"),
                          ("ours", "asio", "mib_per_s")])
        cpu = rows[0].every
        self.assertEqual(cpu.n, 8)
        self.assertAlmostEqual(cpu.ratio, 0.9)
        self.assertLess(cpu.high, 1.0)
        self.assertAlmostEqual(cpu.p or 0.0, 2 / 2 ** 8)
        self.assertAlmostEqual(rows[1].every.ratio, 100 / 90)

    def test_ratios_either_side_of_one_give_an_interval_across_it(self
                                                                  ) -> None:
        echo = []
        for i, n in enumerate((1, 10, 100, 1000, 10000, 20000, 30000, 40000)):
            r = 2.0 if i % 2 else 0.5
            echo += [rec("ours", n, 0, r), rec("asio", n, 0, 1.0)]
        x = summary.summarise(echo, ["ours", "asio"])[0].every
        self.assertAlmostEqual(x.ratio, 1.0)
        self.assertLess(x.low, 1.0)
        self.assertGreater(x.high, 1.0)
        self.assertAlmostEqual(x.p or 0.0, 1.0)

    def test_format_says_when_there_are_too_few_for_an_interval(self
                                                                ) -> None:
        echo = [rec("ours", n, 0, 0.5) for n in (1, 10, 100)]
        echo += [rec("asio", n, 0, 1.0) for n in (1, 10, 100)]
        row = summary.summarise(echo, ["ours", "asio"])[0]
        self.assertEqual(paired.fmt_rank_paired(row.every),
                         "0.50x n 3 (no interval below 6)")
        empty = summary.summarise([], ["ours", "asio"])[0]
        self.assertEqual(paired.fmt_rank_paired(empty.every), "-")
        # The JSON has no inf or nan: an unbounded end is null.
        doc = json.loads(json.dumps(row.as_json(), allow_nan=False))
        self.assertIsNone(doc["every"]["high"])
        self.assertEqual(doc["every"]["low"], 0.0)

    def test_lines_name_each_pair_under_each_metric(self) -> None:
        echo = []
        for n in range(1, 9):
            echo += [rec("ours", n, 0, 0.8), rec("asio", n, 0, 1.0)]
        lines = summary.paired_lines(
            summary.summarise(echo, ["ours", "asio"]), 1)
        text = "\n".join(lines)
        self.assertIn("1 repetition(s)", text)
        self.assertIn("ours/asio  0.80x [0.80, 0.80] p 0.0078 n 8", text)
        self.assertEqual(text.count("ours/asio"), 2)
        # 20% less CPU is 25% ahead; the same MiB/s at every point: 8
        # ratios of exactly 1, kept (issue 47: the p and the interval
        # count zeros alike), equivalent.
        self.assertIn("against a margin of ±5%", text)
        self.assertIn("  ours ahead of asio by more than 5% (by 25.0%) "
                      "in CPU ms/MiB (every clean point, and server-bound)",
                      lines)
        self.assertIn("  ours and asio equivalent within ±5% (+0.0% to "
                      "+0.0%) in MiB/s (every clean point, and server-bound)",
                      lines)
        self.assertEqual(summary.paired_lines([], 1), [])


def side(low: float, high: float, n: int = 10) -> paired.PairedRatio:
    return paired.PairedRatio(n=n, ratio=(low * high) ** 0.5, lo=low, hi=high,
                              p=0.01, method="signed-rank", mde=0.05)


class StandingTest(unittest.TestCase):
    """A row's interval against the margin, turned so that > 1 is A's
    advantage: as it is for throughput, inverted for CPU per unit."""

    def row(self, low: float, high: float, lower_better: bool,
            m: float = 0.05) -> side_by_side.SideBySide:
        return side_by_side.SideBySide("ours", "asio", "x", side(low, high),
                                       side(0.0, math.inf, 3), lower_better, m)

    def test_the_four_outcomes_and_their_orientation(self) -> None:
        S = side_by_side.Standing
        cases = [  # (low, high, lower_better, standing)
            (0.80, 0.90, True, S.AHEAD_BEYOND),     # CPU: >= 11% less
            (0.80, 0.90, False, S.BEHIND_BEYOND),   # MiB/s: 10-20% fewer
            (0.97, 0.99, True, S.AHEAD),
            (1.02, 1.20, False, S.AHEAD),           # not beyond: lo < 1.05
            (0.97, 1.02, True, S.EQUIVALENT),
            (0.95, 1.08, False, S.NOT_TOLD_APART),
            (0.95, 1.08, True, S.NOT_TOLD_APART)]
        for low, high, lower, want in cases:
            with self.subTest(low=low, high=high, lower_better=lower):
                r = self.row(low, high, lower)
                self.assertEqual(r.standing(r.every), want)
                self.assertEqual(r.standing(r.server_bound), S.UNKNOWN)
        # A wider margin: 11-20% less CPU is only ahead, not beyond 25%.
        r = self.row(0.80, 0.90, True, 0.25)
        self.assertEqual(r.standing(r.every), S.AHEAD)

    def test_words_and_json(self) -> None:
        r = self.row(0.95, 1.08, False)
        self.assertEqual(r.words(r.every, "MiB/s"), "ours and asio not told "
                         "apart (-5.0% to +8.0%) in MiB/s")
        self.assertEqual(r.words(r.server_bound, "MiB/s"), "ours and asio in "
                         "MiB/s: no interval (n 3)")
        cpu = self.row(1.02, 1.061, True)
        self.assertEqual(cpu.words(cpu.every, "CPU ms/MiB"), "asio ahead of "
                         "ours by 2.0-6.1% in CPU ms/MiB")
        doc = json.loads(json.dumps(cpu.as_json(), allow_nan=False))
        self.assertEqual((doc["better"], doc["margin"]), ("lower", 0.05))
        self.assertEqual(doc["every"]["standing"], "behind")
        self.assertEqual(doc["server_bound"]["standing"], "unknown")

    def test_the_margin_flag(self) -> None:
        self.assertEqual(sweep.parse_args([]).margin, 0.05)
        self.assertEqual(sweep.parse_args(["--margin=0.1"]).margin, 0.1)
        for bad in ("0", "-0.05", "1", "nan", "five"):
            with contextlib.redirect_stderr(io.StringIO()) as err, \
                    self.assertRaises(SystemExit):
                sweep.parse_args(["--margin=" + bad])
            self.assertIn("--margin takes a fraction", err.getvalue())


class WilliamsTest(unittest.TestCase):
    def test_each_order_is_a_permutation_and_carry_over_balances(self
                                                                 ) -> None:
        for t in range(2, 8):
            with self.subTest(t=t):
                orders = side_by_side.williams(t)
                self.assertEqual(len(orders), t if t % 2 == 0 else 2 * t)
                for o in orders:
                    self.assertEqual(sorted(o), list(range(t)))
                self.assertEqual(len({tuple(o) for o in orders}),
                                 len(orders))
                # Each server right after every other equally often.
                follows = collections.Counter(
                    (o[i], o[i + 1]) for o in orders for i in range(t - 1))
                self.assertEqual(set(follows), {(i, j) for i in range(t)
                                                for j in range(t) if i != j})
                self.assertEqual(len(set(follows.values())), 1)
                # And in each place equally often.
                for place in range(t):
                    self.assertEqual(collections.Counter(
                        o[place] for o in orders),
                        {i: len(orders) // t for i in range(t)})

    def test_orders_cycle_and_never_repeat_before_all_ran(self) -> None:
        self.assertEqual(side_by_side.williams(0), [])
        self.assertEqual(side_by_side.williams(1), [[0]])
        self.assertEqual(side_by_side.order([], 3), [])
        for t in range(1, 8):
            items = [chr(ord("a") + i) for i in range(t)]
            n = len(side_by_side.williams(t))
            seen = [tuple(side_by_side.order(items, k)) for k in range(n)]
            self.assertEqual(len(set(seen)), n, t)
            for k in range(n):
                self.assertEqual(side_by_side.order(items, n + k),
                                 list(seen[k]))
        self.assertEqual(side_by_side.order(["x", "y"], 0), ["x", "y"])
        self.assertEqual(side_by_side.order(["x", "y"], 1), ["y", "x"])


class RepetitionTest(unittest.TestCase):
    def test_each_point_of_a_repetition_takes_the_next_order(
            self) -> None:
        calls: list[tuple[int, str]] = []

        def run_point(server: procs.Server, client: str, tmp: str,
                      p: procs.Point, pin: str) -> Record:
            calls.append((p.sessions, server.name))
            return rec(server.name, p.sessions, 0, 1.0)

        prof = dict(seconds=0.1, threads=[1], blocks=[4096], repetitions=3,
                    header_threads=[1], header_sessions=[1], header_count=1,
                    header_limit=1.0)
        args = argparse.Namespace(client_threads=0, no_header=True,
                                  pin="auto", margin=0.05)
        servers = [procs.Server(n, "/bin/true", []) for n in "abc"]
        with mock.patch.object(procs, "run_point", run_point), \
                mock.patch.object(procs, "stop_all", lambda: None), \
                contextlib.redirect_stdout(io.StringIO()):
            echo, _, interrupted = sweep_run.run_points(
                args, prof, servers, "client", [1, 10])
        self.assertFalse(interrupted)
        # Two points a repetition: blocks 0 .. 5, the six orders of three.
        self.assertEqual("".join(c[1] for c in calls),
                         "abc" "cba" "bca" "acb" "cab" "bac")
        self.assertEqual([r["repetition"] for r in echo],
                         [0] * 6 + [1] * 6 + [2] * 6)

    def test_the_flag_sets_them_and_refuses_a_negative_count(self) -> None:
        self.assertEqual(sweep.parse_args(["--repetitions=4"]).repetitions, 4)
        self.assertEqual(sweep.parse_args([]).repetitions, 0)
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                self.assertRaises(SystemExit):
            sweep.parse_args(["--repetitions=-1"])
        self.assertIn("--repetitions takes a whole number", err.getvalue())


if __name__ == "__main__":
    unittest.main()
