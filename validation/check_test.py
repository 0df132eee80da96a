#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/check_test.py
# -----------------------------------------------------------------------------
#
# The prediction's check (check.py) on constructed resamples and small
# synthetic fits: gamma's interval by test inversion (the percentile
# interval of N / D where D keeps its sign, unbounded where it does not,
# and 1 excluded even then where N is clear of 0), the three outcomes and
# their precedence, the words and the JSON. check_calibration_test.py
# measures the rates.

from __future__ import annotations

import math
import random
import unittest

from validation import check
from validation import model

INF = math.inf


def est(lo: float, hi: float) -> model.Estimate:
    return model.Estimate((lo + hi) / 2, lo, hi)


class GammaTest(unittest.TestCase):
    def test_one_signed_d_gives_the_percentile_interval_of_the_ratio(
            self) -> None:
        rng = random.Random(5)
        nd = [(rng.gauss(-0.2, 0.03), rng.gauss(-0.1, 0.01))
              for _ in range(400)]
        lo, hi = check.gamma_interval(nd)
        want = model.interval(2.0, [n / d for n, d in nd])
        assert want is not None
        self.assertAlmostEqual(lo, want.low)
        self.assertAlmostEqual(hi, want.high)
        self.assertTrue(check.gamma_holds(nd, 2.0))
        self.assertFalse(check.gamma_holds(nd, 1.0))
        # The same with D > 0 (a predicted loss).
        flipped = [(-n, -d) for n, d in nd]
        self.assertEqual(check.gamma_interval(flipped), (lo, hi))

    def test_unbounded_where_the_prediction_is_near_one(self) -> None:
        rng = random.Random(6)
        nd = [(rng.gauss(0.0, 0.03), rng.gauss(0.0, 0.01))
              for _ in range(400)]
        self.assertEqual(check.gamma_interval(nd), (-INF, INF))
        self.assertTrue(check.gamma_holds(nd, 1.0))
        self.assertTrue(check.gamma_holds(nd, 100.0))

    def test_a_clear_effect_against_a_flat_prediction_excludes_one(
            self) -> None:
        """Fieller's exclusive case: N well below 0, D on both sides of
        it: gamma is large in both directions, never near 1."""
        rng = random.Random(7)
        nd = [(rng.gauss(-0.2, 0.02), rng.gauss(0.0, 0.01))
              for _ in range(400)]
        self.assertEqual(check.gamma_interval(nd), (-INF, INF))
        self.assertFalse(check.gamma_holds(nd, 1.0))
        self.assertFalse(check.gamma_holds(nd, 0.0))

    def test_degenerate_resamples(self) -> None:
        self.assertEqual(check.gamma_interval([(-0.2, -0.1)] * 10), (2.0, 2.0))
        # D exactly 0 everywhere: only N decides; N = 0 holds every g.
        self.assertEqual(check.gamma_interval([(0.0, 0.0)] * 10), (-INF, INF))
        lo, hi = check.gamma_interval([(-0.1, 0.0)] * 10)
        self.assertTrue(math.isnan(lo) and math.isnan(hi))


class OutcomeTest(unittest.TestCase):
    band = math.log1p(0.05)

    def test_the_three_outcomes_and_their_precedence(self) -> None:
        in_band = est(-0.02, 0.03)
        wide = est(-0.2, 0.3)
        big, tiny = 1.16, 1.003    # predicted at a 20% and a 1% share
        self.assertEqual(check.outcome_of(in_band, est(-5, 8), True, 0.05,
                                          big), check.CONSISTENT)
        # The band cannot fail where twice the difference stays inside it.
        self.assertEqual(check.outcome_of(in_band, est(-5, 8), True, 0.05,
                                          tiny), check.UNINFORMATIVE)
        self.assertEqual(check.outcome_of(wide, est(0.7, 1.6), True, 0.05,
                                          tiny), check.CONSISTENT)
        # gamma's interval holds 1 but reaches 0.3 (or 2.4): neither
        # twice nor half the micro difference excluded.
        for g in (est(0.3, 1.6), est(0.8, 2.4), est(-INF, INF)):
            self.assertEqual(check.outcome_of(wide, g, True, 0.05, big),
                             check.UNINFORMATIVE)
        # Inside the band, yet gamma excludes 1: inconsistent comes first.
        self.assertEqual(check.outcome_of(in_band, est(2.5, 3.5), False, 0.05,
                                          big), check.INCONSISTENT)
        self.assertEqual(check.outcome_of(wide, est(2.5, 3.5), False, 0.05,
                                          big), check.INCONSISTENT)
        # The band follows the margin.
        self.assertEqual(check.outcome_of(est(-0.08, 0.08), est(-5, 8), True,
                                          0.10, 1.5), check.CONSISTENT)
        self.assertEqual(check.outcome_of(est(-0.08, 0.08), est(-5, 8), True,
                                          0.05, 1.5), check.UNINFORMATIVE)

    def test_band_can_fail(self) -> None:
        self.assertTrue(check.band_can_fail(1.16, 0.05))
        self.assertTrue(check.band_can_fail(0.79, 0.05))
        self.assertFalse(check.band_can_fail(1.003, 0.05))
        self.assertFalse(check.band_can_fail(0.99, 0.05))
        self.assertFalse(check.band_can_fail(math.nan, 0.05))


