#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/read/sweeps_test.py
# -----------------------------------------------------------------------------
#
# Reading result files (read/sweeps.py): names and Google Benchmark's suffixes,
# aggregates, one repetition; the vocabulary read from the files (rules,
# traits, files without it) and how the classes rank by it.

import contextlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from pick.testutil import BASIC, OLD, PICK, SMOKE, cls, picked

from pick import cli
from pick.read import sweeps
from pick.decide import winners
from pick.report.families import class_details
from pick.decide.workloads import Workload
from pick import records


class ParseTest(unittest.TestCase):
    def test_suffixes_are_set_aside(self) -> None:
        self.assertEqual(
            records.parse_name(
                "queues/throughput/mutex/producers:2/consumers:1/"
                "iterations:1/manual_time"),
            ("queues", "throughput", "mutex",
             (("producers", 2), ("consumers", 1))))
        self.assertEqual(
            records.parse_name(
                "buffer/burger/ring/kept_pct:95/min_time:0.002"),
            ("buffer", "burger", "ring", (("kept_pct", 95),)))
        # A family's own threads: parameter stays; Google Benchmark's goes.
        self.assertEqual(
            records.parse_name("x/s/i/threads:4/real_time/threads:2")[3],
            (("threads", 4),))

    def test_aggregates_give_median_and_cv(self) -> None:
        loaded, _ = sweeps.load_dir(BASIC)
        cell = loaded["queues"].cells[
            ("throughput", (("producers", 1), ("consumers", 1)))]["mutex"]
        self.assertEqual(cell.repetitions("items_per_second"), 5)
        self.assertAlmostEqual(cell.median("items_per_second"), 1e7)
        self.assertAlmostEqual(
            cell.cv("items_per_second"), 0.0158,  # type: ignore[arg-type]
            places=3)

    def test_single_repetition_has_no_cv(self) -> None:
        loaded, _ = sweeps.load_dir(SMOKE)
        cell = loaded["buffer"].cells[
            ("framed", (("msg", 128), ("read", 4096)))]["ring"]
        self.assertIsNone(cell.cv("bytes_per_second"))
        self.assertAlmostEqual(cell.median("bytes_per_second"), 0.8e10)


