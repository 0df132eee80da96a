#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pingpong/validate_test.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation (validate.py) on fixture runs: procs.run_point is
# replaced by FakeRuns, which serves the throughputs of
# testdata/validate_runs.json and writes the logger's file, so the rows, the
# exact outcome (bench/pick/outcome.py), the verdict rule, the alternation,
# a failed run, an interruption, the winners files (testdata/winners-*.json)
# and the table are checked without a server.
#
#   validate_test.py [-v]          the unit tests
#                                  (//bench/pingpong:validate_test)
#   validate_test.py --smoke DIR   the same checks on the files of
#                                  validate_smoke_test.sh's real runs
#
# Exit status 0 when every check passed, 1 otherwise.

from __future__ import annotations

import glob
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest
from typing import Any, Optional, Sequence
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import procs  # noqa: E402
import validate  # noqa: E402
import validate_kinds  # noqa: E402
import validate_report  # noqa: E402
from validate_cases import COMPONENTS, SAME, VERDICT, Outcome  # noqa: E402

TESTDATA = os.path.join(HERE, "testdata")
GOOD = os.path.join(TESTDATA, "winners-good.json")
BAD = os.path.join(TESTDATA, "winners-bad.json")
RUNS = os.path.join(TESTDATA, "validate_runs.json")
MEASURED = (Outcome.HELD.value, Outcome.NO_DIFFERENCE.value,
            Outcome.REFUTED.value, Outcome.TOO_WEAK.value)
Result = dict[str, Any]


# --- the checks, shared with the smoke run -----------------------------------

def check_good(t: unittest.TestCase, v: Result) -> None:
    """testdata/winners-good.json: task_queue and logger ran, the buffer's
    winner is its baseline."""
    t.assertEqual(v["winners"], "winners.json")
    rows = {r["component"]: r for r in v["rows"]}
    t.assertEqual(set(rows), {"task_queue", "buffer", "logger"})
    t.assertEqual(rows["buffer"]["outcome"], "nothing-to-validate")
    t.assertEqual(rows["buffer"]["verdict"], SAME)
    t.assertFalse(rows["buffer"]["records"],
                  "ran a component whose winner is its baseline")
    for c in ("task_queue", "logger"):
        r = rows[c]
        t.assertIn(r["outcome"], MEASURED, r)
        t.assertEqual(r["verdict"].split(" (")[0],
                      VERDICT[Outcome(r["outcome"])])
        if v["repetitions"] < 4:  # the exact U-test cannot reach 0.05
            t.assertEqual(r["outcome"], Outcome.TOO_WEAK.value, r)
            t.assertIsNone(r["mde"])
        t.assertTrue(r["e2e_ratio"] and r["e2e_ratio"] > 0, r)
        for side in ("baseline", "winner", "control"):
            t.assertEqual(len(r[side + "_runs"]), v["repetitions"])
        if r["metric_used"] == r["metric"]:
            t.assertEqual(r["e2e_ratio"],
                          r["winner_median"] / r["baseline_median"]
                          if r["higher_is_better"] else
                          r["baseline_median"] / r["winner_median"])
        t.assertEqual(r["e2e"]["ratio"], r["e2e_ratio"])
        t.assertLessEqual(r["e2e"]["low"], r["e2e"]["high"])
        t.assertTrue(0 < r["e2e"]["p"] <= 1, r)
        t.assertTrue(r["control_e2e"]["ratio"] > 0, r)
        t.assertTrue(r["reason"], r)
        t.assertTrue(all(x["ok"] for x in r["records"]), r["records"])
        t.assertIn("sentence", r)
        t.assertTrue(r["cpu_ratio"] and r["cpu_ratio"] > 0, r)
    t.assertEqual(rows["task_queue"]["micro_ratio"], 2.5)
    t.assertEqual(rows["task_queue"]["control"], "swap-vector+2us-per-task")
    t.assertIn("--task_queue_slowdown_ns=2000",
               rows["task_queue"]["control_flags"])
    t.assertEqual(rows["logger"]["control"], "sync+flush-every-line")
    t.assertIn("--log_flush_every_line", rows["logger"]["control_flags"])
    t.assertTrue(rows["task_queue"]["micro_source"].startswith(
        "queues/eventloop"))
    if rows["logger"]["outcome"] != Outcome.TOO_WEAK.value:
        t.assertTrue(rows["logger"]["verdict"].endswith("(micro n/a)"),
                     rows["logger"])
    t.assertIn("--reply_via_queue", v["rows"][0]["winner_flags"])
    t.assertEqual([(r["case"], r["workload"]) for r in v["rows"]
                   if r["component"] == "task_queue"],
                  [("reply-via-queue", "pingpong"),
                   ("reply-via-queue-1", "pingpong"), ("chat-1000", "chat"),
                   ("chat-5000", "chat")])
    t.assertEqual(rows["task_queue"]["unit"], "ms per round")
    t.assertTrue(all(b > 0 for b in rows["logger"]["log_bytes"]),
                 rows["logger"]["log_bytes"])


