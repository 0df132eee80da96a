#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/read/merge_test.py
# -----------------------------------------------------------------------------
#
# --merge (read/merge.py): a sweep run as 3 processes (bench/sweep.sh) merged
# into
# one file, a winner that is not ahead in every process is a tie, parts
# that are not one sweep; a sweep in paired rounds merged keeps its
# (process, round) pairing and each part's rounds.

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from pick.testutil import BASIC, OLD, PARTS, PICK, REPRO, cls

from pick.read import merge
from pick.read import sweeps
from pick.decide import winners
from pick.decide.workloads import Workload

from pick.testdata import roundsfix as F


class MergeTest(unittest.TestCase):
    """A sweep run as 3 processes (bench/sweep.sh): merged into one file,
    and a winner that is not ahead in every process is a tie."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def merged_dir(self, strip_process: bool = False) -> str:
        doc = merge.merge_parts(PARTS)
        if strip_process:
            for b in doc["benchmarks"]:
                b.pop("process")
        d = os.path.join(self.tmp, "strip" if strip_process else "merged")
        os.makedirs(d)
        with open(os.path.join(d, "queues.json"), "w") as f:
            json.dump(doc, f)
        return d

    def test_merge_keeps_every_repetition_and_its_process(self) -> None:
        doc = merge.merge_parts(list(reversed(PARTS)))  # any order
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
        doc = merge.merge_parts(paths)
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
        self.assertNotIn("rounds", merge.merge_parts(PARTS)["context"][
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
            with self.assertRaises(merge.MergeError) as e:
                merge.merge_parts(paths)
            self.assertIn(why, str(e.exception))
        # A part of another family.
        with open(PARTS[2]) as f:
            doc = json.load(f)
        doc["context"]["serverkit"]["family"] = "logger"
        other = os.path.join(self.tmp, "logger-part3.json")
        with open(other, "w") as f:
            json.dump(doc, f)
        with self.assertRaises(merge.MergeError) as e:
            merge.merge_parts(PARTS[:2] + [other])
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
