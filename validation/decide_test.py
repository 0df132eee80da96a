#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/decide_test.py
# -----------------------------------------------------------------------------
#
# decide.py's verdict rule on fixed per-round log ratios, one test
# per outcome (held, refuted, equivalent, not told apart, too weak for each
# of its reasons, error), the standing and the MDE it reports, and the stop
# rule.

from __future__ import annotations

import math
import unittest

from pick import paired as VP
from validation.cases import Outcome
from validation.cases import Standing
from validation.decide import MIN_TARGET_ROUNDS, decide, stop_rule

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
        self.assertAlmostEqual(d.winner.p, 2 / 64)
        self.assertAlmostEqual(d.control.p, 2 / 64)
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
        self.assertAlmostEqual(d.mde, VP.mde(logs(1.01, 0.99, 1.005, 0.985,
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

    def test_no_rounds(self) -> None:
        self.assertIsNone(stop_rule([], [], 0, 6, 60))
        self.assertEqual(stop_rule([], [], 0, 0, 0), "max_rounds")


if __name__ == "__main__":
    unittest.main()
