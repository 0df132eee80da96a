#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/model_test.py
# -----------------------------------------------------------------------------
#
# The model's arithmetic (model.py) on synthetic servers whose cost
# per unit is exactly C0 + k * (c + d): the slope gives back k, the
# amplification k / n, the share k c / C and the prediction C / (C + k dc);
# noise widens the intervals around them; the candidate's measured ratio
# resampled with them (check_test.py tests the check on it).

from __future__ import annotations

import math
import random
import unittest

from validation import model

C0, K, N = 20000.0, 3.0, 3.0    # ns per unit; slope; ops per unit
C_BASE, C_FAST = 500.0, 100.0   # the micro costs per op, ns


def server(d: float, c: float = C_BASE, noise: float = 0.0,
           rng: random.Random = random.Random(1)) -> float:
    """The synthetic server's cost per unit with d ns injected per op."""
    return (C0 + K * (c + d)) * (1 + noise * rng.uniform(-1, 1))


def rounds(n: int = 12, noise: float = 0.0, sizes: tuple[float, ...] = (
        1000.0, 2000.0), seed: int = 1) -> list[model.Round]:
    rng = random.Random(seed)
    return [model.Round(server(0, noise=noise, rng=rng),
                        tuple((d, server(d, noise=noise, rng=rng))
                              for d in sizes), N) for _ in range(n)]


MICRO: model.Micro = {"base": {i: C_BASE for i in range(10)},
                      "fast": {i: C_FAST for i in range(10)}}


class ExactTest(unittest.TestCase):
    def test_the_slope_amplification_share_and_prediction(self) -> None:
        m = model.fit(rounds(), MICRO, "base")
        assert m is not None
        cost = C0 + K * C_BASE
        self.assertAlmostEqual(m.slope.est, K)
        self.assertAlmostEqual(m.slope.low, K)
        self.assertAlmostEqual(m.slope.high, K)
        assert m.amplification is not None and m.share is not None
        self.assertAlmostEqual(m.amplification.est, K / N)
        self.assertAlmostEqual(m.point.ops_per_unit or 0, N)
        self.assertAlmostEqual(m.cost.est, cost)
        self.assertAlmostEqual(m.share.est, K * C_BASE / cost)
        want = cost / (cost + K * (C_FAST - C_BASE))
        self.assertAlmostEqual(m.predicted["fast"].est, want)
        self.assertAlmostEqual(m.predicted["base"].est, 1.0)
        # ... and the prediction is what the server then does.
        self.assertAlmostEqual(server(0) / server(0, c=C_FAST), want)
        assert m.curvature is not None
        self.assertAlmostEqual(m.curvature.est, 1.0)

    def test_amplification_one_when_a_ns_costs_a_ns(self) -> None:
        rs = [model.Round(1000.0, ((10.0, 1040.0), (20.0, 1080.0)), 4.0)]
        m = model.fit(rs, {}, "base")
        assert m is not None and m.amplification is not None
        self.assertAlmostEqual(m.slope.est, 4.0)
        self.assertAlmostEqual(m.amplification.est, 1.0)
        self.assertIsNone(m.share)
        self.assertEqual(m.predicted, {})

    def test_curvature_shows_a_cost_that_is_not_linear(self) -> None:
        # The rise at 2d is three times the rise at d, not twice.
        r = model.Round(100.0, ((1.0, 110.0), (2.0, 130.0)), 1.0)
        self.assertAlmostEqual(model.round_curvature(r) or 0, 1.5)
        self.assertIsNone(
            model.round_curvature(model.Round(100.0, ((1.0, 110.0),))))

    def test_one_size_still_gives_the_slope(self) -> None:
        r = model.Round(100.0, ((10.0, 150.0),), None)
        self.assertAlmostEqual(model.round_slope(r) or 0, 5.0)
        self.assertIsNone(model.round_slope(model.Round(100.0, (), None)))

    def test_no_rounds_no_model(self) -> None:
        self.assertIsNone(model.fit([], MICRO, "base"))
        self.assertIsNone(model.point([], MICRO, "base"))

    def test_a_prediction_past_zero_cost_is_infinite(self) -> None:
        self.assertEqual(model.predict_ratio(100.0, 2.0, 100.0, 40.0),
                         float("inf"))


