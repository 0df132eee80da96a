#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pick/pick_test.py
# -----------------------------------------------------------------------------
#
# Pick logic on fixed result files (testdata/, written by make_fixtures.py):
# clear winners, a noisy tie, a missing family, a family with one
# implementation, one repetition; the vocabulary read from the files (rules,
# traits, files without it); the floor and drift; the minimum margin; the
# reactor contract of winners.json; workload flags; the report from a small
# fixed result set; compare; --repro; and the chart script when matplotlib is
# missing.

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
OLD = os.path.join(HERE, "testdata", "old")
SHIFTED = os.path.join(HERE, "testdata", "drift", "shifted")
NOISY_FLOOR = os.path.join(HERE, "testdata", "drift", "noisy")
REPRO = os.path.join(HERE, "testdata", "repro")
RUN1, RUN2, RUN3 = (os.path.join(REPRO, "queues-run%d.json" % k)
                    for k in (1, 2, 3))
PARTS = [os.path.join(HERE, "testdata", "parts", "queues-part%d.json" % k)
         for k in (1, 2, 3)]
PY = "/usr/bin/python3"
PICK = os.path.join(HERE, "pick.py")


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
        self.assertAlmostEqual(c["margin_over_runner_up"], 3.0 / 2.7, places=3)
        self.assertAlmostEqual(c["margin_over_baseline"], 3.0, places=3)
        self.assertEqual(c["noise"], "above")
        self.assertLess(c["p_max"], 0.05)

    def test_classes_by_shape(self):
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
        # No file, no vocabulary: pick names no buffer (not even a baseline
        # of its own); the validation falls back to its defaults.
        self.assertNotIn("buffer", res["reactor"])
        self.assertEqual(res["reactor_missing"]["buffer"],
                         "buffer.json missing")

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
        # No latency runs: the class says so instead of a winner.
        lat = cls(res, "threadpool", "hand-off latency")
        self.assertIsNone(lat["winner"])
        self.assertIn("not measured", lat["verdict"])

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
        for key in ("winner", "baseline", "micro_ratio", "source", "cv"):
            for comp in rx.values():
                self.assertIn(key, comp)
        self.assertEqual(set(rx), {"task_queue", "logger"})
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
        # The floor per family, and the round trip as multiples of the floor
        # beside each repetition (bounded-mpmc: medians 130 ns over 566 ns;
        # the median of the per-repetition ratios 130 / 563 = 0.23).
        self.assertIn("Floor (`queues/floor/cache-line`", md)
        self.assertIn("| before the sweep | 561 | 902 | - |", md)
        self.assertIn("| interleaved row (median of 5) | 566 |", md)
        self.assertIn("Core pair 0,1; CPU Test CPU @ 2.00GHz, cores: 2; 5 "
                      "repetitions, interleaved: yes", md)
        self.assertIn("Workload sizes: eventloop tasks 200000; latency "
                      "round_trips 100000; throughput capacity 8192, items "
                      "4000000.", md)
        self.assertIn("Round trip as a multiple of the floor measured beside "
                      "each repetition (medians over the repetitions; the "
                      "run's floor: p50 566 ns):", md)
        self.assertIn("| implementation | group | p50 ns | floor ns | "
                      "p50 / floor | p99 / floor |", md)
        self.assertIn("| bounded-mpmc | latency | 130 | 566 | 0.23x | 0.46x |",
                      md)
        self.assertIn("| mutex | latency | 1500 | 564 | 2.66x | 5.33x |", md)
        self.assertIn("Ranked by `p50_x_floor` (x floor, lower is better", md)
        # The pools ran on "one core": no floor, said so.
        self.assertIn("Floor (`threadpool/floor/cache-line`): not measured",
                      md)
        # Rules from the file: the sleep class by overhead_pct.
        self.assertIn("Ranked by `overhead_pct` (%, lower is better", md)
        self.assertIn("and 5%", md)

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


