#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/decide/winners_test.py
# -----------------------------------------------------------------------------
#
# winners.json (decide/winners.py): the reactor contract the ping-pong
# validation
# reads, the floor per family and the noise rule; the floor and drift
# (stats.drift()): a drifted family names no winner and the reactor keeps
# its baseline.

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest
from typing import Any, Optional

from pick.testutil import BASIC, NOISY_FLOOR, SHIFTED, cls, picked

from pick import cli
from pick.read import sweeps
from pick.decide import stats
from pick.report import tables
from pick.decide import winners
from pick.decide.workloads import Workload
from pick import records

POOL = os.path.join(os.path.dirname(BASIC), "pool")


class ReactorContractTest(unittest.TestCase):
    def test_winners_json_reactor(self) -> None:
        out = tempfile.mkdtemp()
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                rc = cli.main(["--results", BASIC, "--out", out,
                               "--no-charts"])
            self.assertEqual(rc, 0)
            with open(os.path.join(out, "winners.json")) as f:
                doc = json.load(f)
        finally:
            shutil.rmtree(out)
        rx = doc["reactor"]
        for key in ("winner", "baseline", "micro_ratio", "source", "cv"):
            for comp in rx.values():
                self.assertIn(key, comp)
        self.assertEqual(set(rx), {"task_queue", "logger", "thread_pool"})
        # The fixture's pools have no hand-off latency runs: the baseline,
        # unmeasured, which the validation cannot run against itself.
        self.assertEqual(rx["thread_pool"]["winner"], "asio")
        self.assertFalse(rx["thread_pool"]["measured"])
        self.assertEqual(rx["thread_pool"]["note"],
                         "no threadpool/latency runs")
        self.assertEqual(doc["reactor_missing"],
                         {"buffer": "buffer.json missing"})
        tq = rx["task_queue"]
        # spsc-ring (traits: topology spsc) is fastest in the fixture's event
        # loop: never offered.
        self.assertNotEqual(tq["winner"], "spsc-ring")
        self.assertEqual(tq["winner"], "moodycamel")
        self.assertEqual(tq["baseline"], "swap-vector")
        self.assertEqual(tq["source"],
                         "queues/eventloop/producers:2/coalesce:1")
        self.assertAlmostEqual(tq["micro_ratio"], 1.5, places=3)
        self.assertIsInstance(tq["cv"], float)
        self.assertEqual(rx["logger"]["baseline"], "sync")
        # Among the loggers whose traits say "server": true.
        self.assertIn(rx["logger"]["winner"], ("sync", "async-double-buffer",
                                               "async-queue-moodycamel"))
        self.assertTrue(doc["families"]["buffer"]["missing"])
        # The floor and drift per family, the noise rule with its minimum.
        q = doc["families"]["queues"]
        self.assertFalse(q["drifted"])
        self.assertIsNone(q["drift_reason"])
        self.assertEqual(q["floor"]["before_p50_ns"], 561.0)
        self.assertEqual(q["floor"]["after_p50_ns"], 575.0)
        self.assertAlmostEqual(q["floor"]["row_p50_ns"], 566.0)
        self.assertEqual(q["floor"]["core_pair"], [0, 1])
        self.assertEqual(q["baselines"], ["mutex", "swap-vector"])
        self.assertEqual(doc["min_margin"], 0.05)
        self.assertIn("min margin 0.05", doc["noise_rule"])
        self.assertEqual(doc["validation"],
                         "end to end, 4 cases: held 2, equivalent 0, not "
                         "told apart 0, refuted 1, too weak 1, error 0, "
                         "nothing to "
                         "validate 1 (no implementation but the baseline); "
                         "metric: the server's CPU per unit of work in 4")
        # Every ranked queue over the baseline, for the validation's
        # positive control (tbb-bounded is not in the fixture).
        self.assertEqual(tq["micro_ratios"]["swap-vector"], 1.0)
        self.assertAlmostEqual(tq["micro_ratios"]["moodycamel"], 1.5,
                               places=3)
        self.assertAlmostEqual(tq["micro_ratios"]["mutex"], 0.5, places=3)


class PoolEntryTest(unittest.TestCase):
    """The reactor's thread_pool entry: the hand-off latency class's pick
    at 1 submitter, or at the submitters --producers names."""

    def entry(self, workload: Workload) -> Any:
        loaded, _ = sweeps.load_dir(POOL)
        out, missing = winners.pick_reactor(loaded, workload, 0.05)
        self.assertNotIn("thread_pool", missing)
        return out["thread_pool"]

    def test_one_submitter(self) -> None:
        e = self.entry(Workload())
        self.assertEqual((e["winner"], e["baseline"]),
                         ("queue-bounded-mpmc", "asio"))
        self.assertTrue(e["adopted"])
        self.assertEqual(e["source"], "threadpool/latency/submitters:1")
        self.assertEqual(e["metric"], "p50_ns")
        self.assertFalse(e["higher_is_better"])
        self.assertAlmostEqual(e["micro_ratio"], 80.0, places=2)
        self.assertAlmostEqual(e["micro_ratios"]["mutex"], 32 / 31,
                               places=3)

    def test_submitters_from_the_workload(self) -> None:
        e = self.entry(Workload(producers=4))
        self.assertEqual(e["winner"], "work-stealing")
        self.assertEqual(e["source"], "threadpool/latency/submitters:4")

    def test_without_the_family(self) -> None:
        loaded, _ = sweeps.load_dir(BASIC)
        del loaded["threadpool"]
        out, missing = winners.pick_reactor(loaded, Workload(), 0.05)
        self.assertNotIn("thread_pool", out)
        self.assertEqual(missing["thread_pool"], "threadpool.json missing")


