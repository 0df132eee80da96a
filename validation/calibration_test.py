#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/calibration_test.py
# -----------------------------------------------------------------------------
#
# The validation's rules on seeded simulated cases (calibration.py:
# the real stop rule and verdict, round by round): under the null at most 5%
# false held or refuted; the reported 95% intervals cover the truth in at
# least 93% of cases at the round where they stopped; at a true 1.08x,
# "equivalent within ±5%" in at most 5%. The numbers are docs/methods.md's
# table "How often the rules are wrong".

from __future__ import annotations

import time
import unittest

from validation import calibration as C
from validation import decide as D
from validation.cases import Outcome


class CalibrationTest(unittest.TestCase):
    null: C.Tally
    near: C.Tally
    seconds: float

    @classmethod
    def setUpClass(cls) -> None:
        started = time.monotonic()
        cls.null = C.simulate(1.0)
        cls.near = C.simulate(1.08)
        cls.seconds = time.monotonic() - started

    def test_false_held_or_refuted_under_the_null(self) -> None:
        self.assertEqual(self.null.runs, C.RUNS)
        self.assertGreaterEqual(C.RUNS, 1000)
        rate = self.null.rate(Outcome.HELD, Outcome.REFUTED)
        self.assertLessEqual(rate, 0.05, C.describe(self.null))

    def test_the_intervals_cover_the_truth_where_they_stopped(self) -> None:
        for t in (self.null, self.near):
            with self.subTest(truth=t.truth):
                self.assertGreaterEqual(t.coverage(), 0.93, C.describe(t))

    def test_no_equivalence_just_past_the_margin(self) -> None:
        self.assertLessEqual(self.near.rate(Outcome.EQUIVALENT), 0.05,
                             C.describe(self.near))

    def test_the_cases_stop_on_the_rule(self) -> None:
        """Every case ended by the rule or the budget, never before the
        target's minimum rounds; every verdict a measured one."""
        for t in (self.null, self.near):
            self.assertEqual(set(t.stops) - {"target", "budget"}, set())
            self.assertGreaterEqual(t.rounds / t.runs, D.MIN_TARGET_ROUNDS)
            self.assertEqual(sum(t.outcomes.get(o.value, 0) for o in (
                Outcome.HELD, Outcome.EQUIVALENT, Outcome.NOT_TOLD_APART,
                Outcome.REFUTED)), t.runs)

    def test_the_table(self) -> None:
        lines = C.table(self.null, self.near)
        self.assertEqual(lines[0], "| rule | truth | runs | rate or "
                         "coverage | bound |")
        self.assertIn("| false held or refuted | 1.00x | %d |" % C.RUNS,
                      lines[2])

    def test_it_is_quick(self) -> None:
        self.assertLess(self.seconds, 40.0)


if __name__ == "__main__":
    unittest.main()
