#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/pingpong/validate_decide_test.py
# -----------------------------------------------------------------------------
#
# validate_decide.py's verdict rule on fixed per-round log ratios, one test
# per outcome (held, refuted, no difference, too weak for each of its
# reasons, error), and the MDE it reports.

from __future__ import annotations

import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_paired as VP  # noqa: E402
from validate_cases import Outcome  # noqa: E402
from validate_decide import decide  # noqa: E402

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

    def test_refuted(self) -> None:
        d = decide(logs(0.95, 0.96, 0.94, 0.95, 0.97, 0.95), SLOW)
        self.assertEqual(d.outcome, Outcome.REFUTED)

    def test_no_difference_with_its_mde(self) -> None:
        d = decide(logs(1.01, 0.99, 1.005, 0.985, 1.02, 0.995), SLOW)
        self.assertEqual(d.outcome, Outcome.NO_DIFFERENCE)
        # The MDE of these rounds: the simulated k(6) times their spread.
        self.assertAlmostEqual(d.mde, VP.mde(logs(1.01, 0.99, 1.005, 0.985,
                                                  1.02, 0.995)))
        self.assertTrue(0 < d.mde < 0.1, d.mde)
        self.assertIn("MDE %.1f%%" % (100 * d.mde), d.reason)

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


if __name__ == "__main__":
    unittest.main()