class VocabularyTest(unittest.TestCase):
    """Rules and traits come from the files, not from pick."""

    def test_sleep_ranked_by_the_files_rule(self):
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
        self.assertEqual(loaded["threadpool"].rule("sleep")["direction"],
                         "lower")

    def test_queue_latency_ranked_by_the_floor_multiple(self):
        loaded, res = picked(BASIC)
        rule = loaded["queues"].rule("latency")
        self.assertEqual(rule["metric"], "p50_x_floor")
        self.assertTrue(rule["vs_floor"])
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
        res = P.pick_all(loaded, P.Workload())
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

    def test_file_without_vocabulary_is_skipped(self):
        loaded, problems = R.load_dir(OLD)
        self.assertEqual(loaded, {})
        path = os.path.join(OLD, "queues.json")
        self.assertEqual(problems, [
            path + ": no ranking rules in its context (written by an older "
            "sweep); rerun the sweep"])
        out = tempfile.mkdtemp()
        try:
            p = subprocess.run([PY, PICK, "--results", OLD, "--out", out],
                               capture_output=True, text=True)
        finally:
            shutil.rmtree(out)
        self.assertEqual(p.returncode, 2)
        self.assertIn("pick: skipped %s: no ranking rules in its context "
                      "(written by an older sweep); rerun the sweep" % path,
                      p.stderr)

    def test_traits_choose_the_candidates(self):
        loaded, res = picked(BASIC)
        ev = cls(res, "queues", "event loop")
        self.assertEqual(ev["ranking"][0]["impl"], "spsc-ring")
        self.assertEqual(ev["winner"], "moodycamel")
        self.assertTrue(any("spsc-ring" in n and "single-producer" in n
                            for n in ev["notes"]))
        # The same numbers with other traits: spsc-ring may win.
        loaded["queues"].sk["impls"]["spsc-ring"]["topology"] = "mpmc"
        res = P.pick_all(loaded, P.Workload())
        self.assertEqual(cls(res, "queues", "event loop")["winner"],
                         "spsc-ring")
        self.assertEqual(res["reactor"]["task_queue"]["winner"], "spsc-ring")
        # A logger that is not "server": true is ranked but not offered to
        # the reactor; one that is, is.
        self.assertEqual(res["reactor"]["logger"]["noise"], "within")
        loaded["logger"].sk["impls"]["async-queue-tbb"]["server"] = True
        res = P.pick_all(loaded, P.Workload())
        self.assertEqual(res["reactor"]["logger"]["winner"],
                         "async-queue-tbb")

    def test_the_floor_is_never_in_a_class(self):
        _, res = picked(BASIC)
        for fam in res["families"].values():
            for c in fam["classes"]:
                self.assertFalse([g for g in c["groups"] if "/floor" in g])
                self.assertNotIn("cache-line",
                                 [r["impl"] for r in c.get("ranking", [])])

    def test_class_scenarios_must_agree(self):
        with open(os.path.join(SMOKE, "buffer.json")) as f:
            doc = json.load(f)
        for r in doc["context"]["serverkit"]["rankings"]:
            if r["scenario"] == "fd_echo":
                r["direction"] = "lower"
        d = tempfile.mkdtemp()
        try:
            with open(os.path.join(d, "buffer.json"), "w") as f:
                json.dump(doc, f)
            loaded, problems = R.load_dir(d)
            self.assertEqual(problems, [])
            with self.assertRaises(R.VocabularyError) as e:
                P.pick_all(loaded, P.Workload())
            self.assertIn("workload class buffer/stream spans scenarios "
                          "ranked differently", str(e.exception))
            self.assertIn("burger: bytes_per_second, higher", str(e.exception))
            self.assertIn("fd_echo: bytes_per_second, lower", str(e.exception))
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = P.main(["--results", d, "--out", d, "--no-charts"])
            self.assertEqual(rc, 2)
            self.assertIn("ranked differently", err.getvalue())
        finally:
            shutil.rmtree(d)