class NoiseTest(unittest.TestCase):
    def test_the_intervals_hold_the_truth_and_widen_with_noise(
            self) -> None:
        quiet = model.fit(rounds(noise=0.002), MICRO, "base")
        loud = model.fit(rounds(noise=0.02), MICRO, "base")
        assert quiet is not None and loud is not None
        for m in (quiet, loud):
            self.assertTrue(m.slope.low <= K <= m.slope.high, m.slope)
            self.assertLessEqual(m.slope.low, m.slope.est)
            self.assertLessEqual(m.slope.est, m.slope.high)
        self.assertLess(quiet.slope.high - quiet.slope.low,
                        loud.slope.high - loud.slope.low)

    def test_micro_noise_widens_the_prediction(self) -> None:
        rng = random.Random(3)
        noisy: model.Micro = {"base": {i: C_BASE * rng.uniform(0.8, 1.2)
                                       for i in range(10)},
                              "fast": {i: C_FAST * rng.uniform(0.8, 1.2)
                                       for i in range(10)}}
        exact = model.fit(rounds(), MICRO, "base")
        wide = model.fit(rounds(), noisy, "base")
        assert exact is not None and wide is not None
        e, w = exact.predicted["fast"], wide.predicted["fast"]
        self.assertAlmostEqual(e.high - e.low, 0.0)
        self.assertGreater(w.high - w.low, 0.001)

    def test_the_bootstrap_is_reproducible(self) -> None:
        a = model.fit(rounds(noise=0.02), MICRO, "base")
        b = model.fit(rounds(noise=0.02), MICRO, "base")
        assert a is not None and b is not None
        self.assertEqual(a.slope, b.slope)
        self.assertEqual(a.resamples, model.BOOTSTRAP)


class CandidateTest(unittest.TestCase):
    def test_the_measured_ratio_rides_along_with_each_resample(
            self) -> None:
        rs = [model.Round(r.base, r.controls, r.ops_per_unit, r.base / 1.05)
              for r in rounds(noise=0.02)]
        m = model.fit(rs, MICRO, "base", resamples=200)
        assert m is not None and m.measured is not None
        self.assertAlmostEqual(m.point.measured or 0, 1.05)
        self.assertAlmostEqual(m.measured.low, 1.05)
        self.assertEqual(len(m.draws), 200)
        self.assertTrue(all(q.measured is not None and "fast" in q.predicted
                            for q in m.draws))
        # The draws are the intervals' resamples.
        self.assertEqual(
            m.predicted["fast"],
            model.interval(m.predicted["fast"].est,
                           [q.predicted["fast"] for q in m.draws]))

    def test_the_ratio_is_the_hodges_lehmann_of_the_rounds(self) -> None:
        logs = [0.0, 0.1, 0.3]
        rs = [model.Round(100.0, ((1.0, 101.0),), None, 100.0 / math.exp(x))
              for x in logs]
        # Walsh averages 0, .05, .15, .1, .2, .3: median 0.125.
        self.assertAlmostEqual(model.measured_ratio(rs) or 0, math.exp(0.125))
        self.assertIsNone(model.measured_ratio(rounds()))

    def test_rounds_with_and_without_the_candidate_are_drawn_apart(
            self) -> None:
        with_c = [model.Round(r.base, r.controls, r.ops_per_unit, r.base)
                  for r in rounds(n=3, noise=0.02)]
        m = model.fit(with_c + rounds(n=9, noise=0.02, seed=2), MICRO, "base",
                      resamples=100)
        assert m is not None
        # Every resample holds three rounds with the candidate: never
        # none, whatever the draw.
        self.assertEqual(len(m.draws), 100)
        self.assertTrue(all(q.measured == 1.0 for q in m.draws))


class JsonTest(unittest.TestCase):
    def test_the_json(self) -> None:
        m = model.fit(rounds(), MICRO, "base")
        assert m is not None
        j = model.model_json(m)
        self.assertEqual(j["rounds"], 12)
        self.assertEqual(j["micro_rounds"], 10)
        self.assertIn("bootstrap", str(j["interval"]))
        pred = j["predicted"]
        assert isinstance(pred, dict)
        self.assertEqual(sorted(pred), ["base", "fast"])


if __name__ == "__main__":
    unittest.main()