def fitted(share: float, measured: float, noise: float,
           seed: int = 1) -> model.Model:
    """A server of 10000 ns per unit whose baseline component is `share`
    of it (k = 2, the candidate's micro cost half the baseline's), the
    candidate measured at `measured` with per-run noise."""
    rng = random.Random(seed)
    c_base = share * 10000.0 / 2

    def run(x: float) -> float:
        return x * math.exp(rng.gauss(0.0, noise))
    rs = [model.Round(run(10000.0), ((500.0, run(11000.0)),
                                     (1000.0, run(12000.0))), 2.0,
                      run(10000.0 / measured)) for _ in range(12)]
    micro: model.Micro = {"base": {i: c_base for i in range(5)},
                          "cand": {i: c_base / 2 for i in range(5)}}
    m = model.fit(rs, micro, "base", resamples=300, seed=seed)
    assert m is not None
    return m


class CheckTest(unittest.TestCase):
    def test_a_large_share_as_predicted_is_consistent(self) -> None:
        # 50% share, half the cost: predicted 1/(1 - 0.25) = 1.333.
        c = check.check(fitted(0.5, 4 / 3, 0.04), "cand")
        assert c is not None
        self.assertEqual(c.outcome, check.CONSISTENT)
        self.assertTrue(c.holds)
        self.assertTrue(c.gamma.low <= 1 <= c.gamma.high)
        self.assertAlmostEqual(c.predicted.est, 4 / 3, delta=0.05)

    def test_a_large_share_paying_more_is_inconsistent(self) -> None:
        # In situ the candidate saves 2.5 times the predicted 25%.
        c = check.check(fitted(0.5, 1 / (1 - 0.625), 0.04), "cand")
        assert c is not None
        self.assertEqual(c.outcome, check.INCONSISTENT)
        self.assertFalse(c.holds)
        self.assertGreater(c.gamma.low, 1.5)
        self.assertRegex(c.words(), r"^inconsistent: the server pays "
                         r"2\.\dx \[2\.\d, 3\.\d\] the micro")
        self.assertIn("the micro cost difference (γ); measured 2.", c.words())

    def test_a_tiny_share_is_uninformative(self) -> None:
        c = check.check(fitted(0.01, 1.0025, 0.06), "cand")
        assert c is not None
        self.assertEqual(c.outcome, check.UNINFORMATIVE)
        self.assertTrue(c.words().startswith("uninformative: γ "), c.words())
        self.assertIn("reaches past ±5%", c.words())

    def test_the_json(self) -> None:
        c = check.check(fitted(0.01, 1.0025, 0.06), "cand")
        assert c is not None
        j = c.as_json()
        self.assertEqual(sorted(j), [
            "gamma", "gamma_band", "log_ratio", "margin", "measured",
            "outcome", "predicted", "resamples", "words"])
        self.assertEqual(j["outcome"], "uninformative")
        self.assertEqual(sorted(j["gamma"]), ["est", "high", "low"])
        self.assertEqual(j["gamma_band"], [0.5, 2.0])
        self.assertEqual(j["resamples"], 300)
        unbounded = check.Check(
            check.UNINFORMATIVE, est(1, 1), est(1, 1), est(-0.1, 0.1),
            model.Estimate(math.nan, -INF, INF), 0.05, 10)
        self.assertEqual(unbounded.as_json()["gamma"],
                         dict(est=None, low=None, high=None))
        self.assertIn("γ unbounded (-inf to inf): the prediction does not "
                      "tell the candidate from the baseline",
                      unbounded.words())

    def test_no_candidate_no_check(self) -> None:
        m = fitted(0.2, 1.1, 0.04)
        self.assertIsNone(check.check(m, "other"))
        rs = [model.Round(10000.0, ((500.0, 11000.0),), 2.0)] * 3
        bare = model.fit(rs, {"base": {0: 1.0}, "cand": {0: 0.5}}, "base",
                         resamples=20)
        assert bare is not None
        self.assertIsNone(check.check(bare, "cand"))


if __name__ == "__main__":
    unittest.main()
