#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pick/pick_test.py
# -----------------------------------------------------------------------------
#
# Pick logic on fixed result files (testdata/, written by make_fixtures.py):
# clear winners, a noisy tie, a missing family, a family with one
# implementation, one repetition; the reactor contract of winners.json;
# workload flags; the report from a small fixed result set; compare; and the
# chart script when matplotlib is missing.

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import pick as P  # noqa: E402
import results as R  # noqa: E402

BASIC = os.path.join(HERE, "testdata", "basic")
SMOKE = os.path.join(HERE, "testdata", "smoke")
PY = "/usr/bin/python3"


def picked(directory, **workload):
    loaded, problems = R.load_dir(directory)
    assert not problems, problems
    return loaded, P.pick_all(loaded, P.Workload(**workload))


def cls(result, family, key):
    for c in result["families"][family]["classes"]:
        if c["cls"] == key:
            return c
    raise KeyError("%s/%s not in %s" % (family, key, [
        c["cls"] for c in result["families"][family]["classes"]]))


class ParseTest(unittest.TestCase):
    def test_suffixes_are_set_aside(self):
        self.assertEqual(
            R.parse_name("queues/throughput/mutex/producers:2/consumers:1/"
                         "iterations:1/manual_time"),
            ("queues", "throughput", "mutex",
             (("producers", 2), ("consumers", 1))))
        self.assertEqual(
            R.parse_name("buffer/burger/ring/kept_pct:95/min_time:0.002"),
            ("buffer", "burger", "ring", (("kept_pct", 95),)))
        # A family's own threads: parameter stays; Google Benchmark's goes.
        self.assertEqual(
            R.parse_name("x/s/i/threads:4/real_time/threads:2")[3],
            (("threads", 4),))

    def test_aggregates_give_median_and_cv(self):
        loaded, _ = R.load_dir(BASIC)
        cell = loaded["queues"].cells[
            ("throughput", (("producers", 1), ("consumers", 1)))]["mutex"]
        self.assertEqual(cell.repetitions("items_per_second"), 5)
        self.assertAlmostEqual(cell.median("items_per_second"), 1e7)
        self.assertAlmostEqual(cell.cv("items_per_second"), 0.0158, places=3)

    def test_single_repetition_has_no_cv(self):
        loaded, _ = R.load_dir(SMOKE)
        cell = loaded["buffer"].cells[
            ("framed", (("msg", 128), ("read", 4096)))]["ring"]
        self.assertIsNone(cell.cv("bytes_per_second"))
        self.assertAlmostEqual(cell.median("bytes_per_second"), 0.8e10)


