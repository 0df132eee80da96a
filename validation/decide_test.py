#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/decide_test.py
# -----------------------------------------------------------------------------
#
# decide.py's verdict rule on fixed per-round log ratios, one test
# per outcome (held, refuted, equivalent, not told apart, too weak for each
# of its reasons, error), the standing and the MDE it reports, the stop
# rule; and issue 47's: the lag-1 autocorrelation and the interval that
# carries it, TOST's 90% interval, the blocks (their disagreement, the
# spread between them), the rounds equivalence would need.

from __future__ import annotations

import math
import unittest

from pick.decide import paired
from pick.records import ValidationRow
from validation.cases import Outcome
from validation.cases import Standing
from validation import dependence
from validation.decide import (MIN_TARGET_ROUNDS, decide, set_dependence,
                               stop_rule)

# Six rounds: the control about 10% behind the baseline in every round.
SLOW = [math.log(x) for x in (0.90, 0.91, 0.89, 0.92, 0.88, 0.90)]


def logs(*ratios: float) -> list[float]:
    return [math.log(r) for r in ratios]


class DecideTest(unittest.TestCase):
    def test_held(self) -> None:
        d = decide(logs(1.10, 1.11, 1.09, 1.12, 1.08, 1.10), SLOW)
        self.assertEqual(d.outcome, Outcome.HELD)
        assert d.winner is not None and d.control is not None
        self.assertAlmostEqual(d.winner.ratio, 1.10, places=2)
        self.assertAlmostEqual(d.winner.p or 0.0, 2 / 64)
        self.assertAlmostEqual(d.control.p or 0.0, 2 / 64)
        self.assertLess(d.control.ratio, 1)
        self.assertTrue(d.winner.low > 1.0, d.winner)
        self.assertIn("control detected", d.reason)
        self.assertIn("MDE", d.reason)
        self.assertIn("at the spread's upper 95% bound", d.reason)
        self.assertEqual(d.standing, Standing.AHEAD_BEYOND)

    def test_refuted(self) -> None:
        d = decide(logs(0.95, 0.96, 0.94, 0.95, 0.97, 0.95), SLOW)
        self.assertEqual(d.outcome, Outcome.REFUTED)
        self.assertEqual(d.standing, Standing.BEHIND)

    def test_held_within_the_margin_is_held(self) -> None:
        """Above 1 but not by more than m: held (ahead), not equivalent."""
        d = decide(logs(1.02, 1.025, 1.03, 1.02, 1.028, 1.022), SLOW)
        self.assertEqual((d.outcome, d.standing),
                         (Outcome.HELD, Standing.AHEAD))

    def test_equivalent(self) -> None:
        d = decide(logs(1.01, 0.99, 1.005, 0.985, 1.02, 0.995), SLOW)
        self.assertEqual(d.outcome, Outcome.EQUIVALENT)
        self.assertEqual(d.standing, Standing.EQUIVALENT)
        assert d.winner is not None
        self.assertTrue(1 / 1.05 <= d.winner.low < 1 < d.winner.high <= 1.05)
        # The MDE of these rounds: k(6) times their spread's upper bound.
        self.assertAlmostEqual(d.mde, paired.mde(logs(1.01, 0.99, 1.005, 0.985,
                                                      1.02, 0.995)))
        self.assertTrue(0 < d.mde < 0.2, d.mde)
        self.assertIn("MDE %.1f%%" % (100 * d.mde), d.reason)
        # The same rounds against a margin of 1%: not told apart.
        d = decide(logs(1.01, 0.99, 1.005, 0.985, 1.02, 0.995), SLOW, 0.01)
        self.assertEqual(d.outcome, Outcome.NOT_TOLD_APART)
        self.assertEqual(d.margin, 0.01)

    def test_not_told_apart(self) -> None:
        d = decide(logs(1.08, 0.95, 1.06, 0.97, 1.01, 0.99), SLOW)
        self.assertEqual(d.outcome, Outcome.NOT_TOLD_APART)
        self.assertEqual(d.standing, Standing.NOT_TOLD_APART)

    def test_too_weak_when_the_control_is_not_detected(self) -> None:
        for ctrl in (logs(1.0, 0.9, 1.1, 0.95, 1.05, 1.0),  # p large
                     logs(1.1, 1.1, 1.1, 1.1, 1.1, 1.1)):   # the wrong way
            with self.subTest(control=ctrl):
                d = decide(logs(1.1, 1.1, 1.1, 1.1, 1.1, 1.1), ctrl)
                self.assertEqual(d.outcome, Outcome.TOO_WEAK)
                self.assertIn("the control was not detected", d.reason)

    def test_too_weak_with_too_few_rounds(self) -> None:
        d = decide(logs(1.5, 1.5, 1.5, 1.5, 1.5), SLOW[:5])
        self.assertEqual(d.outcome, Outcome.TOO_WEAK)
        self.assertTrue(math.isinf(d.mde))
        self.assertIn("5 round(s): the exact test needs 6", d.reason)

    def test_too_weak_without_a_control(self) -> None:
        d = decide(logs(1.1, 1.1, 1.1, 1.1, 1.1, 1.1), [])
        self.assertEqual(d.outcome, Outcome.TOO_WEAK)
        self.assertIn("no clean round of the control", d.reason)

    def test_error_without_rounds(self) -> None:
        d = decide([], [])
        self.assertEqual(d.outcome, Outcome.ERROR)
        self.assertIsNone(d.winner)
        self.assertEqual(d.reason, "no round ran clean")


