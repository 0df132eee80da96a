#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/report/two_runs_test.py
# -----------------------------------------------------------------------------
#
# report/two_runs.py. --repro: two runs that contradict each other, two
# that agree, a run whose host drifted, bad inputs; in-process and through
# __main__.py. --compare: a directory against itself, and two with no
# family file in common.

import io
import json
import os
import subprocess
import tempfile
import unittest

from pick.testutil import BASIC, OLD, PICK, REPRO, RUN1, RUN2, RUN3, SMOKE

from pick.report import two_runs


class ReproTest(unittest.TestCase):
    def repro(self, a: str, b: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        rc = two_runs.repro(a, b, out=out, err=err)
        return rc, out.getvalue(), err.getvalue()

    def test_contradicting_runs(self) -> None:
        rc, text, _ = self.repro(RUN1, RUN2)
        self.assertEqual(rc, 1)
        closing = ("3 contradictions (1 winner, 2 pair) in 3 classes, 9 pairs "
                   "compared; 0 half-disagreements (confident in one run, a "
                   "tie in the other)")
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
        p = subprocess.run([*PICK, "--repro", RUN1, RUN2],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stdout.rstrip().splitlines()[-1], closing)
        self.assertEqual(p.stdout, text)

    def test_agreeing_runs(self) -> None:
        rc, text, _ = self.repro(RUN1, RUN3)
        self.assertEqual(rc, 0)
        self.assertIn("0 contradictions (0 winner, 0 pair) in 3 classes, 9 "
                      "pairs compared", text)
        self.assertNotIn("CONTRADICTION", text)
        p = subprocess.run([*PICK, "--repro", RUN1, RUN3],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0 contradictions", p.stdout)

    def test_drifted_run_is_compared_and_named(self) -> None:
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

    def test_bad_inputs(self) -> None:
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
        p = subprocess.run([*PICK, "--repro", RUN1, OLD],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no such file", p.stderr)


class CompareTest(unittest.TestCase):
    def test_compare(self) -> None:
        buf = io.StringIO()
        self.assertEqual(two_runs.compare_dirs(BASIC, BASIC, 0.05, out=buf),
                         0)
        text = buf.getvalue()
        self.assertIn("queues/throughput/producers:1/consumers:1 mutex", text)
        self.assertIn("1.00x", text)
        self.assertEqual(two_runs.compare_dirs(BASIC, SMOKE, 0.05,
                                               out=io.StringIO()), 2)


if __name__ == "__main__":
    unittest.main()