class DriftTest(unittest.TestCase):
    def assert_drifted(self, directory, reason):
        _, res = picked(directory)
        fam = res["families"]["queues"]
        self.assertTrue(fam["drifted"])
        self.assertIn(reason, fam["drift_reason"])
        self.assertTrue(fam["classes"])
        for c in fam["classes"]:
            self.assertIsNone(c["winner"], c["cls"])
            self.assertEqual(c["noise"], "drifted")
            self.assertTrue(c["verdict"].startswith("host drifted: rerun ("))
            self.assertIn(reason, c["verdict"])
        rows = [r for r in P.recommendation_rows(res) if r[0] == "queues"]
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

    def test_floor_moved_between_before_and_after(self):
        fam = self.assert_drifted(SHIFTED, "before/after p50 differ by 87% "
                                           "> 20%")
        self.assertEqual(fam["drift_verdict"],
                         "host drifted: rerun (floor p50 300 ns before, 560 "
                         "ns after; interleaved CV 1.6%): before/after p50 "
                         "differ by 87% > 20%")

    def test_noisy_interleaved_floor(self):
        fam = self.assert_drifted(NOISY_FLOOR, "interleaved CV 28.1% > 20%")
        self.assertNotIn("before/after", fam["drift_reason"])

    def test_stable_floor_is_not_drift(self):
        _, res = picked(BASIC)
        for f in ("queues", "logger", "threadpool"):
            self.assertFalse(res["families"][f]["drifted"], f)
        self.assertEqual(cls(res, "queues", "1:1")["noise"], "above")

    def test_drift_rule(self):
        def fl(before, after, cv):
            return dict(before_p50_ns=before, after_p50_ns=after, row_cv=cv,
                        threshold=0.2)
        self.assertFalse(P.drift(fl(500.0, 600.0, 0.05))["drifted"])  # 20%
        self.assertTrue(P.drift(fl(500.0, 601.0, 0.05))["drifted"])
        self.assertTrue(P.drift(fl(601.0, 500.0, None))["drifted"])
        self.assertFalse(P.drift(fl(None, None, 0.19))["drifted"])
        self.assertTrue(P.drift(fl(None, None, 0.21))["drifted"])
        # A flag in the file is not trusted: only the numbers count.
        loaded, _ = R.load_dir(BASIC)
        loaded["queues"].sk["floor"]["drifted"] = True
        self.assertFalse(P.family_drift(loaded["queues"])["drifted"])

    def test_floor_reference_without_the_row(self):
        loaded, _ = R.load_dir(BASIC)
        fr = loaded["queues"]
        fl = fr.floor_summary()
        self.assertEqual(fl["reference_from"], "interleaved row median")
        self.assertAlmostEqual(fl["reference_p50_ns"], 566.0)
        self.assertAlmostEqual(fl["row_cv"], 0.0158, places=3)
        del fr.cells[("floor", ())]
        fl = fr.floor_summary()
        self.assertEqual(fl["reference_from"], "mean of before and after")
        self.assertAlmostEqual(fl["reference_p50_ns"], 568.0)
        self.assertIsNone(fl["row_cv"])
        # No floor at all (the fixture's pools, as on one core).
        fl = loaded["threadpool"].floor_summary()
        self.assertIsNone(fl["reference_p50_ns"])
        self.assertIsNone(fl["core_pair"])
        self.assertFalse(P.drift(fl)["drifted"])


class NoiseRuleTest(unittest.TestCase):
    @staticmethod
    def cell(impl, values):
        c = R.Cell(impl)
        c.samples["x"] = list(values)
        return c

    def test_small_margin_is_a_tie(self):
        base = [100.0, 100.1, 99.9, 100.05, 99.95, 100.02, 99.98, 100.03,
                99.97]
        a = self.cell("a", [v * 1.03 for v in base])
        b = self.cell("b", base)
        self.assertEqual(P.MIN_MARGIN, 0.05)
        n = P.noise(a, b, "x", True, 0.05)
        self.assertLess(n["p"], 0.05)
        self.assertLess(n["cv"], 0.001)
        self.assertAlmostEqual(n["ratio"], 1.03)
        self.assertEqual(n["state"], "within")
        self.assertEqual(P.noise(a, b, "x", True, 0.05, min_margin=0.02)
                         ["state"], "above")
        self.assertEqual(P.parse_args(["--min-margin", "0.02"]).min_margin,
                         0.02)
        self.assertEqual(P.parse_args([]).min_margin, 0.05)

    def test_min_margin_reaches_the_classes(self):
        # bounded-mpmc beats spsc-ring by 11% in the 1:1 class.
        loaded, _ = R.load_dir(BASIC)
        res = P.pick_all(loaded, P.Workload(), min_margin=0.15)
        self.assertEqual(cls(res, "queues", "1:1")["noise"], "within")
        res = P.pick_all(loaded, P.Workload())
        self.assertEqual(cls(res, "queues", "1:1")["noise"], "above")


