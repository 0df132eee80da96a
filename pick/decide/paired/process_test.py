#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/decide/paired/process_test.py
# -----------------------------------------------------------------------------
#
# Paired rounds at the process level (decide/paired/process.py): Student's t
# against published quantiles, the between-process share and the lag-1
# autocorrelation by hand, the t interval over the processes' medians, the
# words when the processes disagree; and through pick's decision
# (rounds.decide_paired via picking.decide): a confirmation in several
# processes is read at the process level, a disagreeing one adopts
# nothing, and a leader not shown ahead of the baseline is not adopted
# (decide/winners.py).

import math
import unittest
from typing import cast

from pick.read import sweeps
from pick.records import ClassPick
from pick.decide.paired import (between_share,
                                lag1,
                                process_paired,
                                processes_for_equivalence,
                                t_p,
                                t_quantile)
from pick.decide.ranking import decide
from pick.records import ResultContext
from pick.decide.winners import _entry_from_class
from pick import records

GROUP: records.Group = ("throughput", ())
METRIC = "items_per_second"


def family(per_process: list[list[float]]) -> sweeps.FamilyResults:
    """a over b by the given log ratios, process by process, round by
    round; c, the baseline, 1.0 throughout, and b 1.0 too."""
    fr = sweeps.FamilyResults("queues", "<test>", cast(
        ResultContext, {"serverkit": {"rounds": {"units": {}}}}))
    cells = fr.cells.setdefault(GROUP, {})
    for p, logs in enumerate(per_process, start=1):
        for k, d in enumerate(logs, start=1):
            for impl, v in (("a", math.exp(d)), ("b", 1.0), ("c", 1.0)):
                cell = cells.setdefault(impl, records.Cell(impl))
                cell.by_round[(p, k)] = {METRIC: v, "round_floor_ns": 200.0}
                cell.samples.setdefault(METRIC, []).append(v)
    return fr


class StudentTest(unittest.TestCase):
    def test_quantiles(self) -> None:
        # Two-sided: t(0.975; df), t(0.95; df) from the tables.
        for level, df, want in ((0.95, 2, 4.302653), (0.95, 3, 3.182446),
                                (0.95, 10, 2.228139), (0.90, 3, 2.353363),
                                (0.99, 5, 4.032143)):
            self.assertAlmostEqual(t_quantile(level, df), want, places=5)

    def test_p(self) -> None:
        self.assertAlmostEqual(t_p(2.0, 10), 0.0733880, places=6)
        self.assertAlmostEqual(t_p(0.0, 4), 1.0)
        self.assertAlmostEqual(t_p(-3.182446, 3), 0.05, places=6)
        with self.assertRaises(ValueError):
            t_p(1.0, 0)


class ShareAndLagTest(unittest.TestCase):
    def test_between_share(self) -> None:
        within = [-0.01, 0.0, 0.01]
        self.assertEqual(between_share([within, within, within]), 0.0)
        apart = [[x + m for x in within] for m in (-0.1, 0.0, 0.1)]
        share = between_share(apart)
        assert share is not None
        self.assertGreater(share, 0.95)
        self.assertIsNone(between_share([within]))
        self.assertIsNone(between_share([[1.0], [2.0]]))

    def test_lag1(self) -> None:
        rising = [[float(i) for i in range(8)]]
        alternating = [[(-1.0) ** i for i in range(8)]]
        up, alt = lag1(rising), lag1(alternating)
        assert up is not None and alt is not None
        self.assertGreater(up, 0.5)
        self.assertLess(alt, -0.8)
        self.assertIsNone(lag1([[1.0, 2.0, 3.0]]))   # 2 lag pairs
        # Series under 6 rounds are left out (their -1/n bias).
        self.assertIsNone(lag1([[1.0, 2.0, 3.0]] * 4))
        short = lag1([[1.0, 2.0, 3.0]] * 4, min_len=2)
        assert short is not None
        self.assertAlmostEqual(short, 0.0)


