#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/soak/soak_trend_test.py
# -----------------------------------------------------------------------------
#
# trend.py on fixture series (seeded noise, a 10-minute soak sampled
# every 10 s, the first 20% its warm-up): Mann-Kendall's S, variance and p
# and Theil-Sen's slope on small known cases; then the verdicts. Pass:
# flat noisy series, a drift too small to matter, a single step up
# anywhere in the window (even 5 times the limit), a step inside the
# warm-up, a sawtooth, growth that stops, a leak that starts after the
# window's middle (not sustained), descriptors that come and go with
# hostile connections. Leak: a linear RSS leak, one that starts a sixth
# into the window, a staircase leak, a descriptor leak, a thread leak; the RSS
# limit scales with the level (10%). Too-short: under 8 samples after
# the warm-up. Last, report's verdicts, table and JSON on a planted
# leak.

from __future__ import annotations

import json
import math
import random
import unittest
from typing import Callable

from servers.soak import report as soak_report
from servers.soak import trend
from servers.soak.procs import Sample

MIB = 1024.0  # KiB
TIMES = [10.0 * i for i in range(61)]  # 10 minutes, every 10 s
WARMUP = 120.0  # 20%


def noisy(f: Callable[[float], float], sd: float, seed: int = 1
          ) -> list[float]:
    rng = random.Random(seed)
    return [f(t) + rng.gauss(0.0, sd) for t in TIMES]


def rss(values: list[float]) -> trend.Trend:
    return trend.judge_series("rss_kib", TIMES, values, WARMUP)


class MannKendallTest(unittest.TestCase):
    def test_s_and_variance(self) -> None:
        self.assertEqual(trend.mann_kendall_s([1, 2, 3, 4]), 6)
        self.assertEqual(trend.mann_kendall_s([4, 3, 2, 1]), -6)
        self.assertEqual(trend.mann_kendall_s([1, 3, 2]), 1)
        self.assertAlmostEqual(trend.mann_kendall_variance([1, 2, 3]),
                               3 * 2 * 11 / 18)
        # One pair tied: 3*2*11 - 2*1*9, over 18.
        self.assertAlmostEqual(trend.mann_kendall_variance([1, 1, 2]),
                               (66 - 18) / 18)

    def test_p(self) -> None:
        # n = 10 rising: S = 45, Var = 125, z = 44 / sqrt(125).
        want = 0.5 * math.erfc(44 / math.sqrt(125) / math.sqrt(2))
        self.assertAlmostEqual(trend.mann_kendall_p(list(range(10))), want)
        self.assertLess(want, 1e-4)
        self.assertGreater(trend.mann_kendall_p(list(range(10, 0, -1))), 0.999)
        self.assertEqual(trend.mann_kendall_p([5.0] * 20), 1.0)
        self.assertEqual(trend.mann_kendall_p([1.0, 2.0]), 1.0)
        self.assertEqual(trend.mann_kendall_p([1.0, 2.0, 1.0]), 0.5)

    def test_theil_sen(self) -> None:
        t = [0.0, 1.0, 2.0, 3.0, 4.0]
        self.assertAlmostEqual(trend.theil_sen_slope(t, [2 * x for x in t]), 2)
        # One outlier leaves the median slope alone.
        self.assertAlmostEqual(
            trend.theil_sen_slope(t, [0.0, 2.0, 400.0, 6.0, 8.0]), 2)
        self.assertEqual(trend.theil_sen_slope([1.0], [1.0]), 0.0)
        with self.assertRaises(ValueError):
            trend.theil_sen_slope([1.0, 2.0], [1.0])