class PickTest(unittest.TestCase):
    def test_clear_winner_above_noise(self):
        _, res = picked(BASIC)
        c = cls(res, "queues", "1:1")
        self.assertEqual(c["winner"], "bounded-mpmc")
        self.assertEqual(c["runner_up"], "spsc-ring")
        self.assertAlmostEqual(c["margin_over_runner_up"], 3.0 / 2.9, places=3)
        self.assertAlmostEqual(c["margin_over_baseline"], 3.0, places=3)
        self.assertEqual(c["noise"], "above")
        self.assertLess(c["p_max"], 0.05)

    def test_classes_by_shape(self):
        _, res = picked(BASIC)
        self.assertEqual(cls(res, "queues", "N:1")["winner"], "moodycamel")
        self.assertEqual(cls(res, "queues", "1:N")["winner"], "bounded-mpmc")
        self.assertEqual(cls(res, "queues", "N:N")["winner"], "moodycamel")
        lat = cls(res, "queues", "latency-bound")
        self.assertEqual(lat["winner"], "bounded-mpmc")  # lower p50 wins
        self.assertAlmostEqual(lat["margin_over_baseline"], 1500 / 130.0,
                               places=2)

    def test_noisy_tie_is_called_a_tie(self):
        _, res = picked(BASIC)
        c = cls(res, "logger", "latency-bound")
        # async-queue-tbb is fastest and a candidate in the family table.
        self.assertEqual(c["winner"], "async-queue-tbb")
        # Between the two overlapping loggers, the reactor's pick is a tie.
        rx = res["reactor"]["logger"]
        self.assertIn(rx["winner"], ("async-queue-moodycamel",
                                     "async-double-buffer"))
        self.assertEqual(rx["noise"], "within")
        self.assertIn("tie", rx["verdict"])
        self.assertIn("no: tie", P.noise_cell(dict(
            noise="within", runner_up=rx["runner_up"], verdict="")))

    def test_missing_family(self):
        _, res = picked(BASIC)
        self.assertTrue(res["families"]["buffer"]["missing"])
        rows = [r for r in P.recommendation_rows(res) if r[0] == "buffers"]
        self.assertEqual(len(rows), 1)
        self.assertIn("not measured", rows[0][2])
        buf = res["reactor"]["buffer"]
        self.assertEqual(buf["winner"], "linear")
        self.assertFalse(buf["measured"])
        self.assertIsNone(buf["micro_ratio"])

    def test_family_with_one_implementation(self):
        _, res = picked(BASIC)
        c = cls(res, "threadpool", "tiny tasks")
        self.assertEqual(c["winner"], "asio")
        self.assertIsNone(c["runner_up"])
        self.assertEqual(c["verdict"], "only one implementation measured")
        row = [r for r in P.recommendation_rows(res)
               if r[:2] == ["thread pools", "tiny tasks"]][0]
        self.assertIn("only one", row[3])
        self.assertIn("baseline", row[4])
        # No sleep / latency runs: the class says so instead of a winner.
        self.assertIsNone(cls(res, "threadpool", "blocking tasks")["winner"])

    def test_one_repetition_noise_unknown(self):
        _, res = picked(SMOKE)
        c = cls(res, "buffer", "stream")
        self.assertEqual(c["winner"], "ring")
        self.assertEqual(c["noise"], "unknown")
        self.assertIn("unknown", P.noise_cell(c))

    def test_reference_is_not_a_candidate(self):
        _, res = picked(SMOKE)
        c = cls(res, "buffer", "framed")
        self.assertEqual(c["ranking"][0]["impl"], "string")
        self.assertEqual(c["winner"], "linear")
        self.assertTrue(any("string" in n for n in c["notes"]))

    def test_workload_flags_narrow(self):
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


