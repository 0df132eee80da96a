#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/calibration_test.py
# -----------------------------------------------------------------------------
#
# How often the micro pick's rules are wrong (calibration.py: seeded
# sweeps of 12 implementations decided by pick's own code, margins from
# fresh confirmation rounds): under the null, "ahead" over the runner-up
# and over the baseline at most 5% of the time and intervals that cover the
# truth at least 93% of the time; "equivalent within ±5%" at most 5% of the
# time when the leader is truly 1.08x. And the winner's curse that the
# confirmation removes: the same sweeps without it claim "ahead" of the
# baseline more often than the nominal 2.5%.

import unittest

from pick import calibration as C

RUNS = 1000


class CalibrationTest(unittest.TestCase):
    null: C.Rates
    off: C.Rates

    @classmethod
    def setUpClass(cls) -> None:
        cls.null = C.rates(1.0, RUNS, seed=1, confirm=True)
        cls.off = C.rates(1.08, RUNS, seed=2, confirm=True)

    def test_false_ahead_under_the_null(self) -> None:
        self.assertLessEqual(self.null.ahead, 0.05)
        self.assertLessEqual(self.null.ahead_of_baseline, 0.05)
        self.assertLessEqual(self.null.adopted, 0.05)

    def test_intervals_cover_the_truth(self) -> None:
        self.assertGreaterEqual(self.null.coverage, 0.93)
        self.assertGreaterEqual(self.off.coverage, 0.93)

    def test_no_equivalence_past_the_margin(self) -> None:
        self.assertLessEqual(self.off.equivalent, 0.05)

    def test_the_confirmation_removes_the_winners_curse(self) -> None:
        biased = C.rates(1.0, RUNS, seed=1, confirm=False)
        self.assertGreater(biased.ahead_of_baseline, 0.05)
        self.assertLess(self.null.ahead_of_baseline,
                        biased.ahead_of_baseline)

    def test_table_rows(self) -> None:
        rows = C.table(20)
        self.assertTrue(rows[0].startswith("| rule (micro pick"))
        self.assertEqual(len(rows), 2 + 2 * 5)


if __name__ == "__main__":
    unittest.main()
