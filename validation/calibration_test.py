#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/calibration_test.py
# -----------------------------------------------------------------------------
#
# The validation's rules on seeded simulated cases (calibration.py: the
# real stop rule and verdict, round by round, in two blocks), under each
# noise model, against bounds that leave room for the simulation's own
# error: each error rate at most its nominal 5% plus 3 Monte Carlo standard
# errors, each coverage at least 95% less 3 (so no seed decides). Under an
# AR(1) drift of rho 0.7 the same bounds, and coverage >= 93%. The host
# state x candidate model is the exception, stated: two blocks catch a host
# state only when it changed between them (docs/methods.md), so its bound
# is that the blocks at least halve the rounds-only rule's false claims.
# Teeth: the rounds-only interval of the rule before issue 47 fails the
# same bounds under AR(1) 0.7. RUNS here (1200 per cell) is fewer than the
# docs' table (calibration.RUNS, 2000): about a minute of CPU.

from __future__ import annotations

import math
import time
import unittest

from validation import calibration
from validation import decide
from validation.cases import Outcome

RUNS = 1200
SEED = 4700      # not the table's: the bounds must hold for any seed


def false_claims(t: calibration.Tally) -> float:
    return t.rate(Outcome.HELD, Outcome.REFUTED)


class CalibrationTest(unittest.TestCase):
    cells: dict[tuple[str, float], calibration.Tally]
    old: calibration.Tally
    seconds: float

    @classmethod
    def setUpClass(cls) -> None:
        started = time.process_time()   # CPU: others share the cores
        cls.cells = {(n, t): calibration.simulate(t, RUNS, SEED, n)
                     for n in ("normal", "t3", "ar0.5", "ar0.7")
                     for t in (1.0, 1.08)}
        cls.cells[("host", 1.0)] = calibration.simulate(1.0, RUNS, SEED,
                                                        "host")
        cls.old = calibration.simulate(1.0, RUNS, SEED, "ar0.7", blocks=1,
                                       widen=False)
        cls.seconds = time.process_time() - started

    def test_false_held_or_refuted_at_truth_1(self) -> None:
        for (noise, truth), t in self.cells.items():
            if truth == 1.0 and noise != "host":
                with self.subTest(noise=noise):
                    self.assertLessEqual(false_claims(t),
                                         calibration.bound_up(0.05, RUNS),
                                         calibration.describe(t))

    def test_the_intervals_cover_the_truth_where_they_stopped(self) -> None:
        low = 0.95 - 3 * calibration.se(0.95, RUNS)
        for (noise, truth), t in self.cells.items():
            if noise != "host":
                with self.subTest(noise=noise, truth=truth):
                    self.assertGreaterEqual(t.coverage(), low,
                                            calibration.describe(t))
        for truth in (1.0, 1.08):
            self.assertGreaterEqual(self.cells[("ar0.7", truth)].coverage(),
                                    0.93)

    def test_no_equivalence_just_past_the_margin(self) -> None:
        for (noise, truth), t in self.cells.items():
            if truth == 1.08:
                with self.subTest(noise=noise):
                    self.assertLessEqual(t.rate(Outcome.EQUIVALENT),
                                         calibration.bound_up(0.05, RUNS),
                                         calibration.describe(t))

    def test_equivalence_has_power_at_a_true_1(self) -> None:
        """TOST at 90% with the budget's rounds: the docs' table says 74%
        under independent rounds; at least 65% here."""
        self.assertGreaterEqual(self.cells[("normal", 1.0)].rate(
            Outcome.EQUIVALENT), 0.65)

    def test_the_blocks_halve_the_host_states_false_claims(self) -> None:
        """Two blocks minutes apart: where the host state changed between
        them, they disagree and nothing is adopted; where both fell in one
        state, no interval from the case can tell (docs/methods.md)."""
        host = self.cells[("host", 1.0)]
        rounds_only = calibration.simulate(1.0, RUNS // 2, SEED, "host",
                                           blocks=1, widen=False)
        self.assertLessEqual(false_claims(host),
                             false_claims(rounds_only) / 2,
                             calibration.describe(host))
        self.assertGreater(host.disagree, RUNS // 20)

    def test_the_calibration_has_teeth(self) -> None:
        """The rounds-only interval under AR(1) 0.7 fails both bounds
        (39% false claims and 60% coverage in the issue's audit)."""
        self.assertGreater(false_claims(self.old),
                           calibration.bound_up(0.05, RUNS),
                           calibration.describe(self.old))
        self.assertLess(self.old.coverage(), 0.93)

    def test_the_cases_stop_on_the_rule(self) -> None:
        """Every case ended by the rule or the budget, never before the
        target's minimum rounds."""
        for t in self.cells.values():
            with self.subTest(noise=t.noise, truth=t.truth):
                self.assertEqual(set(t.stops) - {"target", "budget"}, set())
                self.assertGreaterEqual(t.rounds / t.runs,
                                        decide.MIN_TARGET_ROUNDS)
                self.assertEqual(sum(t.outcomes.values()), t.runs)

    def test_the_table(self) -> None:
        lines = calibration.table(self.cells)
        self.assertEqual(lines[0], "| rule | truth | normal | t3 | ar0.5 | "
                         "ar0.7 | host | bound |")
        self.assertTrue(lines[2].startswith("| false held or refuted | "
                                            "1.00x | "), lines[2])
        self.assertTrue(lines[2].endswith("| <= %.1f%% |" % (
            100 * calibration.bound_up(0.05, RUNS))), lines[2])

    def test_it_is_quick(self) -> None:
        self.assertLess(self.seconds, 120.0)

    def test_bounds(self) -> None:
        self.assertAlmostEqual(calibration.bound_up(0.05, 1200),
                               0.05 + 3 * math.sqrt(0.05 * 0.95 / 1200))


if __name__ == "__main__":
    unittest.main()