class DriftTest(unittest.TestCase):
    def assert_drifted(self, directory: str, reason: str) -> Any:
        _, res = picked(directory)
        fam: Any = res["families"]["queues"]
        self.assertTrue(fam["drifted"])
        self.assertIn(reason, fam["drift_reason"])
        self.assertTrue(fam["classes"])
        for c in fam["classes"]:
            self.assertIsNone(c["winner"], c["cls"])
            self.assertEqual(c["noise"], "drifted")
            self.assertTrue(c["verdict"].startswith("host drifted: rerun ("))
            self.assertIn(reason, c["verdict"])
        rows = [r for r in tables.recommendation_rows(res) if r[0] == "queues"]
        self.assertTrue(rows)
        for r in rows:
            self.assertEqual(r[2], "host drifted: rerun")
        # The reactor's task queue keeps the baseline, unmeasured.
        tq = res["reactor"]["task_queue"]
        self.assertEqual(tq["winner"], "swap-vector")
        self.assertEqual(tq["baseline"], "swap-vector")
        self.assertFalse(tq["measured"])
        self.assertEqual(tq["note"], fam["drift_verdict"])
        # The other families are not touched.
        self.assertNotIn("queues", [f for f in res["families"]
                                    if f != "queues" and
                                    res["families"][f].get("drifted")])
        return fam

    def test_floor_moved_between_before_and_after(self) -> None:
        fam = self.assert_drifted(SHIFTED, "before/after p50 differ by 87% "
                                           "> 20%")
        self.assertEqual(fam["drift_verdict"],
                         "host drifted: rerun (floor p50 300 ns before, 560 "
                         "ns after; interleaved CV 1.6%): before/after p50 "
                         "differ by 87% > 20%")

    def test_noisy_interleaved_floor(self) -> None:
        fam = self.assert_drifted(NOISY_FLOOR, "interleaved CV 28.1% > 20%")
        self.assertNotIn("before/after", fam["drift_reason"])

    def test_stable_floor_is_not_drift(self) -> None:
        _, res = picked(BASIC)
        for f in ("queues", "logger", "threadpool"):
            self.assertFalse(res["families"][f]["drifted"], f)
        self.assertEqual(cls(res, "queues", "1:1")["noise"], "above")

    def test_drift_rule(self) -> None:
        def fl(before: Optional[float], after: Optional[float],
               cv: Optional[float]) -> records.FloorSummary:
            return records.FloorSummary(before_p50_ns=before,
                                        after_p50_ns=after,
                                        row_cv=cv, threshold=0.2)
        self.assertFalse(stats.drift(fl(500.0, 600.0, 0.05))["drifted"])  # 20%
        self.assertTrue(stats.drift(fl(500.0, 601.0, 0.05))["drifted"])
        self.assertTrue(stats.drift(fl(601.0, 500.0, None))["drifted"])
        self.assertFalse(stats.drift(fl(None, None, 0.19))["drifted"])
        self.assertTrue(stats.drift(fl(None, None, 0.21))["drifted"])
        # A flag in the file is not trusted: only the numbers count.
        loaded, _ = sweeps.load_dir(BASIC)
        loaded["queues"].sk["floor"]["drifted"] = True
        self.assertFalse(stats.family_drift(loaded["queues"])["drifted"])

    def test_floor_reference_without_the_row(self) -> None:
        loaded, _ = sweeps.load_dir(BASIC)
        fr = loaded["queues"]
        fl = fr.floor_summary()
        self.assertEqual(fl.reference_from, "interleaved row median")
        self.assertAlmostEqual(
            fl.reference_p50_ns, 566.0)  # type: ignore[arg-type]
        self.assertAlmostEqual(fl.row_cv, 0.0158,  # type: ignore[arg-type]
                               places=3)
        del fr.cells[("floor", ())]
        fl = fr.floor_summary()
        self.assertEqual(fl.reference_from, "mean of before and after")
        self.assertAlmostEqual(
            fl.reference_p50_ns, 568.0)  # type: ignore[arg-type]
        self.assertIsNone(fl.row_cv)
        # No floor at all (the fixture's pools, as on one core).
        fl = loaded["threadpool"].floor_summary()
        self.assertIsNone(fl.reference_p50_ns)
        self.assertIsNone(fl.core_pair)
        self.assertFalse(stats.drift(fl)["drifted"])


if __name__ == "__main__":
    unittest.main()
