#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/decide/paired_rounds_test.py
# -----------------------------------------------------------------------------
#
# Paired rounds (paired.py, decide/paired_rounds.py, and what picking, winners,
# the report
# and --repro make of them), on files built by testdata/roundsfix.py: the
# sign-test interval and p against hand-computed values; a bimodal host
# whose paired ratio is stable (a verdict, "the drift did not matter"); one
# whose ratio flips with the state (both answers, the reactor keeps the
# baseline); a state too short to tell (rerun); a real tie with its
# interval; a class that hit its time budget; fewer than 6 rounds
# (unknown); a lead under the minimum margin; --repro's half-disagreement
# and contradiction.

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest
from typing import Any

from pick.testutil import cls

from pick import cli
from pick.decide import paired
from pick.report import two_runs
from pick.read import sweeps
from pick.decide import paired_rounds
from pick.report import tables
from pick.decide import winners
from pick.margin import Standing, standing
from pick.decide.workloads import Workload

from pick.testdata import roundsfix as F


class PairedStatsTest(unittest.TestCase):
    def test_interval_rank(self) -> None:
        # 2 * BinomCDF(k - 1; n, 1/2) <= 0.05, k largest: n = 6: 2/64;
        # n = 9: 2 * 10/512 = 0.039; n = 17: 2 * 3214/131072 = 0.049 (k = 6
        # would be 2 * 9402/131072 = 0.14).
        self.assertIsNone(paired.interval_rank(5))  # 2/32 = 0.0625
        for n, k in ((6, 1), (8, 1), (9, 2), (12, 3), (17, 5)):
            self.assertEqual(paired.interval_rank(n), k, n)

    def test_median_interval_and_sign_test(self) -> None:
        x = paired.paired([1.1, 1.2, 1.3, 1.0, 1.4, 1.5, 1.25])
        # Sorted 1.0 1.1 1.2 1.25 1.3 1.4 1.5: k = 1, the extremes; the
        # ratio of exactly 1 counts against rejection, as the interval
        # keeps it: 6 of 7 above, p = 2 * 8 / 2^7, not significant, as the
        # interval's lower end of 1.00 says.
        self.assertEqual((x.n, x.ratio, x.lo, x.hi), (7, 1.25, 1.0, 1.5))
        self.assertAlmostEqual(x.coverage or 0, 1 - 2 / 128)
        self.assertAlmostEqual(x.p or 0, 0.125)
        y = paired.paired([0.9 + 0.1 * k for k in range(1, 10)])  # 1.0 .. 1.8
        self.assertAlmostEqual(y.lo or 0, 1.1)  # x_(2)
        self.assertAlmostEqual(y.hi or 0, 1.7)  # x_(8)
        self.assertAlmostEqual(y.ratio, 1.4)
        self.assertAlmostEqual(paired.sign_test_p([2.0] * 6) or 0, 2 / 64)
        self.assertAlmostEqual(paired.sign_test_p([2.0] * 5 + [0.5]) or 0,
                               2 * 7 / 64)
        self.assertAlmostEqual(paired.sign_test_p([2.0] * 10) or 0, 2 / 1024)
        self.assertEqual(paired.sign_test_p([2.0, 2.0, 2.0, 0.5, 0.5]), 1.0)
        # Ratios of exactly 1 count against rejection, as the interval
        # keeps them: never p 0.016 beside an interval starting at 1.00.
        self.assertEqual(paired.sign_test_p([1.0, 1.0]), 1.0)
        self.assertAlmostEqual(paired.sign_test_p([2.0] * 6 + [1.0]) or 0,
                               2 * 8 / 128)
        self.assertIsNone(paired.sign_test_p([]))
        # Even n: the median on the log scale, so B over A is 1 / (A over B).
        z = paired.paired([1.0, 4.0])
        self.assertAlmostEqual(z.ratio, 2.0)
        self.assertIsNone(z.lo)
        self.assertEqual(z.standing(0.05), Standing.UNKNOWN)
        inv = y.inverted()
        self.assertAlmostEqual(inv.lo or 0, 1 / 1.7)
        self.assertAlmostEqual(inv.hi or 0, 1 / 1.1)

    def test_standings_and_split(self) -> None:
        self.assertEqual(paired.paired([1.5] * 6).standing(0.05),
                         Standing.AHEAD_BEYOND)
        self.assertEqual(paired.paired([0.5] * 6).standing(0.05),
                         Standing.BEHIND_BEYOND)
        self.assertEqual(paired.paired([1.03] * 6).standing(0.05),
                         Standing.AHEAD)
        self.assertEqual(paired.paired([1.0, 1.03] * 3).standing(0.05),
                         Standing.EQUIVALENT)
        self.assertEqual(paired.paired([0.9, 1.1] * 3).standing(0.05),
                         Standing.NOT_TOLD_APART)
        self.assertEqual(paired.two_means_split([150, 450, 152, 449, 148,
                                                 455]), 3)
        self.assertEqual(paired.two_means_split([1.0]), 0)


class PairedClassTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def write(self, d: dict[str, Any], directory: str,
              confirm: Any = True) -> None:
        """d as the sweep's file and, unless confirm is None, `confirm`
        (True: the same rounds) as its confirmation, written after it."""
        family = d["context"]["serverkit"]["family"]
        F.write_doc(directory, family, d)
        if confirm is not None:
            F.write_doc(os.path.join(directory, sweeps.CONFIRM_DIR), family,
                        d if confirm is True else confirm)

    def load(self, d: dict[str, Any], name: str = "in",
             confirm: Any = True
             ) -> tuple[dict[str, sweeps.FamilyResults], Any]:
        directory = os.path.join(self.tmp, name)
        self.write(d, directory, confirm)
        loaded, problems = sweeps.load_dir(directory)
        self.assertFalse(problems)
        return loaded, winners.pick_all(loaded, Workload())

    def report(self, d: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        directory = os.path.join(self.tmp, "in")
        self.write(d, directory)
        out = os.path.join(self.tmp, "out")
        with contextlib.redirect_stdout(io.StringIO()):
            rc = cli.main(["--results", directory, "--out", out,
                           "--no-charts"])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "REPORT.md")) as f:
            md = f.read()
        with open(os.path.join(out, "winners.json")) as f:
            return md, json.load(f)

    def test_bimodal_host_stable_ratio_names_a_winner(self) -> None:
        loaded, res = self.load(F.stable_bimodal())
        fam = res["families"]["queues"]
        # The before/after floor moved 150 -> 450 ns: no veto with rounds.
        self.assertTrue(fam["drifted"])
        c = cls(res, "queues", "1:1")
        self.assertEqual((c["winner"], c["runner_up"], c["noise"]),
                         ("bounded-mpmc", "moodycamel", "above"))
        self.assertEqual(c["verdict"], "bounded-mpmc ahead of moodycamel by "
                         "more than 5% (by 47.8-52.2%): 1.50x [1.48, 1.52], "
                         "15 confirmation rounds, sign test p < 0.0001")
        self.assertTrue(c["confirmed"])
        self.assertEqual(c["paired"]["standing"], "ahead-beyond")
        st = c["paired"]["states"]
        self.assertEqual((st["near"]["n"], st["far"]["n"]), (9, 6))
        self.assertFalse(st["differ"])
        note = ("host drifted (floor ~150 ns in 9 rounds, ~450 ns in 6); no "
                "evidence that the states differ (U-test p 0.86, 9 and 6 "
                "rounds)")
        self.assertEqual(c["host_note"], note)
        self.assertIn(note, c["notes"])
        self.assertEqual(c["baseline_paired"]["b"], "mutex")
        self.assertAlmostEqual(c["baseline_paired"]["ratio"], 4.5)
        self.assertEqual(c["rounds"], 15)
        self.assertFalse(c["budget_ended"])
        # The same runs without the rounds object: today's drift veto.
        d = F.stable_bimodal()
        del d["context"]["serverkit"]["rounds"]
        _, old = self.load(d, "old")
        self.assertEqual(cls(old, "queues", "1:1")["noise"], "drifted")
        md, doc = self.report(F.stable_bimodal())
        self.assertIn("| queues | 1:1 | bounded-mpmc | 1.50x [1.48, 1.52] "
                      "moodycamel | 4.50x [4.43, 4.57] mutex | ahead by > "
                      "5%: adopted (sign test p < 0.0001) | 15, 15 "
                      "confirming |", md)
        self.assertIn("Note: %s." % note, md)
        self.assertNotIn("drifted: rerun", md)
        self.assertIn("With paired rounds that is not a veto", md)
        self.assertIn("| near | 150 | 9 | 1.50x [1.46, 1.52] |", md)
        j = doc["families"]["queues"]["classes"]["1:1"]
        self.assertEqual((j["rounds"], j["paired"]["n"]), (15, 15))
        self.assertEqual(j["paired"]["lo"], 1.4775)

    def test_unconfirmed_leader_is_not_adopted(self) -> None:
        _, res = self.load(F.steady(1.5, 12), confirm=None)
        c = cls(res, "queues", "1:1")
        self.assertFalse(c["confirmed"])
        self.assertIn("rounds, unconfirmed", c["verdict"])
        self.assertTrue(any(n.startswith("unconfirmed: no confirmation "
                                         "rounds") for n in c["notes"]))
        self.assertEqual(tables.noise_cell(c, 0.05),
                         "ahead by > 5%: not adopted "
                         "(sign test p 0.00049; unconfirmed)")

    def test_margins_come_from_the_confirmation_rounds(self) -> None:
        # Chosen at 1.5x, confirmed at 1.03x: the confirmation's interval
        # is the one reported, and its answer is the one adopted.
        _, res = self.load(F.steady(1.5, 12), confirm=F.steady(1.03, 10))
        c = cls(res, "queues", "1:1")
        self.assertTrue(c["confirmed"])
        self.assertAlmostEqual(c["selection_paired"]["ratio"], 1.5, 2)
        self.assertEqual(c["paired"]["n"], 10)
        self.assertEqual(c["paired"]["standing"], "ahead")
        self.assertTrue(c["verdict"].startswith(
            "bounded-mpmc ahead of moodycamel by "), c["verdict"])
        self.assertIn("10 confirmation rounds", c["verdict"])
        # A confirmation older than its sweep confirmed another sweep.
        directory = os.path.join(self.tmp, "stale")
        self.write(F.steady(1.5, 12), directory)
        conf = os.path.join(directory, sweeps.CONFIRM_DIR, "queues.json")
        os.utime(conf, (1, 1))
        loaded, _ = sweeps.load_dir(directory)
        self.assertIsNone(loaded["queues"].confirm)
        self.assertIn("names no sweep run and is older than",
                      loaded["queues"].confirm_note or "")

    def test_bimodal_host_flipping_ratio_gives_both_answers(self) -> None:
        _, res = self.load(F.flipping())
        c = cls(res, "buffer", "stream")
        self.assertEqual(c["noise"], "split")
        self.assertIsNone(c["winner"])
        self.assertEqual(c["verdict"], "in the near state, ring ahead of "
                         "mirrored by more than 5% (by 26.8-31.9%) (1.30x "
                         "[1.27, 1.32], 9 rounds); in the far state, ring and "
                         "mirrored equivalent within ±5% (90% interval "
                         "-2.0% to +2.5%) (1.01x [0.98, 1.02], 7 rounds)")
        self.assertTrue(c["paired"]["states"]["differ"])
        rx = res["reactor"]["buffer"]
        self.assertEqual((rx["winner"], rx["leader"], rx["adopted"]),
                         ("linear", "ring", False))
        self.assertTrue(rx["note"].startswith("kept the baseline linear: "
                                              "ring leads"), rx["note"])
        md, _ = self.report(F.flipping())
        row = [ln for ln in md.splitlines()
               if ln.startswith("| buffers | stream |")][0]
        self.assertIn("none adopted: in the near state, ring ahead", row)
        self.assertIn("split by host state", row)
        self.assertIn("| 16, 16 confirming |", row)
        self.assertIn("buffer `linear` (kept the baseline linear", md)
        self.assertIn("| far | 450 | 7 | 1.01x [0.98, 1.02] |", md)

    def test_states_that_differ_with_one_answer(self) -> None:
        _, res = self.load(F.stable_bimodal(far_ratio=1.2))
        c = cls(res, "queues", "1:1")
        self.assertEqual((c["winner"], c["noise"]), ("bounded-mpmc", "above"))
        self.assertTrue(c["paired"]["states"]["differ"])
        self.assertEqual(c["host_note"], (
            "host drifted (floor ~150 ns in 9 rounds, ~450 ns in 6); the "
            "paired ratio differs between the states (U-test p 0.0004, 9 and "
            "6 rounds), but their answers do not point different ways: in "
            "the near state, bounded-mpmc ahead of moodycamel by more than "
            "5% (by 46.2-52.2%) (1.50x [1.46, 1.52], 9 rounds); in the far "
            "state, bounded-mpmc ahead of moodycamel by more than 5% (by "
            "17.6-23.0%) (1.20x [1.18, 1.23], 6 rounds)"))

    def test_paired_rounds_overrule_the_pooled_leader(self) -> None:
        _, res = self.load(F.pooled_vs_paired())
        c = cls(res, "queues", "1:1")
        self.assertEqual(c["ranking"][0]["impl"], "moodycamel")
        self.assertEqual((c["winner"], c["runner_up"], c["noise"]),
                         ("bounded-mpmc", "moodycamel", "above"))
        self.assertEqual(c["verdict"], "bounded-mpmc ahead of moodycamel by "
                         "more than 5% (by 10.0%): 1.10x [1.10, 1.10], 9 "
                         "confirmation rounds, sign test p 0.039")
        self.assertIn("the paired rounds put bounded-mpmc ahead of "
                      "moodycamel, which leads on the class score",
                      c["notes"])
        self.assertLess(c["margin_over_runner_up"], 1)

    def test_short_state_claims_nothing(self) -> None:
        # 9 near rounds at 1.3x, 4 far ones at 1.0x: the states differ, but
        # the far state has no interval, so it cannot split the class.
        _, res = self.load(F.flipping(far=4))
        c = cls(res, "buffer", "stream")
        self.assertEqual((c["winner"], c["noise"]), ("ring", "above"))
        self.assertTrue(c["paired"]["states"]["differ"])
        self.assertIn("in the far state, no interval (median 1.00x, 4 "
                      "rounds)", c["host_note"] or "")
        self.assertEqual(res["reactor"]["buffer"]["winner"], "ring")

    def test_one_more_round_cannot_withdraw_a_verdict(self) -> None:
        # Issue 36's fixture: 20 near rounds at about 1.22x and 5 far ones
        # at about 1.13x; then a sixth far round at 0.99x makes the far
        # state "not told apart", which points no way: the winner stays.
        for sixth in (None, 0.99):
            _, res = self.load(F.drifting_winner(sixth), "dw%s" % sixth)
            c = cls(res, "queues", "1:1")
            self.assertEqual((c["winner"], c["noise"]),
                             ("bounded-mpmc", "above"), sixth)
            self.assertEqual(c["paired"]["standing"], "ahead-beyond")
            far = c["paired"]["states"]["far"]
            self.assertEqual(far["n"], 5 if sixth is None else 6)
        self.assertEqual(standing(far["lo"], far["hi"]),
                         Standing.NOT_TOLD_APART)

    def test_real_tie_and_budget(self) -> None:
        _, res = self.load(F.tie_budget())
        c = cls(res, "queues", "1:1")
        self.assertEqual(c["noise"], "within")
        self.assertEqual(c["verdict"], "bounded-mpmc and moodycamel "
                         "equivalent within ±5% (90% interval -1.5% to "
                         "+2.0%): 1.00x [0.98, 1.02], 12 confirmation "
                         "rounds, sign test p 1")
        self.assertEqual((c["rounds"], c["budget_ended"]), (12, True))
        self.assertEqual(tables.noise_cell(c, 0.05),
                         "equivalent ±5% (sign test p 1)")
        # Fewer than 6 rounds: no interval, noise unknown.
        lat = cls(res, "queues", "latency-bound")
        self.assertEqual(lat["noise"], "unknown")
        self.assertEqual(lat["verdict"], "noise unknown: 4 paired rounds of "
                         "bounded-mpmc and moodycamel; 6 are needed for an "
                         "interval")
        self.assertEqual(tables.noise_cell(lat, 0.05),
                         "unknown (4 rounds; 6 needed)")
        md, _ = self.report(F.tie_budget())
        self.assertIn("| queues | 1:1 | bounded-mpmc (leads a tie) | 1.00x "
                      "[0.98, 1.02] moodycamel | 3.01x [2.96, 3.06] mutex | "
                      "equivalent ±5% (sign test p 1) | 12 (budget ended), "
                      "12 confirming |", md)
        self.assertIn("Rounds: 12 (budget ended); the class's paired rounds "
                      "of bounded-mpmc and moodycamel: 12.", md)
        self.assertIn("throughput (throughput): 12 rounds, budget ended", md)

    def test_lead_under_the_margin(self) -> None:
        _, res = self.load(F.steady(1.03, 12, spread=0.3))
        c = cls(res, "queues", "1:1")
        self.assertEqual(c["noise"], "above")
        self.assertEqual(c["verdict"], "bounded-mpmc ahead of moodycamel by "
                         "2.5-3.6%: 1.03x [1.03, 1.04], 12 confirmation "
                         "rounds, sign test p 0.00049")
        self.assertEqual(tables.noise_cell(c, 0.05),
                         "ahead: adopted (sign test p 0.00049)")

    def test_a_round_missing_in_one_group_is_not_paired(self) -> None:
        loaded, _ = self.load(F.flipping())
        fr = loaded["buffer"]
        groups = [g for g in fr.groups() if g[0] in ("burger", "fd_echo")]
        rr = paired_rounds.round_ratios(fr, groups, "ring", "mirrored",
                                        "bytes_per_second", True)
        self.assertEqual(len(rr.keys), 16)
        del fr.cells[groups[0]]["mirrored"].by_round[(1, 3)]
        rr = paired_rounds.round_ratios(fr, groups, "ring", "mirrored",
                                        "bytes_per_second", True)
        self.assertEqual(len(rr.keys), 15)
        self.assertNotIn((1, 3), rr.keys)
        self.assertEqual(rr.floors[0], 150.0)


class PairedReproTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def repro(self, d1: dict[str, Any], d2: dict[str, Any]
              ) -> tuple[int, str]:
        p1 = F.write_doc(self.tmp, "run1", d1)
        p2 = F.write_doc(self.tmp, "run2", d2)
        out = io.StringIO()
        rc = two_runs.repro(p1, p2, out=out, err=out)
        return rc, out.getvalue()

    def test_half_disagreement_is_counted_not_failed(self) -> None:
        # Ahead in run 1, not told apart in run 2 (its interval spans the
        # first's): no contradiction.
        rc, text = self.repro(F.steady(1.5, 12),
                              F.steady(1.05, 12, spread=10))
        self.assertEqual(rc, 0, text)
        row = [ln for ln in text.splitlines() if ln.startswith("1:1 ")][0]
        self.assertIn("bounded-mpmc ahead of moodycamel by more than 5% (by "
                      "47.8-53.0%): 1.50x [1.48, 1.53] (12 rounds)", row)
        self.assertIn("not told apart", row)
        self.assertIn("half-disagreement: confident in run 1, a tie in run "
                      "2 (bounded-mpmc vs moodycamel)", row)
        self.assertEqual(text.rstrip().splitlines()[-1],
                         "0 contradictions (0 winner, 0 pair) in 1 classes, "
                         "3 pairs compared; 1 half-disagreements (confident "
                         "in one run, a tie in the other)")

    def test_opposite_intervals_contradict(self) -> None:
        rc, text = self.repro(F.steady(1.5, 12), F.steady(1 / 1.5, 12))
        self.assertEqual(rc, 1, text)
        self.assertIn("CONTRADICTION: winner bounded-mpmc vs moodycamel; "
                      "bounded-mpmc and moodycamel swap places, the "
                      "intervals apart", text)
        # Ahead by more than 5% in one run, equivalent within ±5% in the
        # other, the intervals apart: a contradiction too.
        rc, text = self.repro(F.steady(1.5, 12), F.steady(1.0, 12))
        self.assertEqual(rc, 1, text)
        self.assertIn("bounded-mpmc and moodycamel swap places", text)
        rc, text = self.repro(F.steady(1.5, 12), F.steady(1.45, 12))
        self.assertEqual(rc, 0, text)
        self.assertIn("0 contradictions (0 winner, 0 pair) in 1 classes, 3 "
                      "pairs compared; 0 half-disagreements", text)


if __name__ == "__main__":
    unittest.main()