class VocabularyTest(unittest.TestCase):
    """Rules and traits come from the files, not from pick."""

    def test_sleep_ranked_by_the_files_rule(self) -> None:
        loaded, res = picked(BASIC)
        c = cls(res, "threadpool", "blocking tasks")
        self.assertEqual(c["metric"], "overhead_pct")
        self.assertFalse(c["higher"])
        self.assertEqual(c["unit"], "%")
        self.assertEqual(c["baseline"], "asio")
        self.assertIn("wall_ms", c["show"])
        # Lower overhead_pct wins though its wall_ms is higher (contrived).
        self.assertEqual(c["winner"], "work-stealing")
        self.assertAlmostEqual(c["margin_over_runner_up"], 3.0, places=3)
        self.assertEqual(c["noise"], "above")
        rule = loaded["threadpool"].rule("sleep")
        assert rule is not None
        self.assertEqual(rule.direction, "lower")

    def test_queue_latency_ranked_by_the_floor_multiple(self) -> None:
        loaded, res = picked(BASIC)
        rule = loaded["queues"].rule("latency")
        assert rule is not None
        self.assertEqual(rule.metric, "p50_x_floor")
        self.assertTrue(rule.vs_floor)
        c = cls(res, "queues", "latency-bound")
        self.assertEqual(c["metric"], "p50_x_floor")
        self.assertEqual(c["unit"], "x floor")
        self.assertFalse(c["higher"])
        self.assertTrue(c["vs_floor"])
        self.assertEqual(c["baseline"], "mutex")
        for k in ("p50_ns", "floor_ns", "p99_x_floor"):
            self.assertIn(k, c["show"])
        cell = loaded["queues"].cells[("latency", ())]["bounded-mpmc"]
        self.assertAlmostEqual(cell.median("p50_x_floor"), 130 / 563.0)
        self.assertAlmostEqual(cell.median("floor_ns"), 566.0)
        self.assertEqual(c["winner"], "bounded-mpmc")
        # The metric decides, not p50_ns: with bounded-mpmc's floor at a
        # tenth (its p50 / floor ten times larger) moodycamel wins, though
        # bounded-mpmc's p50 in ns is unchanged and still the lowest.
        cell.samples["p50_x_floor"] = [
            10 * v for v in cell.samples["p50_x_floor"]]
        for agg in ("mean", "median", "stddev"):
            cell.aggregates[(agg, "p50_x_floor")] *= 10
        res = winners.pick_all(loaded, Workload())
        c = cls(res, "queues", "latency-bound")
        self.assertEqual(c["winner"], "moodycamel")
        self.assertEqual(c["ranking"][-1]["impl"], "mutex")
        # The same file with the older rule (p50_ns): ranked by that.
        with open(os.path.join(BASIC, "queues.json")) as f:
            doc = json.load(f)
        for r in doc["context"]["serverkit"]["rankings"]:
            if r["scenario"] == "latency":
                r.update(metric="p50_ns", unit="ns")
        d = tempfile.mkdtemp()
        try:
            with open(os.path.join(d, "queues.json"), "w") as f:
                json.dump(doc, f)
            _, res = picked(d)
        finally:
            shutil.rmtree(d)
        c = cls(res, "queues", "latency-bound")
        self.assertEqual((c["metric"], c["unit"]), ("p50_ns", "ns"))
        self.assertEqual(c["winner"], "bounded-mpmc")
        self.assertAlmostEqual(c["margin_over_baseline"], 1500 / 130.0,
                               places=3)

    def test_two_line_floor_column_where_the_sweep_measured_it(self) -> None:
        # The fixture's sweep predates the two-line floor: "-" in its column.
        loaded, res = picked(BASIC)
        fam = res["families"]["queues"]
        c = cls(res, "queues", "latency-bound")
        md = "\n".join(class_details(loaded["queues"], c, fam))
        self.assertIn("| p50 / floor | p99 / floor | p50 / two-line floor |",
                      md)
        self.assertIn("| bounded-mpmc | latency | 130 | 566 | 0.23x | 0.46x "
                      "| - |", md)
        # With the counter in the repetitions, its median is shown.
        cell = loaded["queues"].cells[("latency", ())]["bounded-mpmc"]
        cell.samples["p50_x_two_line_floor"] = [0.9, 1.04, 1.1]
        md = "\n".join(class_details(loaded["queues"], c, fam))
        self.assertIn("| bounded-mpmc | latency | 130 | 566 | 0.23x | 0.46x "
                      "| 1.04x |", md)

    def test_file_without_vocabulary_is_skipped(self) -> None:
        loaded, problems = sweeps.load_dir(OLD)
        self.assertEqual(loaded, {})
        path = os.path.join(OLD, "queues.json")
        self.assertEqual(problems, [
            path + ": no ranking rules in its context (written by an older "
            "sweep); rerun the sweep"])
        out = tempfile.mkdtemp()
        try:
            p = subprocess.run([*PICK, "--results", OLD, "--out", out],
                               capture_output=True, text=True)
        finally:
            shutil.rmtree(out)
        self.assertEqual(p.returncode, 2)
        self.assertIn("pick: skipped %s: no ranking rules in its context "
                      "(written by an older sweep); rerun the sweep" % path,
                      p.stderr)

    def test_traits_choose_the_candidates(self) -> None:
        loaded, res = picked(BASIC)
        ev = cls(res, "queues", "event loop")
        self.assertEqual(ev["ranking"][0]["impl"], "spsc-ring")
        self.assertEqual(ev["winner"], "moodycamel")
        self.assertTrue(any("spsc-ring" in n and "single-producer" in n
                            for n in ev["notes"]))
        # The same numbers with other traits: spsc-ring may win.
        loaded["queues"].sk["impls"]["spsc-ring"]["topology"] = "mpmc"
        res = winners.pick_all(loaded, Workload())
        self.assertEqual(cls(res, "queues", "event loop")["winner"],
                         "spsc-ring")
        self.assertEqual(res["reactor"]["task_queue"]["winner"], "spsc-ring")
        # A logger that is not "server": true is ranked but not offered to
        # the reactor; one that is, is.
        self.assertEqual(res["reactor"]["logger"]["noise"], "within")
        loaded["logger"].sk["impls"]["async-queue-tbb"]["server"] = True
        res = winners.pick_all(loaded, Workload())
        self.assertEqual(res["reactor"]["logger"]["winner"],
                         "async-queue-tbb")

    def test_the_floor_is_never_in_a_class(self) -> None:
        _, res = picked(BASIC)
        for fam in res["families"].values():
            for c in fam["classes"]:
                self.assertFalse([g for g in c["groups"] if "/floor" in g])
                self.assertNotIn("cache-line",
                                 [r["impl"] for r in c.get("ranking", [])])

    def test_class_scenarios_must_agree(self) -> None:
        with open(os.path.join(SMOKE, "buffer.json")) as f:
            doc = json.load(f)
        for r in doc["context"]["serverkit"]["rankings"]:
            if r["scenario"] == "fd_echo":
                r["direction"] = "lower"
        d = tempfile.mkdtemp()
        try:
            with open(os.path.join(d, "buffer.json"), "w") as f:
                json.dump(doc, f)
            loaded, problems = sweeps.load_dir(d)
            self.assertEqual(problems, [])
            with self.assertRaises(records.VocabularyError) as e:
                winners.pick_all(loaded, Workload())
            self.assertIn("workload class buffer/stream spans scenarios "
                          "ranked differently", str(e.exception))
            self.assertIn("burger: bytes_per_second, higher", str(e.exception))
            self.assertIn("fd_echo: bytes_per_second, lower", str(e.exception))
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = cli.main(["--results", d, "--out", d, "--no-charts"])
            self.assertEqual(rc, 2)
            self.assertIn("ranked differently", err.getvalue())
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
