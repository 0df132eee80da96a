#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/decide/ranking_test.py
# -----------------------------------------------------------------------------
#
# Deciding the classes on fixed result files (decide/ranking.py,
# decide/stats.py): clear
# winners, a noisy tie, a missing family, a family with one implementation,
# one repetition, a reference that is not a candidate, workload flags; the
# noise rule's minimum margin.

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest
from typing import Any, Iterable

from pick.testutil import BASIC, SMOKE, cls, picked

from pick import cli
from pick.read import sweeps
from pick.decide import stats
from pick.report import tables
from pick.decide import winners
from pick.decide.workloads import Workload
from pick import records


class PickTest(unittest.TestCase):
    def test_clear_winner_above_noise(self) -> None:
        _, res = picked(BASIC)
        c = cls(res, "queues", "1:1")
        self.assertEqual(c["winner"], "bounded-mpmc")
        self.assertEqual(c["runner_up"], "spsc-ring")
        self.assertAlmostEqual(c["margin_over_runner_up"], 3.0 / 2.7, places=3)
        self.assertAlmostEqual(c["margin_over_baseline"], 3.0, places=3)
        self.assertEqual(c["noise"], "above")
        self.assertLess(c["p_max"], 0.05)

    def test_classes_by_shape(self) -> None:
        _, res = picked(BASIC)
        self.assertEqual(cls(res, "queues", "N:1")["winner"], "moodycamel")
        self.assertEqual(cls(res, "queues", "1:N")["winner"], "bounded-mpmc")
        self.assertEqual(cls(res, "queues", "N:N")["winner"], "moodycamel")
        lat = cls(res, "queues", "latency-bound")
        # Lower p50 / floor wins: 130 / 563 ns against mutex's 1500 / 563.4
        # (the medians of the ratios per repetition, floors in the fixture).
        self.assertEqual(lat["winner"], "bounded-mpmc")
        self.assertAlmostEqual(lat["margin_over_baseline"], 11.531, places=3)
        self.assertAlmostEqual(lat["margin_over_runner_up"], 2.826, places=3)

    def test_pairs_class(self) -> None:
        _, res = picked(BASIC)
        c = cls(res, "queues", "N:N pairs")
        self.assertEqual(c["groups"], ["queues/pairs/threads:2",
                                       "queues/pairs/threads:4"])
        self.assertTrue(c["oversubscribed"])  # threads:4 on 2 cores
        self.assertEqual(c["winner"], "moodycamel-tokens")
        # --producers narrows the thread count; 1 consumer leaves it out.
        _, res = picked(BASIC, producers=4, consumers=4)
        c = cls(res, "queues", "N:N pairs")
        self.assertEqual(c["groups"], ["queues/pairs/threads:4"])
        self.assertEqual(c["winner"], "bounded-mpmc")
        _, res = picked(BASIC, producers=4, consumers=1)
        self.assertNotIn("N:N pairs", [
            k["cls"] for k in res["families"]["queues"]["classes"]])

    def test_noisy_tie_is_called_a_tie(self) -> None:
        _, res = picked(BASIC)
        c = cls(res, "logger", "latency-bound")
        # async-queue-tbb is fastest and a candidate in the family table.
        self.assertEqual(c["winner"], "async-queue-tbb")
        # Between the two overlapping loggers, the reactor's pick is a tie:
        # a tie stays a tie, and the reactor keeps the baseline.
        rx: Any = res["reactor"]["logger"]  # its optional keys, unnarrowed
        self.assertIn(rx["leader"], ("async-queue-moodycamel",
                                     "async-double-buffer"))
        self.assertEqual(rx["winner"], "sync")
        self.assertFalse(rx["adopted"])
        self.assertEqual(rx["micro_ratio"], 1.0)
        self.assertTrue(rx["note"].startswith(
            "kept the baseline sync: %s leads, not ahead "
            "(within: " % rx["leader"]), rx["note"])
        self.assertEqual(rx["noise"], "within")
        self.assertIn("tie", rx["verdict"])
        self.assertIn("no: tie", tables.noise_cell(dict(
            noise="within", runner_up=rx["runner_up"], verdict=""), 0.05))

    def test_missing_family(self) -> None:
        _, res = picked(BASIC)
        self.assertTrue(res["families"]["buffer"]["missing"])
        rows = [r for r in tables.recommendation_rows(res)
                if r[0] == "buffers"]
        self.assertEqual(len(rows), 1)
        self.assertIn("not measured", rows[0][2])
        # No file, no vocabulary: pick names no buffer (not even a baseline
        # of its own); the validation falls back to its defaults.
        self.assertNotIn("buffer", res["reactor"])
        self.assertEqual(res["reactor_missing"]["buffer"],
                         "buffer.json missing")

    def test_family_with_one_implementation(self) -> None:
        _, res = picked(BASIC)
        c = cls(res, "threadpool", "tiny tasks")
        self.assertEqual(c["winner"], "asio")
        self.assertIsNone(c["runner_up"])
        self.assertEqual(c["verdict"], "only one implementation measured")
        row = [r for r in tables.recommendation_rows(res)
               if r[:2] == ["thread pools", "tiny tasks"]][0]
        self.assertIn("only one", row[3])
        self.assertIn("baseline", row[4])
        # No latency runs: the class says so instead of a winner.
        lat = cls(res, "threadpool", "hand-off latency")
        self.assertIsNone(lat["winner"])
        self.assertIn("not measured", lat["verdict"])

    def test_one_repetition_noise_unknown(self) -> None:
        _, res = picked(SMOKE)
        c = cls(res, "buffer", "stream")
        self.assertEqual(c["winner"], "ring")
        self.assertEqual(c["noise"], "unknown")
        self.assertIn("unknown", tables.noise_cell(c, 0.05))

    def test_reference_is_not_a_candidate(self) -> None:
        _, res = picked(SMOKE)
        c = cls(res, "buffer", "framed")
        self.assertEqual(c["ranking"][0]["impl"], "string")
        self.assertEqual(c["winner"], "linear")
        self.assertTrue(any("string" in n for n in c["notes"]))

    def test_workload_flags_narrow(self) -> None:
        _, res = picked(BASIC, producers=2, consumers=1)
        keys = [c["cls"] for c in res["families"]["queues"]["classes"]]
        self.assertIn("N:1", keys)
        self.assertNotIn("1:1", keys)
        self.assertNotIn("N:N", keys)
        ev = cls(res, "queues", "event loop")
        self.assertEqual(ev["winner"], "moodycamel")  # spsc-ring excluded
        self.assertEqual(ev["groups"],
                         ["queues/eventloop/producers:2/coalesce:1"])
        # Unmeasured counts fall back to the nearest, with a note.
        _, res = picked(BASIC, producers=8, consumers=1)
        c = cls(res, "queues", "N:1")
        self.assertEqual(c["groups"],
                         ["queues/throughput/producers:2/consumers:1"])
        self.assertTrue(any("nearest producers:2" in n for n in c["notes"]))
        _, res = picked(BASIC, latency_bound=True)
        self.assertEqual([c["cls"] for c in
                          res["families"]["logger"]["classes"]],
                         ["latency-bound"])
        self.assertEqual([c["cls"] for c in
                          res["families"]["queues"]["classes"]],
                         ["latency-bound"])