class DependenceTest(unittest.TestCase):
    # 16 rounds that drift: a slow wave around 1.00 (lag-1 about 0.8).
    DRIFT = [0.04 * math.sin(i / 2.5) for i in range(16)]
    CTRL = [-0.1 - 0.001 * (i % 5) for i in range(16)]

    def test_lag1(self) -> None:
        self.assertAlmostEqual(dependence.lag1([1.0, -1.0, 1.0, -1.0]), -0.75)
        self.assertTrue(math.isnan(dependence.lag1([1.0, 2.0])))
        self.assertGreater(dependence.lag1(self.DRIFT), 0.7)
        # Within blocks, each about its own mean: a step between two quiet
        # blocks is no autocorrelation.
        step = [0.0, 0.01, 0.0, 0.01, 0.5, 0.51, 0.5, 0.51]
        self.assertLess(dependence.lag1(step, [0, 0, 0, 0, 1, 1, 1, 1]), 0.0)
        self.assertGreater(dependence.lag1(step), 0.5)
        # Corrected for its bias, held to [0, RHO_MAX].
        self.assertEqual(dependence.rho_used([1.0, -1.0] * 8), 0.0)
        self.assertLessEqual(dependence.rho_used(self.DRIFT),
                             dependence.RHO_MAX)
        self.assertEqual(dependence.rho_used(self.DRIFT), dependence.RHO_MAX)

    def test_the_interval_carries_rho(self) -> None:
        rounds_only = decide(self.DRIFT, self.CTRL, widen=False)
        d = decide(self.DRIFT, self.CTRL)
        assert d.carried and d.winner and rounds_only.winner
        u = d.carried.rho_used
        f = math.sqrt(dependence.deff(u)) * dependence.t_quantile(
            0.975, 16 / dependence.deff(u) - 1) / dependence.t_quantile(0.975,
                                                                        15)
        self.assertGreater(f, 2.0)
        self.assertAlmostEqual(d.carried.widen, f, places=6)
        self.assertAlmostEqual(dependence.t_quantile(0.975, 5), 2.571,
                               delta=0.03)
        self.assertAlmostEqual(dependence.t_quantile(0.975, 29), 2.045,
                               places=3)
        self.assertLess(d.winner.low, rounds_only.winner.low)
        self.assertGreater(d.winner.high, rounds_only.winner.high)
        self.assertIn("lag-1 autocorrelation 0.", d.reason)
        self.assertIn("(material: interval x", d.reason)
        row = ValidationRow(component="logger", blocks=7)
        set_dependence(row, d, [0] * 16)
        assert row.rho is not None and row.e2e90 is not None
        self.assertEqual(row.rho["winner"], round(d.carried.rho, 4))
        self.assertEqual(row.blocks, 1)
        self.assertEqual(row.interval_widen, round(d.carried.widen, 4))
        self.assertEqual(set(row.e2e90), {"low", "high"})

    def test_tost_reads_the_90_interval(self) -> None:
        """The 95% interval reaches past 1.05, the 90% one does not:
        equivalent (two one-sided tests at 5%)."""
        d = [0.009 + 0.1 * x for x in (1, -1, 0.5, -0.5, 0.2, -0.2, 0.8,
                                       -0.8, 0.1, -0.1, 0.6, -0.6)]
        r = decide(d, SLOW * 2)
        assert r.winner is not None and r.carried is not None
        self.assertEqual(r.carried.rho_used, 0.0)
        self.assertGreater(r.winner.high, 1.05)
        self.assertLess(r.winner.low, 1.0)
        self.assertLessEqual(math.exp(r.carried.hi90), 1.05)
        self.assertGreaterEqual(math.exp(r.carried.lo90), 1 / 1.05)
        self.assertEqual(r.outcome, Outcome.EQUIVALENT)

    def test_not_told_apart_says_the_rounds_equivalence_needs(self) -> None:
        d = decide(logs(1.08, 0.95, 1.06, 0.97, 1.01, 0.99), SLOW)
        self.assertEqual(d.outcome, Outcome.NOT_TOLD_APART)
        assert d.equivalence_rounds is not None
        self.assertGreater(d.equivalence_rounds, 6)
        self.assertIn("would need about %d rounds" % d.equivalence_rounds,
                      d.reason)

    def test_the_blocks_disagree(self) -> None:
        up = [0.10 + 0.005 * ((-1) ** i) for i in range(8)]
        down = [-0.10 + 0.005 * ((-1) ** i) for i in range(8)]
        keys = [0] * 8 + [1] * 8
        d = decide(up + down, SLOW + SLOW[:2] + SLOW + SLOW[:2], 0.05, keys,
                   keys)
        self.assertEqual(d.outcome, Outcome.NOT_TOLD_APART)
        self.assertTrue(d.disagree.startswith("the blocks disagree: block 1 "
                                              "1.105x"), d.disagree)
        self.assertIn("nothing adopted", d.reason)
        # Blocks that agree: held, the interval widened by their spread.
        wave = (1, -1, 0.5, -0.5, 0.2, -0.2, 0.8, -0.8)
        close = [0.10 + 0.03 * x for x in wave]
        near = [0.08 + 0.03 * x for x in wave]
        d = decide(close + near, SLOW + SLOW[:2] + SLOW + SLOW[:2], 0.05,
                   keys, keys)
        self.assertEqual((d.outcome, d.disagree), (Outcome.HELD, ""))
        one = decide(close + near, SLOW + SLOW[:2] + SLOW + SLOW[:2])
        assert d.winner is not None and one.winner is not None
        self.assertLess(d.winner.low, one.winner.low)