class VerdictTest(unittest.TestCase):
    def test_flat_noisy_passes(self) -> None:
        for seed in range(20):
            tr = rss(noisy(lambda t: 8 * MIB, 0.5 * MIB, seed))
            self.assertEqual(tr.verdict, "pass", (seed, tr))
        self.assertEqual(tr.n, 49)
        self.assertEqual(tr.window_start_s, 120.0)

    def test_linear_leak_fails(self) -> None:
        tr = rss(noisy(lambda t: 8 * MIB + MIB * t / 60, 0.3 * MIB))
        self.assertEqual(tr.verdict, "leak", tr)
        self.assertAlmostEqual(tr.slope_per_min, MIB, delta=0.1 * MIB)
        self.assertLess(tr.p, 1e-6)
        self.assertGreater(tr.rise, tr.limit)
        self.assertIn("rises", tr.reason)

    def test_small_drift_passes(self) -> None:
        """Significant, but 0.2 MiB a minute is 1.6 MiB over the window,
        under the 4 MiB floor."""
        tr = rss(noisy(lambda t: 8 * MIB + 0.2 * MIB * t / 60, 0.05 * MIB))
        self.assertLess(tr.p, trend.ALPHA)
        self.assertEqual(tr.verdict, "pass", tr)
        self.assertIn("within the limit", tr.reason)

    def test_single_step_passes_anywhere(self) -> None:
        """A step of 20 MiB (5 times the limit) at a quarter, the middle,
        three quarters of the window, or just after the warm-up."""
        for at in (130.0, 240.0, 360.0, 370.0, 480.0, 590.0):
            for seed in range(5):
                tr = rss(noisy(lambda t: 8 * MIB + (20 * MIB if t >= at
                                                    else 0.0),
                               0.3 * MIB, seed))
                self.assertEqual(tr.verdict, "pass", (at, seed, tr))

    def test_step_in_warmup_passes(self) -> None:
        tr = rss(noisy(lambda t: 8 * MIB + (30 * MIB if t >= 60 else 0.0),
                       0.3 * MIB))
        self.assertEqual(tr.verdict, "pass", tr)
        self.assertGreater(tr.p, trend.ALPHA)

    def test_sawtooth_passes(self) -> None:
        tr = rss(noisy(lambda t: 8 * MIB + 6 * MIB * ((t % 90) / 90),
                       0.2 * MIB))
        self.assertEqual(tr.verdict, "pass", tr)

    def test_growth_that_stops_passes(self) -> None:
        tr = rss(noisy(lambda t: 8 * MIB + 4 * MIB * min(t, 360) / 60,
                       0.2 * MIB))
        self.assertEqual(tr.verdict, "pass", tr)
        self.assertIn("not sustained", tr.reason)

    def test_leak_that_starts_late(self) -> None:
        """From 200 s (a sixth into the window): a leak. From the window's
        middle: the first third's boundary never rises, so it is not
        sustained (a longer soak sees it)."""
        tr = rss(noisy(lambda t: 8 * MIB + 2 * MIB * max(0.0, t - 200) / 60,
                       0.2 * MIB))
        self.assertEqual(tr.verdict, "leak", tr)
        tr = rss(noisy(lambda t: 8 * MIB + 2 * MIB * max(0.0, t - 360) / 60,
                       0.2 * MIB))
        self.assertEqual(tr.verdict, "pass", tr)
        self.assertIn("not sustained", tr.reason)

    def test_staircase_leak_fails(self) -> None:
        tr = rss(noisy(lambda t: 8 * MIB + 2 * MIB * (t // 60), 0.2 * MIB))
        self.assertEqual(tr.verdict, "leak", tr)

    def test_rss_limit_scales_with_the_level(self) -> None:
        """6 MiB over the window: a leak at 8 MiB, within 10% at 100."""
        def drift(base: float) -> list[float]:
            return noisy(lambda t: base + 0.75 * MIB * t / 60, 0.1 * MIB)
        self.assertEqual(rss(drift(8 * MIB)).verdict, "leak")
        high = rss(drift(100 * MIB))
        self.assertEqual(high.verdict, "pass", high)
        self.assertAlmostEqual(high.limit, 0.1 * (100 + 1.5) * MIB,
                               delta=0.5 * MIB)

    def test_descriptors(self) -> None:
        rng = random.Random(3)
        churn = [20.0 + rng.randrange(0, 12) for _ in TIMES]
        self.assertEqual(trend.judge_series("fds", TIMES, churn,
                                            WARMUP).verdict, "pass")
        leak = [20.0 + i for i in range(len(TIMES))]  # one per sample
        tr = trend.judge_series("fds", TIMES, leak, WARMUP)
        self.assertEqual(tr.verdict, "leak", tr)
        self.assertAlmostEqual(tr.slope_per_min, 6.0)
        few = [20.0 + i // 10 for i in range(len(TIMES))]  # 5 over 8 min
        self.assertEqual(trend.judge_series("fds", TIMES, few,
                                            WARMUP).verdict, "pass")

    def test_threads(self) -> None:
        flat = trend.judge_series("threads", TIMES, [4.0] * len(TIMES), WARMUP)
        self.assertEqual((flat.verdict, flat.p), ("pass", 1.0))
        leak = [4.0 + t // 60 for t in TIMES]  # one a minute
        self.assertEqual(trend.judge_series("threads", TIMES, leak,
                                            WARMUP).verdict, "leak")

    def test_too_short(self) -> None:
        tr = trend.judge_series("rss_kib", TIMES[:14], [8 * MIB] * 14, WARMUP)
        self.assertEqual((tr.verdict, tr.n), ("too-short", 2))
        self.assertFalse(tr.passed)
        with self.assertRaises(ValueError):
            trend.limit_for("cpu", [])


class ReportTest(unittest.TestCase):
    def test_planted_leak_in_the_table_and_json(self) -> None:
        soak = soak_report.SoakRecord(10, 10, 0.2, WARMUP, 600, 1,
                                      soak_report.RULE.format(warmup=0.2))
        for name, per_min in (("pingpong", 0.0), ("chat", 1.0)):
            rec = soak_report.ServerRecord(name, ["server"], 1)
            rec.samples = [Sample(t, int(8192 + 1024 * per_min * t / 60),
                                  19, 4) for t in TIMES]
            soak_report.judge_server(rec, WARMUP)
            soak.servers.append(rec)
        self.assertTrue(soak.servers[0].passed)
        self.assertFalse(soak.servers[1].passed)
        text = soak_report.table(soak)
        self.assertIn("leak: rises", text)
        self.assertIn("pingpong", text)
        doc = json.loads(json.dumps(soak_report.to_json(soak)))
        self.assertEqual([s["name"] for s in doc["servers"]],
                         ["pingpong", "chat"])
        self.assertEqual(len(doc["servers"][1]["samples"]), len(TIMES))
        self.assertEqual([t["series"] for t in doc["servers"][1]["trends"]],
                         list(trend.SERIES))
        self.assertFalse(doc["servers"][1]["passed"])
        self.assertEqual(doc["servers"][1]["trends"][0]["verdict"], "leak")


if __name__ == "__main__":
    unittest.main()