class NoiseRuleTest(unittest.TestCase):
    @staticmethod
    def cell(impl: str, values: Iterable[float]) -> records.Cell:
        c = records.Cell(impl)
        c.samples["x"] = list(values)
        return c

    def test_small_margin_is_a_tie(self) -> None:
        base = [100.0, 100.1, 99.9, 100.05, 99.95, 100.02, 99.98, 100.03,
                99.97]
        a = self.cell("a", [v * 1.03 for v in base])
        b = self.cell("b", base)
        self.assertEqual(stats.MIN_MARGIN, 0.05)
        n = stats.noise(a, b, "x", True, 0.05)
        self.assertLess(n["p"], 0.05)  # type: ignore[arg-type]
        self.assertLess(n["cv"], 0.001)  # type: ignore[arg-type]
        self.assertAlmostEqual(n["ratio"], 1.03)
        self.assertEqual(n["state"], "within")
        self.assertEqual(stats.noise(a, b, "x", True, 0.05, min_margin=0.02)
                         ["state"], "above")
        self.assertEqual(cli.parse_args(["--min-margin", "0.02"]).min_margin,
                         0.02)
        self.assertEqual(cli.parse_args([]).min_margin, 0.05)

    def test_min_margin_reaches_the_classes(self) -> None:
        # bounded-mpmc beats spsc-ring by 11% in the 1:1 class.
        loaded, _ = sweeps.load_dir(BASIC)
        res = winners.pick_all(loaded, Workload(), min_margin=0.15)
        self.assertEqual(cls(res, "queues", "1:1")["noise"], "within")
        res = winners.pick_all(loaded, Workload())
        self.assertEqual(cls(res, "queues", "1:1")["noise"], "above")