class ReactorContractTest(unittest.TestCase):
    def test_winners_json_reactor(self):
        out = tempfile.mkdtemp()
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                rc = P.main(["--results", BASIC, "--out", out, "--no-charts"])
            self.assertEqual(rc, 0)
            with open(os.path.join(out, "winners.json")) as f:
                doc = json.load(f)
        finally:
            shutil.rmtree(out)
        rx = doc["reactor"]
        self.assertEqual(set(rx), {"task_queue", "buffer", "logger"})
        for key in ("winner", "baseline", "micro_ratio", "source", "cv"):
            for comp in rx.values():
                self.assertIn(key, comp)
        tq = rx["task_queue"]
        # spsc-ring is fastest in the fixture's event loop: never offered.
        self.assertNotIn(tq["winner"], P.SPSC_QUEUES)
        self.assertEqual(tq["winner"], "moodycamel")
        self.assertEqual(tq["baseline"], "swap-vector")
        self.assertEqual(tq["source"],
                         "queues/eventloop/producers:2/coalesce:1")
        self.assertAlmostEqual(tq["micro_ratio"], 1.5, places=3)
        self.assertIsInstance(tq["cv"], float)
        self.assertEqual(rx["logger"]["baseline"], "sync")
        self.assertIn(rx["logger"]["winner"], P.SERVER_LOGGERS)
        self.assertEqual(rx["buffer"]["baseline"], "linear")
        self.assertTrue(doc["families"]["buffer"]["missing"])
        self.assertEqual(doc["validation"],
                         "1 of 2 micro-benchmark winners held end to end "
                         "(2 of 3 cases)")


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.out)

    def run_pick(self, directory, extra=(), env=None):
        return subprocess.run(
            [PY, os.path.join(HERE, "pick.py"), "--results", directory,
             "--out", self.out] + list(extra), capture_output=True,
            text=True, env=env)

    def test_report_builds_from_fixed_results(self):
        p = self.run_pick(BASIC)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("report: " + os.path.join(self.out, "REPORT.md"),
                      p.stdout)
        with open(os.path.join(self.out, "REPORT.md")) as f:
            md = f.read()
        lines = md.splitlines()
        self.assertTrue(lines[0].startswith("# "))
        # The recommendation table opens the report, the charts follow.
        rec = md.index("## Recommendation")
        table = md.index("| family | workload class | winner |")
        charts = md.index("## Charts")
        self.assertLess(rec, table)
        self.assertLess(table, charts)
        self.assertLess(charts, md.index("## Details per family"))
        for png in ("queues_throughput.png", "latency.png", "pingpong.png",
                    "validation.png"):
            self.assertIn("](%s)" % png, md)
            path = os.path.join(self.out, png)
            self.assertTrue(os.path.getsize(path) > 1000, png)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertIn("1 of 2 micro-benchmark winners held end to end "
                      "(2 of 3 cases)", md)
        self.assertIn("| buffer | echo-16k | ring | linear | 1.17x | 0.95x | "
                      "refuted |", md)
        self.assertIn("## Ping-pong", md)
        self.assertIn("serverkit/asio", md)
        self.assertIn("## Machine", md)
        self.assertIn("Oversubscribed points", md)
        self.assertIn("bazel run -c opt //bench:queues -- --profile=default",
                      md)

    def test_validation_absent(self):
        d = os.path.join(self.out, "in")
        os.makedirs(d)
        shutil.copy(os.path.join(SMOKE, "buffer.json"), d)
        p = self.run_pick(d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("validation not run", p.stdout)
        with open(os.path.join(self.out, "REPORT.md")) as f:
            md = f.read()
        self.assertIn("validation not run", md)
        self.assertIn("Not run: results/pingpong.json is missing", md)

    def test_no_results_is_a_clear_error(self):
        d = os.path.join(self.out, "empty")
        os.makedirs(d)
        p = self.run_pick(d)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no family results", p.stderr)

    def test_compare(self):
        buf = io.StringIO()
        self.assertEqual(P.compare_dirs(BASIC, BASIC, 0.05, out=buf), 0)
        text = buf.getvalue()
        self.assertIn("queues/throughput/producers:1/consumers:1 mutex", text)
        self.assertIn("1.00x", text)
        self.assertEqual(P.compare_dirs(BASIC, SMOKE, 0.05,
                                        out=io.StringIO()), 2)


class NoMatplotlibTest(unittest.TestCase):
    """The chart script fails clearly when the plotting library is missing."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        fake = os.path.join(self.tmp, "fake", "matplotlib")
        os.makedirs(fake)
        with open(os.path.join(fake, "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named matplotlib (test)')\n")
        self.env = dict(os.environ,
                        PYTHONPATH=os.path.join(self.tmp, "fake"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_chart_script(self):
        p = subprocess.run([PY, os.path.join(HERE, "charts.py"), "--results",
                            BASIC, "--out", self.tmp], capture_output=True,
                           text=True, env=self.env)
        self.assertEqual(p.returncode, 3)
        self.assertIn("matplotlib is not importable", p.stderr)
        self.assertIn("python3-matplotlib", p.stderr)
        self.assertFalse([f for f in os.listdir(self.tmp)
                          if f.endswith(".png")])

    def test_pick_writes_the_rest_and_says_why(self):
        p = subprocess.run([PY, os.path.join(HERE, "pick.py"), "--results",
                            BASIC, "--out", self.tmp], capture_output=True,
                           text=True, env=self.env)
        self.assertEqual(p.returncode, 3)
        self.assertIn("charts not drawn", p.stderr)
        self.assertIn("python3-matplotlib", p.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "winners.json")))
        with open(os.path.join(self.tmp, "REPORT.md")) as f:
            md = f.read()
        self.assertIn("Charts not drawn", md)


if __name__ == "__main__":
    unittest.main()