class ReproTest(unittest.TestCase):
    def repro(self, a, b):
        out, err = io.StringIO(), io.StringIO()
        rc = P.repro(a, b, out=out, err=err)
        return rc, out.getvalue(), err.getvalue()

    def test_contradicting_runs(self):
        rc, text, _ = self.repro(RUN1, RUN2)
        self.assertEqual(rc, 1)
        closing = ("3 contradictions (1 winner, 2 pair) in 3 classes, 9 pairs "
                   "compared")
        self.assertEqual(text.rstrip().splitlines()[-1], closing)
        row = [ln for ln in text.splitlines() if ln.startswith("1:1 ")][0]
        self.assertIn("bounded-mpmc (above, 1.50x over moodycamel)", row)
        self.assertIn("moodycamel (above, 1.50x over bounded-mpmc)", row)
        self.assertIn("CONTRADICTION: winner bounded-mpmc vs moodycamel; "
                      "bounded-mpmc > moodycamel in run 1, moodycamel > "
                      "bounded-mpmc in run 2", row)
        row = [ln for ln in text.splitlines()
               if ln.startswith("latency-bound ")][0]
        self.assertIn("CONTRADICTION: moodycamel > mutex in run 1, mutex > "
                      "moodycamel in run 2", row)
        self.assertNotIn("winner", row.split("CONTRADICTION")[1])
        row = [ln for ln in text.splitlines()
               if ln.startswith("event loop ")][0]
        self.assertTrue(row.rstrip().endswith("agree"))
        self.assertIn("run 1 (%s): floor p50 561 ns before, 575 ns after; "
                      "interleaved CV 1.4%% (9 floor repetition(s)); no "
                      "drift" % RUN1, text)
        self.assertNotIn("\x1b", text)
        p = subprocess.run([PY, PICK, "--repro", RUN1, RUN2],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stdout.rstrip().splitlines()[-1], closing)
        self.assertEqual(p.stdout, text)

    def test_agreeing_runs(self):
        rc, text, _ = self.repro(RUN1, RUN3)
        self.assertEqual(rc, 0)
        self.assertIn("0 contradictions (0 winner, 0 pair) in 3 classes, 9 "
                      "pairs compared", text)
        self.assertNotIn("CONTRADICTION", text)
        p = subprocess.run([PY, PICK, "--repro", RUN1, RUN3],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0 contradictions", p.stdout)

    def test_drifted_run_is_compared_and_named(self):
        # Run 1 with its floor moved from 300 to 560 ns during the sweep:
        # pick would withhold its winners, but the check still compares the
        # statistics, and says which run drifted.
        with open(RUN1) as f:
            doc = json.load(f)
        fl = doc["context"]["serverkit"]["floor"]
        fl["before"] = dict(p50_ns=300.0, p99_ns=400.0)
        fl["after"] = dict(p50_ns=560.0, p99_ns=700.0)
        with tempfile.TemporaryDirectory() as d:
            drifted = os.path.join(d, "queues-drifted.json")
            with open(drifted, "w") as f:
                json.dump(doc, f)
            rc, text, _ = self.repro(drifted, RUN3)
        self.assertEqual(rc, 0, text)
        self.assertIn("host drifted during run 1", text)
        self.assertIn("drifted: before/after p50 differ by 87%", text)
        self.assertIn("0 contradictions (0 winner, 0 pair) in 3 classes", text)

    def test_bad_inputs(self):
        rc, _, err = self.repro(RUN1, os.path.join(REPRO, "nope.json"))
        self.assertEqual(rc, 2)
        self.assertIn("nope.json: no such file", err)
        rc, _, err = self.repro(RUN1, os.path.join(OLD, "queues.json"))
        self.assertEqual(rc, 2)
        self.assertIn("written by an older sweep", err)
        rc, _, err = self.repro(RUN1, os.path.join(BASIC, "logger.json"))
        self.assertEqual(rc, 2)
        self.assertIn("a queues run and", err)
        self.assertIn("same family", err)
        rc, _, err = self.repro(RUN1, os.path.join(BASIC, "pingpong.json"))
        self.assertEqual(rc, 2)
        p = subprocess.run([PY, PICK, "--repro", RUN1, OLD],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no such file", p.stderr)


class MergeTest(unittest.TestCase):
    """A sweep run as 3 processes (bench/sweep.sh): merged into one file,
    and a winner that is not ahead in every process is a tie."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def merged_dir(self, strip_process=False):
        doc = R.merge_parts(PARTS)
        if strip_process:
            for b in doc["benchmarks"]:
                b.pop("process")
        d = os.path.join(self.tmp, "strip" if strip_process else "merged")
        os.makedirs(d)
        with open(os.path.join(d, "queues.json"), "w") as f:
            json.dump(doc, f)
        return d

    def test_merge_keeps_every_repetition_and_its_process(self):
        doc = R.merge_parts(list(reversed(PARTS)))  # any order
        runs = [b for b in doc["benchmarks"]
                if b["run_name"].startswith("queues/throughput/bounded-mpmc")]
        self.assertEqual([b["process"] for b in runs], [1] * 3 + [2] * 3 +
                         [3] * 3)
        self.assertEqual([b["repetition_index"] for b in runs],
                         list(range(9)))
        self.assertTrue(all(b["repetitions"] == 9 for b in runs))
        self.assertFalse([b for b in doc["benchmarks"]
                          if b.get("run_type") == "aggregate"])
        sk = doc["context"]["serverkit"]
        self.assertEqual((sk["repetitions"], sk["processes"]), (9, 3))
        self.assertNotIn("part", sk)
        fl = sk["floor"]
        self.assertEqual(fl["before"]["p50_ns"], 561.0)  # process 1's
        self.assertEqual(fl["after"]["p50_ns"], 573.0)   # process 3's
        self.assertEqual([p["before"]["p50_ns"] for p in fl["parts"]],
                         [561.0, 562.0, 563.0])
        cell = R.load_family(os.path.join(self.merged_dir(), "queues.json"))
        c = cell.cells[("throughput", (("producers", 1), ("consumers", 1)))]
        self.assertEqual(len(c["bounded-mpmc"].reps("items_per_second")), 9)
        # Medians of STEADY9's three thirds (1.00, 1.005, 0.995) x 3e7 and
        # x 2.4e7.
        meds = c["bounded-mpmc"].process_medians("items_per_second")
        self.assertEqual(sorted(meds), [1, 2, 3])
        for k, want in ((1, 3.0e7), (2, 3.015e7), (3, 2.388e7)):
            self.assertAlmostEqual(meds[k] / want, 1.0, places=9)

    def test_a_winner_behind_in_one_process_is_a_tie(self):
        loaded, problems = R.load_dir(self.merged_dir())
        self.assertFalse(problems)
        res = P.pick_all(loaded, P.Workload())
        c = cls(res, "queues", "1:1")
        self.assertEqual(c["winner"], "bounded-mpmc")
        self.assertEqual(c["noise"], "within")
        self.assertEqual(c["verdict"], "within the noise: a tie with "
                         "moodycamel (the processes disagree in 1 of 1 "
                         "group(s))")
        (n,) = c["group_noise"]
        self.assertLess(n["p"], 0.05)  # pooled, it would be above
        self.assertEqual(n["split"], "behind in process 3 (0.96x)")
        self.assertEqual(n["processes"], 3)
        # Agreeing in every process, the latency winner stands.
        self.assertEqual(cls(res, "queues", "latency-bound")["noise"],
                         "above")
        # The same repetitions without their processes: a confident winner.
        loaded, _ = R.load_dir(self.merged_dir(strip_process=True))
        c = cls(P.pick_all(loaded, P.Workload()), "queues", "1:1")
        self.assertEqual((c["winner"], c["noise"]), ("bounded-mpmc", "above"))

    def test_merge_cli(self):
        out = os.path.join(self.tmp, "queues.json")
        p = subprocess.run([PY, PICK, "--merge", out] + PARTS,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("merged 3 process(es) of queues, 9 repetitions", p.stdout)
        self.assertEqual(R.load_family(out).sk["processes"], 3)
        self.assertFalse(os.path.exists(out + ".tmp"))

    def test_parts_that_are_not_one_sweep(self):
        bad = [
            (PARTS[:2], "one of 3 parts; 2 file(s) given"),
            ([PARTS[0], PARTS[1], PARTS[1]], "want each of 1..3 once"),
            ([os.path.join(BASIC, "queues.json")], "not run with --part"),
            ([os.path.join(REPRO, "nope.json")], "nope.json"),
            ([os.path.join(BASIC, "pingpong.json")], "pingpong.json"),
            ([os.path.join(OLD, "queues.json")], "older sweep"),
            ([], "no part files"),
        ]
        for paths, why in bad:
            with self.assertRaises(R.MergeError) as e:
                R.merge_parts(paths)
            self.assertIn(why, str(e.exception))
        # A part of another family.
        with open(PARTS[2]) as f:
            doc = json.load(f)
        doc["context"]["serverkit"]["family"] = "logger"
        other = os.path.join(self.tmp, "logger-part3.json")
        with open(other, "w") as f:
            json.dump(doc, f)
        with self.assertRaises(R.MergeError) as e:
            R.merge_parts(PARTS[:2] + [other])
        self.assertIn("its family differs", str(e.exception))
        out = os.path.join(self.tmp, "out.json")
        p = subprocess.run([PY, PICK, "--merge", out] + PARTS[:2],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("pick --merge:", p.stderr)
        self.assertFalse(os.path.exists(out))
        p = subprocess.run([PY, PICK, "--merge", out], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 2)


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