class WorkloadFitTest(unittest.TestCase):
    def test_serves(self) -> None:
        w = Workload(producers=4, consumers=1)
        self.assertEqual(w.serves({"topology": "spsc"}), "single-producer")
        self.assertIsNone(w.serves({"topology": "mpsc"}))
        self.assertEqual(Workload(consumers=2).serves({"topology": "mpsc"}),
                         "single-consumer")
        self.assertIsNone(Workload().serves({"topology": "spsc"}))
        self.assertEqual(w.unmeasured({}), ["producers=4"])
        self.assertEqual(w.unmeasured({"producers": "producers"}), [])

    def test_no_single_producer_queue_for_four_producers(self) -> None:
        """spsc-ring, fastest in the latency class (a 1:1 round trip), is
        never offered for 4 producers, and the class says it measured
        another shape."""
        tmp = tempfile.mkdtemp()
        try:
            with open(os.path.join(BASIC, "queues.json")) as f:
                doc = json.load(f)
            fast = []
            for b in doc["benchmarks"]:
                if b["name"].startswith("queues/latency/bounded-mpmc/"):
                    c = {k: v.replace("bounded-mpmc", "spsc-ring")
                         if isinstance(v, str) else v for k, v in b.items()}
                    c["p50_x_floor"] = b["p50_x_floor"] / 2
                    fast.append(c)
            doc["benchmarks"] += fast
            with open(os.path.join(tmp, "queues.json"), "w") as f:
                json.dump(doc, f)
            loaded, _ = sweeps.load_dir(tmp)
        finally:
            shutil.rmtree(tmp)
        any_w = cls(winners.pick_all(loaded, Workload()), "queues",
                    "latency-bound")
        self.assertEqual(any_w["winner"], "spsc-ring")
        w4 = Workload(producers=4, consumers=1, latency_bound=True)
        four = cls(winners.pick_all(loaded, w4), "queues", "latency-bound")
        self.assertNotIn("spsc-ring", (four["winner"], four["runner_up"]))
        self.assertEqual(four["shape"], ["producers=4"])
        self.assertTrue(any("spsc-ring (single-producer)" in n
                            for n in four["notes"]))


class WorkloadOutputTest(unittest.TestCase):
    def test_a_workload_writes_beside_the_full_report(self) -> None:
        """pick with workload flags leaves the full REPORT.md and
        winners.json alone, refuses to overwrite a report for another
        workload, and --replace overrides that."""
        tmp = tempfile.mkdtemp()
        try:
            for name in os.listdir(BASIC):
                if name.endswith(".json"):
                    shutil.copy(os.path.join(BASIC, name), tmp)
            quiet = contextlib.redirect_stdout(io.StringIO())
            with quiet:
                self.assertEqual(cli.main(["--results", tmp, "--no-charts"]),
                                 0)
            with open(os.path.join(tmp, "REPORT.md")) as f:
                full = f.read()
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(cli.main(["--results", tmp, "--no-charts",
                                           "--producers=4"]), 0)
            with open(os.path.join(tmp, "REPORT.md")) as f:
                self.assertEqual(f.read(), full)
            self.assertTrue(os.path.exists(os.path.join(
                tmp, "workload", "producers-4", "REPORT.md")))
            err = io.StringIO()
            with contextlib.redirect_stderr(err), \
                    contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(cli.main(["--results", tmp, "--out", tmp,
                                           "--no-charts", "--producers=4"]),
                                 2)
            self.assertIn("answers another workload", err.getvalue())
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(cli.main(["--results", tmp, "--out", tmp,
                                           "--no-charts", "--producers=4",
                                           "--replace"]), 0)
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main()
