#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/margin_test.py
# -----------------------------------------------------------------------------
#
# The standings of margin.py at and around every edge of the band, their
# flips, which answers conflict, and the words.

import math
import unittest

from pick import margin
from pick.margin import Standing as S


class StandingTest(unittest.TestCase):
    def test_each_standing_at_five_percent(self) -> None:
        cases = [((1.06, 1.30), S.AHEAD_BEYOND), ((1.02, 1.30), S.AHEAD),
                 ((1.001, 1.04), S.AHEAD), ((0.96, 1.04), S.EQUIVALENT),
                 ((0.95, 1.04), S.NOT_TOLD_APART),
                 ((0.97, 1.051), S.NOT_TOLD_APART),
                 ((0.90, 0.99), S.BEHIND), ((0.80, 0.94), S.BEHIND_BEYOND),
                 ((0.80, 1.20), S.NOT_TOLD_APART)]
        for (lo, hi), want in cases:
            self.assertEqual(margin.standing(lo, hi, 0.05), want, (lo, hi))

    def test_band_is_symmetric_on_a_log_scale(self) -> None:
        self.assertEqual(margin.standing(1 / 1.05, 1.05), S.EQUIVALENT)
        self.assertEqual(margin.standing(1 / 1.05 - 1e-9, 1.0),
                         S.NOT_TOLD_APART)
        self.assertEqual(margin.standing(1.0, 1.05 + 1e-9), S.NOT_TOLD_APART)

    def test_lower_end_exactly_one_is_not_ahead(self) -> None:
        self.assertEqual(margin.standing(1.0, 1.04), S.EQUIVALENT)
        self.assertEqual(margin.standing(1.0, 1.20), S.NOT_TOLD_APART)
        self.assertEqual(margin.standing(1.05, 1.20), S.AHEAD)

    def test_inverting_the_interval_flips_the_standing(self) -> None:
        for lo, hi in [(1.06, 1.3), (1.02, 1.3), (0.96, 1.04), (0.9, 1.2),
                       (0.9, 0.99), (0.7, 0.9)]:
            self.assertEqual(margin.standing(1 / hi, 1 / lo),
                             margin.standing(lo, hi).flipped(), (lo, hi))

    def test_missing_or_unbounded_ends_are_unknown(self) -> None:
        for lo, hi in [(None, 1.1), (1.0, None), (0.0, 2.0),
                       (0.9, math.inf)]:
            self.assertEqual(margin.standing(lo, hi), S.UNKNOWN)

    def test_margin_must_be_positive(self) -> None:
        with self.assertRaises(ValueError):
            margin.standing(0.9, 1.1, 0.0)

    def test_conflicts(self) -> None:
        self.assertTrue(margin.conflict(S.AHEAD, S.BEHIND))
        self.assertTrue(margin.conflict(S.AHEAD_BEYOND, S.EQUIVALENT))
        self.assertTrue(margin.conflict(S.EQUIVALENT, S.BEHIND))
        self.assertFalse(margin.conflict(S.AHEAD_BEYOND, S.AHEAD))
        self.assertFalse(margin.conflict(S.AHEAD_BEYOND, S.NOT_TOLD_APART))
        self.assertFalse(margin.conflict(S.EQUIVALENT, S.NOT_TOLD_APART))
        self.assertFalse(margin.conflict(S.UNKNOWN, S.AHEAD))


class WordsTest(unittest.TestCase):
    def test_words(self) -> None:
        self.assertEqual(margin.words("x", "y", 1.08, 1.2),
                         "x ahead of y by more than 5% (by 8.0-20.0%)")
        self.assertEqual(margin.words("x", "y", 1.02, 1.2),
                         "x ahead of y by 2.0-20.0%")
        self.assertEqual(margin.words("x", "y", 0.97, 1.02),
                         "x and y equivalent within ±5% (-3.0% to +2.0%)")
        self.assertEqual(margin.words("x", "y", 0.95, 1.08),
                         "x and y not told apart (-5.0% to +8.0%)")
        self.assertEqual(margin.words("x", "y", 0.5, 0.8),
                         "y ahead of x by more than 5% (by 25.0-100.0%)")
        self.assertEqual(margin.words("x", "y", None, None),
                         "x and y: no interval")
        self.assertEqual(margin.short(S.EQUIVALENT, 0.03), "equivalent ±3%")


if __name__ == "__main__":
    unittest.main()