class StopRuleTest(unittest.TestCase):
    QUIET = [0.001 * ((-1) ** i) for i in range(30)]
    CTRL = [-0.1 - 0.001 * i for i in range(30)]

    def test_not_before_the_targets_minimum(self) -> None:
        n = MIN_TARGET_ROUNDS
        self.assertIsNone(stop_rule(self.QUIET[:6], self.CTRL[:6], 6, 6, 60))
        self.assertIsNone(stop_rule(self.QUIET[:n - 1], self.CTRL[:n - 1],
                                    n - 1, 6, 60))
        self.assertEqual(stop_rule(self.QUIET[:n], self.CTRL[:n], n, 6, 60),
                         "target")

    def test_the_control_must_be_detected(self) -> None:
        n = MIN_TARGET_ROUNDS
        self.assertIsNone(stop_rule(self.QUIET[:n], self.QUIET[:n], n, 6, 60))
        self.assertEqual(stop_rule(self.QUIET[:n], self.QUIET[:n], n, 6, n),
                         "max_rounds")

    def test_the_width_against_the_margin(self) -> None:
        """high / low <= (1 + m)^2, wherever the interval lies: held,
        equivalent or not told apart alike."""
        n = MIN_TARGET_ROUNDS
        wide = [0.2 * ((-1) ** i) for i in range(n)]
        self.assertIsNone(stop_rule(wide, self.CTRL[:n], n, 6, 60))
        self.assertEqual(stop_rule(wide, self.CTRL[:n], n, 6, 60, 0.5),
                         "target")
        far = [0.3 + x for x in self.QUIET[:n]]
        self.assertEqual(stop_rule(far, self.CTRL[:n], n, 6, 60), "target")

    def test_every_block_first(self) -> None:
        """With blocks, the target waits for each at min_rounds."""
        n = MIN_TARGET_ROUNDS + 6
        q, c = self.QUIET[:n], self.CTRL[:n]
        self.assertIsNone(stop_rule(q, c, n, 6, 60, 0.05, [0] * n, [0] * n))
        keys = [0] * (n - 5) + [1] * 5
        self.assertIsNone(stop_rule(q, c, n, 6, 60, 0.05, keys, keys))
        keys = [0] * (n - 6) + [1] * 6
        self.assertEqual(stop_rule(q, c, n, 6, 60, 0.05, keys, keys),
                         "target")

    def test_no_rounds(self) -> None:
        self.assertIsNone(stop_rule([], [], 0, 6, 60))
        self.assertEqual(stop_rule([], [], 0, 0, 0), "max_rounds")


if __name__ == "__main__":
    unittest.main()
