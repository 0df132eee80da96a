#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pingpong/validate_stats_test.py
# -----------------------------------------------------------------------------
#
# validate_stats.py on fixed samples: the exact U-test against values worked
# out by hand (and scipy's where it is installed), the bootstrap interval,
# the smallest p a number of runs allows, and the minimum detectable effect;
# and validate_decide.py's verdict rule on fixed samples for each of the five
# outcomes (held, no-difference, refuted, too-weak, error).

from __future__ import annotations

import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import validate_stats as VS  # noqa: E402
from validate_cases import Outcome  # noqa: E402
from validate_decide import decide  # noqa: E402


class UTestTest(unittest.TestCase):
    def test_complete_separation(self) -> None:
        # 5 against 5, no overlap: 2 of the C(10, 5) = 252 splits are as
        # extreme (both tails).
        a = [1.0, 2.0, 3.0, 4.0, 5.0]
        b = [6.0, 7.0, 8.0, 9.0, 10.0]
        self.assertAlmostEqual(VS.u_test(a, b), 2 / 252)
        self.assertAlmostEqual(VS.u_test(b, a), 2 / 252)

    def test_identical_samples(self) -> None:
        self.assertEqual(VS.u_test([3.0] * 5, [3.0] * 5), 1.0)

    def test_one_swap(self) -> None:
        # U = 1: the splits with rank sum 15 or 16 (and their mirrors 39,
        # 40): 2 + 2 of 252.
        a = [1.0, 2.0, 3.0, 4.0, 6.0]
        b = [5.0, 7.0, 8.0, 9.0, 10.0]
        self.assertAlmostEqual(VS.u_test(a, b), 4 / 252)

    def test_against_scipy(self) -> None:
        try:
            from scipy.stats import mannwhitneyu
        except ImportError:
            self.skipTest("scipy not installed")
        a = [100.0, 104.0, 98.0, 101.0, 97.0, 103.0]
        b = [99.0, 108.0, 107.0, 105.0, 110.0, 102.0, 106.0]
        want = mannwhitneyu(a, b, alternative="two-sided",
                            method="exact").pvalue
        self.assertAlmostEqual(VS.u_test(a, b), want, places=9)
        # Large samples: the normal approximation, near scipy's.
        big_a = [float(i % 17) for i in range(30)]
        big_b = [float(i % 17) + 2.5 for i in range(30)]
        want = mannwhitneyu(big_a, big_b, alternative="two-sided",
                            method="asymptotic").pvalue
        self.assertAlmostEqual(VS.u_test(big_a, big_b), want, places=3)

    def test_empty(self) -> None:
        self.assertEqual(VS.u_test([], [1.0]), 1.0)


class IntervalAndPowerTest(unittest.TestCase):
    def test_min_p(self) -> None:
        self.assertEqual(VS.min_p(1, 1), 1.0)
        self.assertAlmostEqual(VS.min_p(3, 3), 0.1)   # never below 0.05
        self.assertAlmostEqual(VS.min_p(4, 4), 2 / 70)
        self.assertAlmostEqual(VS.min_p(5, 5), 2 / 252)

    def test_interval_brackets_the_ratio(self) -> None:
        a = [100.0, 101.0, 99.0, 102.0, 98.0]
        b = [120.0, 121.0, 119.0, 122.0, 118.0]
        lo, hi = VS.ratio_interval(a, b)
        self.assertTrue(lo <= 1.2 <= hi, (lo, hi))
        self.assertTrue(1.15 < lo and hi < 1.25, (lo, hi))
        self.assertEqual((lo, hi), VS.ratio_interval(a, b))  # fixed seed
        self.assertTrue(all(math.isnan(x) for x in VS.ratio_interval([], b)))

    def test_mde(self) -> None:
        tight = [100.0, 101.0, 99.0, 100.5, 99.5]
        loose = [100.0, 110.0, 90.0, 105.0, 95.0]
        self.assertLess(VS.mde(tight, tight), VS.mde(loose, loose))
        self.assertTrue(0 < VS.mde(tight, tight) < 0.05)
        self.assertTrue(0.05 < VS.mde(loose, loose) < 0.5)
        # Three runs a side can never reach p < 0.05: nothing detectable.
        self.assertEqual(VS.mde(tight[:3], tight[:3]), math.inf)

    def test_relative_spread_ignores_one_wild_run(self) -> None:
        self.assertAlmostEqual(
            VS.relative_spread([100.0, 101.0, 99.0, 100.0, 400.0]),
            1.4826 * 1.0 / 100.0)


class DecideTest(unittest.TestCase):
    def test_the_verdict_rule(self) -> None:
        """Fixed samples for each of the five outcomes."""
        base = [100.0, 101.0, 99.0, 102.0, 98.0]
        slow = [80.0, 81.0, 79.0, 82.0, 78.0]   # a control far behind
        d = decide(base, [110.0, 111.0, 109.0, 112.0, 108.0], slow)
        self.assertEqual(d.outcome, Outcome.HELD)
        assert d.winner is not None
        self.assertAlmostEqual(d.winner.p, 2 / 252)
        self.assertAlmostEqual(d.winner.ratio, 1.1)
        self.assertEqual(decide(base, [90.0, 91.0, 89.0, 92.0, 88.0],
                                slow).outcome, Outcome.REFUTED)
        d = decide(base, [101.0, 99.0, 100.5, 98.5, 102.5], slow)
        self.assertEqual(d.outcome, Outcome.NO_DIFFERENCE)
        assert d.winner is not None
        self.assertGreater(d.winner.p, 0.05)
        # The control overlaps the baseline: the run could not tell.
        d = decide(base, [110.0, 111.0, 109.0, 112.0, 108.0],
                   [100.5, 99.5, 98.5, 101.5, 97.0])
        self.assertEqual(d.outcome, Outcome.TOO_WEAK)
        self.assertIn("the control was not detected as worse", d.reason)
        self.assertIn("MDE ", d.reason)
        # A control faster than the baseline is not detected as worse.
        self.assertEqual(decide(base, base, [120.0] * 5).outcome,
                         Outcome.TOO_WEAK)
        # Too few runs for p < 0.05 at all: too weak, MDE unknown.
        d = decide(base[:3], [200.0] * 3, slow[:3])
        self.assertEqual(d.outcome, Outcome.TOO_WEAK)
        self.assertEqual(d.mde, float("inf"))
        self.assertIn("too few runs", d.reason)
        self.assertEqual(decide([], [], []).outcome, Outcome.ERROR)
        # Lower is better (server CPU per MiB): a cheaper winner held.
        self.assertEqual(decide(base, [90.0, 91.0, 89.0, 92.0, 88.0],
                                [120.0, 121.0, 119.0, 122.0, 118.0],
                                higher_is_better=False).outcome,
                         Outcome.HELD)


if __name__ == "__main__":
    unittest.main()