class ProcessPairedTest(unittest.TestCase):
    def test_interval_over_the_medians(self) -> None:
        logs = [[0.10, 0.12, 0.50], [0.08, 0.09, 0.07], [0.11, 0.0, 0.13],
                [0.10, 0.10, 0.10]]
        keys = [(p, k) for p in range(1, 5) for k in range(1, 4)]
        x = process_paired(keys, [math.exp(d) for g in logs for d in g])
        meds = [0.12, 0.08, 0.11, 0.10]     # the one wild round is out
        mean = sum(meds) / 4
        sd = math.sqrt(sum((m - mean) ** 2 for m in meds) / 3)
        half = 3.182446 * sd / 2
        self.assertEqual((x.method, x.processes, x.n), ("process", 4, 12))
        self.assertAlmostEqual(x.ratio, math.exp(mean))
        assert x.lo is not None and x.hi is not None
        self.assertAlmostEqual(x.lo, math.exp(mean - half), places=5)
        self.assertAlmostEqual(x.hi, math.exp(mean + half), places=5)
        assert x.eq_lo is not None
        self.assertGreater(x.eq_lo, x.lo)       # the 90% interval
        self.assertFalse(x.disagree())

    def test_processes_for_equivalence(self) -> None:
        # Medians 0, +-0.04: sd 0.04 over 3 processes; the 90% half-width
        # t(0.95; k - 1) 0.04 / sqrt(k) fits in log(1.05) = 0.0488 from
        # k = 5 (2.132 * 0.04 / 2.236 = 0.0381; at 4: 2.353 * 0.02 =
        # 0.0471, also fits; at 3: 2.920 * 0.0231 = 0.0674, not).
        keys = [(p, 1) for p in range(1, 4)]
        x = process_paired(keys, [math.exp(v) for v in (-0.04, 0.0, 0.04)])
        self.assertEqual(processes_for_equivalence(x, 0.05), 4)
        self.assertIsNone(processes_for_equivalence(
            process_paired([(1, 1), (2, 1)], [1.0, 1.1]), 0.05))

    def test_two_processes_give_no_interval(self) -> None:
        x = process_paired([(1, 1), (2, 1)], [1.1, 1.2])
        self.assertIsNone(x.lo)
        self.assertIsNone(x.p)

    def test_disagreement_in_words(self) -> None:
        keys = [(p, 1) for p in range(1, 5)]
        x = process_paired(keys, [1.12, 1.09, 1.15, 0.97])
        self.assertTrue(x.disagree())
        self.assertEqual(x.disagreement("a", "b"),
                         "the processes disagree: 3 of 4 put a ahead "
                         "(1.12x, 1.09x, 1.15x), 1 puts b ahead (1.03x)")
        self.assertTrue(x.inverted().disagree())


class DecideTest(unittest.TestCase):
    @staticmethod
    def decided(sweep: list[list[float]], confirm: list[list[float]]
                ) -> ClassPick:
        fr = family(sweep)
        fr.confirm = family(confirm)
        scores = {"a": 2.0, "b": 1.0, "c": 1.0}
        res = decide(fr, [GROUP], METRIC, True, "c", ["a", "b", "c"],
                     scores, 0.05, 0.05, drift_threshold=0.2)
        # The keys pick_class() adds, which the reactor entry reads.
        res.update(ClassPick(family="queues", metric=METRIC, higher=True,
                             groups=["queues/throughput"]))
        return res

    def test_confirmation_in_processes(self) -> None:
        res = self.decided([[0.3] * 8], [[0.29, 0.31, 0.3]] * 4)
        self.assertEqual(res["noise"], "above")
        self.assertEqual(res["paired"]["method"], "process")
        self.assertEqual(res["paired"]["processes"], 4)
        self.assertIn("t test over 4 processes", res["verdict"])
        bp = res["baseline_paired"]
        assert bp is not None
        self.assertEqual(bp["method"], "process")
        self.assertTrue(_entry_from_class(res, [GROUP])["adopted"])

    def test_processes_that_disagree_adopt_nothing(self) -> None:
        confirm = [[0.30, 0.32, 0.31]] * 3 + [[0.28, 0.3, 0.29]] * 4 + \
            [[-0.01, -0.02, 0.0]]
        res = self.decided([[0.3] * 8], confirm)
        self.assertEqual(res["noise"], "disagree")
        self.assertIsNone(res["winner"])
        self.assertTrue(res["verdict"].startswith(
            "the processes disagree: 7 of 8 put a ahead"))
        self.assertFalse(_entry_from_class(res, [GROUP])["adopted"])

    def test_one_process_is_not_carried(self) -> None:
        res = self.decided([[0.3] * 8], [[0.3, 0.29, 0.31] * 3])
        self.assertEqual(res["paired"]["method"], "sign")
        self.assertTrue(any("does not carry the spread between processes"
                            in n for n in res["paired_notes"]))


class BaselineTest(unittest.TestCase):
    def test_a_leader_not_ahead_of_the_baseline_is_kept_out(self) -> None:
        res = DecideTest.decided([[0.3] * 8], [[0.29, 0.31, 0.3]] * 4)
        bp = res["baseline_paired"]
        assert bp is not None
        bp["standing"] = "not-told-apart"
        e = _entry_from_class(res, [GROUP])
        self.assertFalse(e["adopted"])
        self.assertEqual(e["winner"], "c")
        self.assertIn("not shown better than the baseline",
                      str(e["note"]))


if __name__ == "__main__":
    unittest.main()