def check_bad(t: unittest.TestCase, v: Result) -> None:
    """Malformed winners.json, --validate_components=task_queue,logger."""
    t.assertEqual(v["winners"], "defaults")
    t.assertTrue(v["notes"])
    t.assertEqual([r["component"] for r in v["rows"]],
                  ["task_queue"] * 4 + ["logger"] * 2)
    t.assertEqual(v["rows"][0]["winner"], "bounded-mpmc")
    t.assertIsNone(v["rows"][0]["micro_ratio"])


def check_missing(t: unittest.TestCase, v: Result) -> None:
    """No winners.json, --validate_components=buffer."""
    t.assertEqual([r["case"] for r in v["rows"]],
                  ["echo-16k", "stream-64k", "header-growing"])
    t.assertTrue(all(r["origin"] == "default" for r in v["rows"]))


def check_no_logs_left(t: unittest.TestCase, directory: str) -> None:
    t.assertFalse(glob.glob(os.path.join(directory, ".validate-logs-*")),
                  "log files left behind")


def smoke(directory: str) -> int:
    """The checks on validate_smoke_test.sh's good, bad and missing runs
    (good.json also kept the earlier sweep's keys)."""
    t = unittest.TestCase()

    def load(name: str) -> Result:
        with open(os.path.join(directory, name + ".json")) as f:
            doc: Result = json.load(f)
            return doc
    good = load("good")
    t.assertEqual(good["echo"], [{"server": "x"}], "earlier sweep keys lost")
    t.assertEqual(good["context"], {"profile": "smoke"})
    check_good(t, good["validation"])
    check_no_logs_left(t, directory)
    check_bad(t, load("bad")["validation"])
    check_missing(t, load("missing")["validation"])
    print("validate smoke: OK")
    return 0


# --- fixture runs ------------------------------------------------------------

