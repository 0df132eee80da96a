#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/read/sweeps_test.py
# -----------------------------------------------------------------------------
#
# Reading result files (read/sweeps.py): names and Google Benchmark's suffixes,
# aggregates, one repetition; the vocabulary read from the files (rules,
# traits, files without it) and how the classes rank by it. --merge: a
# sweep run as 3 processes (bench/sweep.sh) merged into one file, a winner
# that is not ahead in every process is a tie, parts that are not one
# sweep; a sweep in paired rounds merged keeps its (process, round)
# pairing and each part's rounds.

import contextlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from pick.testutil import BASIC, OLD, PARTS, PICK, REPRO, SMOKE, cls, picked

from pick import cli
from pick.read import sweeps
from pick.decide import winners
from pick.report.families import class_details
from pick.decide.workloads import Workload
from pick import records

from pick.testdata import roundsfix as F


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


class MergeTest(unittest.TestCase):
    """A sweep run as 3 processes (bench/sweep.sh): merged into one file,
    and a winner that is not ahead in every process is a tie."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def merged_dir(self, strip_process: bool = False) -> str:
        doc = sweeps.merge_parts(PARTS)
        if strip_process:
            for b in doc["benchmarks"]:
                b.pop("process")
        d = os.path.join(self.tmp, "strip" if strip_process else "merged")
        os.makedirs(d)
        with open(os.path.join(d, "queues.json"), "w") as f:
            json.dump(doc, f)
        return d

    def test_merge_keeps_every_repetition_and_its_process(self) -> None:
        doc = sweeps.merge_parts(list(reversed(PARTS)))  # any order
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
        cell = sweeps.load_family(os.path.join(self.merged_dir(),
                                               "queues.json"))
        c = cell.cells[("throughput", (("producers", 1), ("consumers", 1)))]
        self.assertEqual(len(c["bounded-mpmc"].reps("items_per_second")), 9)
        # Medians of STEADY9's three thirds (1.00, 1.005, 0.995) x 3e7 and
        # x 2.4e7.
        meds = c["bounded-mpmc"].process_medians("items_per_second")
        self.assertEqual(sorted(meds), [1, 2, 3])
        for k, want in ((1, 3.0e7), (2, 3.015e7), (3, 2.388e7)):
            self.assertAlmostEqual(meds[k] / want, 1.0, places=9)

    def test_a_winner_behind_in_one_process_is_a_tie(self) -> None:
        loaded, problems = sweeps.load_dir(self.merged_dir())
        self.assertFalse(problems)
        res = winners.pick_all(loaded, Workload())
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
        loaded, _ = sweeps.load_dir(self.merged_dir(strip_process=True))
        c = cls(winners.pick_all(loaded, Workload()), "queues", "1:1")
        self.assertEqual((c["winner"], c["noise"]), ("bounded-mpmc", "above"))

    def test_merge_keeps_round_pairing(self) -> None:
        """Two processes of a sweep in paired rounds (4 rounds each): the
        pairing key is (process, round), so the merged class has 8 paired
        rounds; the rounds object keeps each part and sums each unit."""
        paths = [F.write_doc(self.tmp, "part%d" % k,
                             F.part(k, 1.5, stop))
                 for k, stop in ((1, "target"), (2, "budget"))]
        doc = sweeps.merge_parts(paths)
        rounds = doc["context"]["serverkit"]["rounds"]
        self.assertEqual([p["process"] for p in rounds["parts"]], [1, 2])
        self.assertEqual([p["units"]["throughput"]["stop"]
                          for p in rounds["parts"]], ["target", "budget"])
        unit = rounds["units"]["throughput"]
        self.assertEqual((unit["rounds"], unit["stop"], unit["scenarios"]),
                         (8, "budget", ["throughput"]))
        self.assertAlmostEqual(rounds["elapsed_s"], 63.0)
        self.assertEqual(rounds["budget_s"], 70.0)
        d = os.path.join(self.tmp, "merged")
        F.write_doc(d, "queues", doc)
        loaded, problems = sweeps.load_dir(d)
        self.assertFalse(problems)
        fr = loaded["queues"]
        self.assertEqual(fr.rounds().processes, 2)  # type: ignore[union-attr]
        g = ("throughput", (("producers", 1), ("consumers", 1)))
        self.assertEqual(sorted(fr.cells[g]["moodycamel"].by_round),
                         [(p, r) for p in (1, 2) for r in range(1, 5)])
        c = cls(winners.pick_all(loaded, Workload()), "queues", "1:1")
        self.assertEqual((c["winner"], c["noise"]), ("bounded-mpmc", "above"))
        self.assertEqual(c["paired"]["n"], 8)
        self.assertEqual((c["rounds"], c["budget_ended"]), (8, True))
        # Without the processes, rounds 1..4 of the two parts would collide.
        for b in doc["benchmarks"]:
            b.pop("process")
        F.write_doc(d, "queues", doc)
        loaded, _ = sweeps.load_dir(d)
        c = cls(winners.pick_all(loaded, Workload()), "queues", "1:1")
        self.assertEqual((c["paired"]["n"], c["noise"]), (4, "unknown"))
        # Files without rounds merge as before: no rounds object.
        self.assertNotIn("rounds", sweeps.merge_parts(PARTS)["context"][
            "serverkit"])

    def test_merge_cli(self) -> None:
        out = os.path.join(self.tmp, "queues.json")
        p = subprocess.run([*PICK, "--merge", out] + PARTS,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("merged 3 process(es) of queues, 9 repetitions",
                      p.stdout)
        self.assertEqual(sweeps.load_family(out).sk["processes"], 3)
        self.assertFalse(os.path.exists(out + ".tmp"))

    def test_parts_that_are_not_one_sweep(self) -> None:
        bad: list[tuple[list[str], str]] = [
            (PARTS[:2], "one of 3 parts; 2 file(s) given"),
            ([PARTS[0], PARTS[1], PARTS[1]], "want each of 1..3 once"),
            ([os.path.join(BASIC, "queues.json")], "not run with --part"),
            ([os.path.join(REPRO, "nope.json")], "nope.json"),
            ([os.path.join(BASIC, "pingpong.json")], "pingpong.json"),
            ([os.path.join(OLD, "queues.json")], "older sweep"),
            ([], "no part files"),
        ]
        for paths, why in bad:
            with self.assertRaises(sweeps.MergeError) as e:
                sweeps.merge_parts(paths)
            self.assertIn(why, str(e.exception))
        # A part of another family.
        with open(PARTS[2]) as f:
            doc = json.load(f)
        doc["context"]["serverkit"]["family"] = "logger"
        other = os.path.join(self.tmp, "logger-part3.json")
        with open(other, "w") as f:
            json.dump(doc, f)
        with self.assertRaises(sweeps.MergeError) as e:
            sweeps.merge_parts(PARTS[:2] + [other])
        self.assertIn("its family differs", str(e.exception))
        out = os.path.join(self.tmp, "out.json")
        p = subprocess.run([*PICK, "--merge", out] + PARTS[:2],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("pick --merge:", p.stderr)
        self.assertFalse(os.path.exists(out))
        p = subprocess.run([*PICK, "--merge", out], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