class FakeRuns:
    """procs.run_point's stand-in: the MiB/s of testdata/validate_runs.json
    per implementation in call order; the run named by `fail` (name, k-th
    call of it) fails; a KeyboardInterrupt instead of call interrupt_at + 1;
    with write_log, the logger's --log_file gets a few lines."""

    def __init__(self, fail: Optional[tuple[str, int]] = None,
                 interrupt_at: Optional[int] = None,
                 write_log: bool = True) -> None:
        with open(RUNS) as f:
            self.data = json.load(f)
        self.fail, self.interrupt_at = fail, interrupt_at
        self.write_log = write_log
        self.calls: list[tuple[str, str, list[str]]] = []

    def __call__(self, server: procs.Server, client: str, tmp: str,
                 p: procs.Point, pin: str) -> Result:
        comp, name = server.name[len("serverkit["):-1].split("=", 1)
        k = sum(1 for c in self.calls if c[:2] == (comp, name))
        self.calls.append((comp, name, list(server.extra)))
        if self.interrupt_at is not None and \
                len(self.calls) > self.interrupt_at:
            raise KeyboardInterrupt()
        vals = self.data["mib_per_s"][comp][name]
        rec = dict(server=server.name, protocol=p.protocol,
                   server_threads=p.threads, client_threads=p.client_threads,
                   blocksize=p.block, sessions=p.sessions, pinned=False,
                   ok=True, seconds=p.seconds, mib_per_s=vals[k % len(vals)],
                   messages_per_s=vals[k % len(vals)],
                   server_cpu_s=self.data["cpu_per_s"] * p.seconds,
                   client_bound=False)
        if (name, k) == self.fail:
            del rec["mib_per_s"]
            rec.update(ok=False, error="client wrote no JSON (rc 1): boom")
        for flag in server.extra:
            if flag.startswith("--log_file=") and self.write_log:
                with open(flag.split("=", 1)[1], "a") as f:
                    f.write("line\n" * 4)
        return rec

    def http(self, name: str, flags: list[str], case: dict[str, Any],
             s: validate_kinds.Settings) -> Result:
        """validate_kinds._http's stand-in: the same fixture numbers as
        requests/s, in validate_kinds' record shape."""
        rec = self(procs.Server(name, name, flags), s.client, s.tmp,
                   procs.Point("echo", 1, 1, 0, case["sessions"],
                               seconds=s.seconds), s.pin)
        v = rec.get("mib_per_s") if rec["ok"] else None
        return dict(ok=rec["ok"], error=rec.get("error", ""), value=v,
                    cpu_per_unit=0.001 if v else None, client_bound=False,
                    server_cpus="0,1", client_cpus="0,1", raw=rec)

    def chat(self, name: str, flags: list[str], case: dict[str, Any],
             s: validate_kinds.Settings) -> Result:
        """validate_kinds._chat's stand-in: the fixture's figure x as a
        round time of 10000 / x ms (lower is better), so the faster
        implementation keeps its lead."""
        rec = self(procs.Server(name, name, flags), s.client, s.tmp,
                   procs.Point("echo", 2, 1, 64, case["sessions"],
                               seconds=s.seconds), s.pin)
        x = rec.get("mib_per_s") if rec["ok"] else None
        return dict(ok=rec["ok"], error=rec.get("error", ""),
                    value=10000.0 / x if x else None,
                    cpu_per_unit=self.data["cpu_per_s"] / x if x else None,
                    client_bound=False, server_cpus="1", client_cpus="0",
                    raw=rec)


class ValidateTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="validate-test-")

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def run_v(self, winners: str, fake: Optional[FakeRuns] = None,
              components: Sequence[str] = COMPONENTS,
              repetitions: int = 5) -> tuple[Result, str]:
        out = io.StringIO()
        fake = fake or FakeRuns()
        with mock.patch.object(procs, "run_point", fake), \
                mock.patch.object(validate_kinds, "_http", fake.http), \
                mock.patch.object(validate_kinds, "_chat", fake.chat), \
                mock.patch.object(procs, "resolve", lambda spec: spec):
            v = validate.run_validation(
                "client", "smoke", "no", winners, log_parent=self.tmp,
                seconds=0.2, repetitions=repetitions, components=components,
                out=out)
        return v, out.getvalue()

    def test_good_winners(self) -> None:
        for reps in (1, 3, 5):
            with self.subTest(repetitions=reps):
                v, _ = self.run_v(GOOD, repetitions=reps)
                check_good(self, v)
                check_no_logs_left(self, self.tmp)
                self.assertTrue(v["complete"])
                self.assertNotIn("interrupted", v)
        rows = {r["component"]: r for r in v["rows"]}
        tq, lg = rows["task_queue"], rows["logger"]
        # Five rounds: every winner run above every baseline run, every
        # control run below: p = 2 / C(10, 5) on both sides.
        self.assertEqual(tq["outcome"], "held")
        self.assertEqual(tq["verdict"], "held")
        self.assertAlmostEqual(tq["e2e_ratio"], 1.2)
        self.assertAlmostEqual(tq["e2e"]["p"], 2 / 252)
        self.assertAlmostEqual(tq["control_e2e"]["ratio"], 80 / 100)
        self.assertAlmostEqual(tq["control_e2e"]["p"], 2 / 252)
        # Slowed on purpose: no micro ratio of its own.
        self.assertIsNone(tq["control_micro_ratio"])
        self.assertIsNone(lg["control_micro_ratio"])
        self.assertTrue(tq["e2e"]["low"] > 1.1 and tq["e2e"]["high"] < 1.3,
                        tq["e2e"])
        self.assertTrue(0 < tq["mde"] < 0.1, tq["mde"])
        self.assertAlmostEqual(tq["cpu_ratio"], 100 / 120)
        self.assertEqual(lg["outcome"], "no-difference")
        self.assertEqual(lg["verdict"], "no difference (micro n/a)")
        self.assertEqual(lg["log_bytes"], [20] * 15)
        # The logger's second case runs the HTTP server under wrk.
        self.assertEqual([(r["case"], r["workload"], r["unit"])
                          for r in v["rows"] if r["component"] == "logger"],
                         [("log-per-message", "pingpong", "MiB/s"),
                          ("http-access-log", "http", "requests/s")])

    def test_malformed_winners(self) -> None:
        v, out = self.run_v(BAD, components=("task_queue", "logger"))
        check_bad(self, v)
        self.assertIn("note: cannot read %s" % BAD, out)
        self.assertEqual([r["outcome"] for r in v["rows"]],
                         ["no-difference"] * 4 + ["held", "held"])
        self.assertEqual(v["rows"][4]["verdict"], "held (micro n/a)")

    def test_missing_winners(self) -> None:
        missing = os.path.join(self.tmp, "no-such-winners.json")
        v, out = self.run_v(missing, components=("buffer",))
        check_missing(self, v)
        self.assertIn("note: %s not found: default winners" % missing, out)
        self.assertEqual([r["outcome"] for r in v["rows"]],
                         ["refuted", "refuted", "refuted"])

    def test_alternation_and_flags(self) -> None:
        fake = FakeRuns()
        v, _ = self.run_v(GOOD, fake, components=("task_queue", "logger"))
        self.assertEqual([c[1] for c in fake.calls[:6]], [
            "swap-vector", "moodycamel", "swap-vector+2us-per-task",
            "moodycamel", "swap-vector+2us-per-task", "swap-vector"])
        self.assertEqual(fake.calls[1][2],
                         ["--task_queue=moodycamel", "--reply_via_queue"])
        self.assertEqual(fake.calls[2][2],
                         ["--task_queue=swap-vector",
                          "--task_queue_slowdown_ns=2000",
                          "--reply_via_queue"])
        log_flag = fake.calls[60][2][1]
        self.assertEqual(fake.calls[60][2][0], "--logger=sync")
        self.assertRegex(log_flag, r"^--log_file=.*/\.validate-logs-[^/]*/"
                         r"logger-baseline\.log$")
        self.assertEqual(fake.calls[62][2][0::2],
                         ["--logger=sync", "--log_flush_every_line"])
        recs = v["rows"][0]["records"]
        self.assertEqual([(r["repetition"], r["side"]) for r in recs[:9]], [
            (0, "baseline"), (0, "winner"), (0, "control"),
            (1, "winner"), (1, "control"), (1, "baseline"),
            (2, "control"), (2, "baseline"), (2, "winner")])
        self.assertEqual(v["rows"][0]["baseline_flags"],
                         ["--task_queue=swap-vector", "--reply_via_queue"])

    def test_a_failed_run_stops_its_case(self) -> None:
        v, out = self.run_v(GOOD, FakeRuns(fail=("moodycamel", 1)),
                            components=("task_queue",))
        row = v["rows"][0]
        self.assertEqual(row["outcome"], "error")
        self.assertEqual(row["verdict"], "error")
        self.assertEqual(row["error"], "winner moodycamel: client wrote no "
                         "JSON (rc 1): boom")
        self.assertEqual(len(row["records"]), 6)  # repetition 1 finished
        self.assertIsNone(row["e2e_ratio"])
        self.assertIn("did not run: winner moodycamel", row["sentence"])
        self.assertIn("[validate 4/60] task_queue", out)
        self.assertIn("FAILED client wrote no JSON", out)
        self.assertNotIn("[validate 7/60]", out)
        # The other cases still ran.
        self.assertEqual([r["outcome"] for r in v["rows"][1:]],
                         ["held"] * 3)

    def test_the_logger_must_write(self) -> None:
        v, _ = self.run_v(GOOD, FakeRuns(write_log=False),
                          components=("logger",), repetitions=1)
        row = v["rows"][0]
        self.assertEqual(row["outcome"], "error")
        self.assertIn("the logger wrote nothing to", row["error"])
        self.assertEqual(row["log_bytes"], [0, 0, 0])  # the round ran

    def test_interrupted(self) -> None:
        v, out = self.run_v(GOOD, FakeRuns(interrupt_at=3))
        self.assertTrue(v["interrupted"])
        self.assertFalse(v["complete"])
        self.assertIn("validation: interrupted; reporting what ran", out)
        self.assertEqual(len(v["rows"]), 1)
        row = v["rows"][0]
        self.assertEqual((row["outcome"], row["verdict"], row["error"]),
                         ("error", "error", "interrupted"))
        self.assertIn("did not run: interrupted", row["sentence"])
        check_no_logs_left(self, self.tmp)

    def test_table(self) -> None:
        v, _ = self.run_v(GOOD)
        out = io.StringIO()
        validate_report.print_table(v, out)
        text = out.getvalue()
        self.assertIn("\nvalidation verdicts (winners from winners.json; 5 "
                      "repetition(s) of baseline, winner and control, 0.2 s "
                      "per run)\n", text)
        for pattern in (
                r"^task_queue +reply-via-queue +swap-vector -> moodycamel +"
                r"2\.50x +1\.200x \[1\.1\d, 1\.2\d\] p 0\.0079 +"
                r"swap-vector\+2us-per-task \(n/a\) +0\.800x \[0\.7\d, "
                r"0\.8\d\] p 0\.0079 +\d\.\d% +held$",
                r"^buffer .*winner is the baseline; nothing to validate$",
                r"^logger +log-per-message +sync -> async-double-buffer +"
                r"n/a .*sync\+flush-every-line \(n/a\) .*no difference "
                r"\(micro n/a\)$",
                r"^verdict: task_queue: moodycamel's 2\.50x over swap-vector "
                r"in the micro sweep \(queues/eventloop/producers:2/"
                r"coalesce:1\) came out 1\.200x \[.*\] p 0\.0079 end to "
                r"end \(mib_per_s, echo 4 KiB, .*; control swap-vector\+2us-"
                r"per-task: 0\.800x .*\): held; control detected .*$"):
            self.assertRegex(text, re.compile(pattern, re.M))
        self.assertNotIn("cannot reach p < 0.05 with so few", text)

    def test_defaults_are_marked(self) -> None:
        v, _ = self.run_v(BAD, components=("buffer",), repetitions=1)
        out = io.StringIO()
        validate_report.print_table(v, out)
        self.assertRegex(out.getvalue(), re.compile(
            r"^buffer +echo-16k +linear -> ring +n/a .* n/a +instrument too "
            r"weak \[default\]$",
            re.M))
        self.assertIn("1 repetition(s): the exact U-test cannot reach p < "
                      "0.05", out.getvalue())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--smoke"] and len(sys.argv) == 3:
        sys.exit(smoke(sys.argv[2]))
    unittest.main()
