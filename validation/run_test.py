#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/run_test.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation (run.py) on fixture runs: the servers' runs
# are replaced by FakeRuns, which serves the throughputs of
# testdata/validate_runs.json, a server CPU that grows by the control's
# injected cost per operation, a stop line with the operations' counts, and
# writes the logger's file. So the candidate of each question, the rounds
# and their Williams order, the control's sizing, the stopping rule, the
# metric choice, the exact outcome (pick/outcome.py), a failed run, an
# interruption, the winners files (testdata/winners-*.json) and the table
# are checked without a server.
#
#   run_test.py [-v]          the unit tests (//validation:run_test)
#   run_test.py --smoke DIR   the same checks on the files of
#                             smoke_test.sh's real runs
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

from pick.read.validation_rows import validation_entries
from pick.records import PingpongDoc, ValidationRow
from servers.driver import procs
from validation import run as validate
from validation import kinds as validate_kinds
from pick.decide import paired as validate_paired
from validation import report as validate_report
from validation.cases import VERDICT, Outcome, Standing

HERE = os.path.dirname(os.path.abspath(__file__))


TESTDATA = os.path.join(HERE, "testdata")
GOOD = os.path.join(TESTDATA, "winners-good.json")
BAD = os.path.join(TESTDATA, "winners-bad.json")
RUNS = os.path.join(TESTDATA, "validate_runs.json")
MEASURED = [o.value for o in Outcome
            if o not in (Outcome.ERROR, Outcome.NOTHING_TO_VALIDATE)]
Result = dict[str, Any]


# --- the checks, shared with the smoke run -----------------------------------

def check_good(t: unittest.TestCase, v: Result) -> None:
    """testdata/winners-good.json: the task queue's and the logger's picks
    left their baselines; the buffer's kept it, so its leader runs."""
    t.assertEqual(v["winners"], "winners.json")
    rows = {r["component"]: r for r in v["rows"]}
    t.assertLessEqual({"task_queue", "buffer", "logger"}, set(rows))
    t.assertEqual([rows[c]["question"] for c in
                   ("task_queue", "buffer", "logger")],
                  ["pick", "alternative", "pick"])
    t.assertEqual((rows["buffer"]["winner"], rows["buffer"]["pick"]),
                  ("ring", "linear"))
    t.assertEqual(rows["buffer"]["micro_ratio"], 1.05)
    for r in v["rows"]:
        t.assertIn(r["outcome"], MEASURED, r)
        t.assertEqual(r["verdict"].split(":")[0].split(" (")[0],
                      VERDICT[Outcome(r["outcome"])])
        t.assertIn((r["margin"], r["standing"]),
                   [(v["margin"], s.value) for s in Standing])
        n = len(r["rounds"])
        t.assertTrue(v["min_rounds"] <= n <= v["max_rounds"], r["stop"])
        if n < validate_paired.min_rounds():
            t.assertEqual(r["outcome"], Outcome.TOO_WEAK.value, r)
            t.assertIsNone(r["mde"])
        t.assertTrue(r["e2e_ratio"] and r["e2e_ratio"] > 0, r)
        t.assertEqual(r["e2e"]["ratio"], r["e2e_ratio"])
        t.assertEqual(r["e2e"]["n"], n)
        t.assertTrue(0 < r["e2e"]["p"] <= 1, r)
        t.assertTrue(r["control_e2e"]["ratio"] > 0, r)
        t.assertTrue(r["reason"], r)
        t.assertTrue(all(x["ok"] for x in r["records"]), r["records"])
        t.assertEqual(len(r["records"]), 4 * n)
        t.assertIn("sentence", r)
        t.assertIn(r["metric_kind"], r["sentence"])
        t.assertTrue(r["cpu_ratio"] and r["cpu_ratio"] > 0, r)
        # The control: the baseline with its cost sized from the first
        # baseline run, and that cost measured back.
        cost = r["control_cost"]
        t.assertEqual(r["control"], r["baseline"] + "+slowed")
        t.assertIn("%s=%d" % (cost["flag"], cost["injected_ns"]),
                   r["control_flags"])
        t.assertAlmostEqual(cost["injected_ns"],
                            cost["fraction"] * cost["baseline_ns_per_op"],
                            delta=1.0)
        t.assertEqual(cost["fraction"], r["control_fraction"])
        t.assertIsNotNone(cost["measured_ns"], r)
    t.assertEqual(rows["task_queue"]["micro_ratio"], 2.5)
    t.assertTrue(rows["task_queue"]["micro_source"].startswith(
        "queues/eventloop"))
    t.assertIn("--reply_via_queue", v["rows"][0]["winner_flags"])
    t.assertTrue(all(b > 0 for b in rows["logger"]["log_bytes"]),
                 rows["logger"]["log_bytes"])


def check_bad(t: unittest.TestCase, v: Result) -> None:
    """Malformed winners.json, --validate_components=task_queue,logger."""
    t.assertEqual(v["winners"], "defaults")
    t.assertTrue(v["notes"])
    t.assertEqual(v["rows"][0]["winner"], "bounded-mpmc")
    t.assertEqual(v["rows"][0]["question"], "default")
    t.assertIsNone(v["rows"][0]["micro_ratio"])
    t.assertTrue(all(r["origin"] == "default" for r in v["rows"]))


def check_missing(t: unittest.TestCase, v: Result) -> None:
    """No winners.json, --validate_components=buffer."""
    t.assertEqual([r["component"] for r in v["rows"]],
                  ["buffer"] * len(v["rows"]))
    t.assertTrue(all(r["origin"] == "default" for r in v["rows"]))
    t.assertTrue(all(r["winner"] == "ring" for r in v["rows"]))


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
    """The servers' stand-in: the MiB/s of testdata/validate_runs.json per
    implementation in call order; the server CPU cpu_per_s per second plus
    the control's injected ns per operation; a stop line that counts
    ops_per_s operations per second (tasks, log lines, KiB); the run named
    by `fail` (name, k-th call of it) fails; a KeyboardInterrupt instead of
    call interrupt_at + 1; with write_log, the logger's --log_file gets a
    few lines. values overrides the fixture's figures per name."""

    def __init__(self, fail: Optional[tuple[str, int]] = None,
                 interrupt_at: Optional[int] = None,
                 write_log: bool = True,
                 values: Optional[dict[str, list[float]]] = None) -> None:
        with open(RUNS) as f:
            self.data = json.load(f)
        self.fail, self.interrupt_at = fail, interrupt_at
        self.write_log = write_log
        self.values = values or {}
        self.calls: list[tuple[str, str, list[str]]] = []

    def __call__(self, server: procs.Server, client: str, tmp: str,
                 p: procs.Point, pin: str) -> Result:
        comp, name = server.name[len("serverkit["):-1].split("=", 1)
        k = sum(1 for c in self.calls if c[:2] == (comp, name))
        self.calls.append((comp, name, list(server.extra)))
        if self.interrupt_at is not None and \
                len(self.calls) > self.interrupt_at:
            raise KeyboardInterrupt()
        vals = self.values.get(name) or self.data["mib_per_s"][comp][name]
        ops = self.data["ops_per_s"] * p.seconds
        ns = sum(int(f.split("=")[1]) for f in server.extra
                 if re.match(r"--\w+_slowdown_ns(_per_kib)?=", f))
        cpu = self.data["cpu_per_s"] * p.seconds + ns * ops / 1e9
        rec = dict(server=server.name, protocol=p.protocol,
                   server_threads=p.threads, client_threads=p.client_threads,
                   blocksize=p.block, sessions=p.sessions, pinned=False,
                   ok=True, seconds=p.seconds, mib_per_s=vals[k % len(vals)],
                   messages_per_s=vals[k % len(vals)], server_cpu_s=cpu,
                   client_bound=False, server_cpus="0,1", client_cpus="0,1",
                   server_log="server: stopped; messages %d, tasks run %d, "
                   "bytes in %d\nserver: stopped; connections 1, replies %d"
                   % (ops, ops, ops * 1024, ops))
        if (name, k) == self.fail:
            del rec["mib_per_s"]
            rec.update(ok=False, error="client wrote no JSON (rc 1): boom")
        for flag in server.extra:
            if flag.startswith("--log_file=") and self.write_log:
                with open(flag.split("=", 1)[1], "a") as f:
                    f.write("line\n" * 4)
        return rec

    def _kind(self, name: str, flags: list[str], case: dict[str, Any],
              s: validate_kinds.Settings, invert: bool) -> Result:
        rec = self(procs.Server(name, name, flags), s.client, s.tmp,
                   procs.Point("echo", 1, 1, 0, case["sessions"],
                               seconds=s.seconds), s.pin)
        x = rec.get("mib_per_s") if rec["ok"] else None
        v = (10000.0 / x if invert else x) if x else None
        return dict(ok=rec["ok"], error=rec.get("error", ""), value=v,
                    cpu_per_unit=rec["server_cpu_s"] / (x * s.seconds)
                    if x else None,
                    client_bound=False, server_cpus="0,1",
                    client_cpus="0,1", server_cpu_s=rec["server_cpu_s"],
                    server_log=rec["server_log"], raw=rec)

    def http(self, name: str, flags: list[str], case: dict[str, Any],
             s: validate_kinds.Settings) -> Result:
        """validate_kinds._http's stand-in: the fixture's figures as
        requests/s."""
        return self._kind(name, flags, case, s, invert=False)

    def chat(self, name: str, flags: list[str], case: dict[str, Any],
             s: validate_kinds.Settings) -> Result:
        """validate_kinds._chat's stand-in: the fixture's figure x as a
        round time of 10000 / x ms (lower is better)."""
        return self._kind(name, flags, case, s, invert=True)


class Harness(unittest.TestCase):
    """setUp, tearDown and run_v for the validation's tests (here and in
    validate_rounds_test.py)."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="validate-test-")

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def run_v(self, winners: str, fake: Optional[FakeRuns] = None,
              components: Sequence[str] = ("task_queue", "buffer",
                                           "logger"),
              rounds: int = 6, profile: str = "smoke",
              budget_s: float = 0.0, rows_as: str = "file"
              ) -> tuple[Result, str]:
        """The validation's result and its console text; its rows as the
        file holds them (JSON), or rows_as="rows": ValidationRows."""
        out = io.StringIO()
        fake = fake or FakeRuns()
        with mock.patch.object(procs, "run_point", fake), \
                mock.patch.object(validate_kinds, "_http", fake.http), \
                mock.patch.object(validate_kinds, "_chat", fake.chat), \
                mock.patch.object(procs, "resolve", lambda spec: spec):
            v = validate.run_validation(
                "client", profile, "no", winners, log_parent=self.tmp,
                seconds=0.2, rounds=rounds, budget_s=budget_s,
                components=components, out=out)
        return (v if rows_as == "rows" else validate.result_json(v),
                out.getvalue())


class ValidateTest(Harness):
    def test_good_winners(self) -> None:
        for rounds in (1, 3, 6):
            with self.subTest(rounds=rounds):
                v, _ = self.run_v(GOOD, rounds=rounds)
                check_good(self, v)
                check_no_logs_left(self, self.tmp)
                self.assertTrue(v["complete"])
                self.assertNotIn("interrupted", v)
        rows = {r["component"]: r for r in v["rows"]}
        tq, buf, lg = rows["task_queue"], rows["buffer"], rows["logger"]
        # Six rounds: the candidate ahead of the baseline in every round,
        # the control behind: the exact signed-rank p is 2 / 2^6.
        self.assertEqual(tq["outcome"], "held")
        self.assertEqual((tq["verdict"], tq["standing"], tq["margin"]), (
            "held: moodycamel ahead of swap-vector by more than 5% (by "
            "13.5-22.4%)", "ahead-beyond", 0.05))
        self.assertAlmostEqual(tq["e2e"]["p"], 2 / 64)
        self.assertAlmostEqual(tq["control_e2e"]["p"], 2 / 64)
        self.assertTrue(1.15 < tq["e2e_ratio"] < 1.25, tq["e2e"])
        self.assertLess(tq["control_e2e"]["ratio"], 0.85)
        # Cores shared: the verdict is on the server's CPU per unit, and
        # says so.
        self.assertEqual(tq["metric_used"], "server_cpu_s_per_mib")
        self.assertEqual(tq["metric_kind"], "server CPU per mib")
        self.assertIn("shared cores", tq["metric_why"])
        # The control's cost per task: 10% of the baseline's 50 us of CPU
        # per operation (0.5 s per s over 10000 per s), measured back.
        cost = tq["control_cost"]
        self.assertEqual(cost["injected_ns"], 5000)
        self.assertAlmostEqual(cost["measured_ns"], 5000, delta=1)
        self.assertEqual(cost["op"], "task popped")
        self.assertEqual((buf["outcome"], buf["standing"], buf["verdict"]), (
            "refuted", "behind-beyond", "refuted: linear ahead of ring by "
            "more than 5% (by 7.7-14.6%)"))
        self.assertEqual((lg["outcome"], lg["verdict"]), ("equivalent", (
            "equivalent: async-double-buffer and sync equivalent within ±5% "
            "(-2.9% to +2.0%) (micro n/a)")))
        self.assertIn("MDE 9.6% at the spread's upper 95% bound", lg["reason"])
        self.assertTrue(0 < lg["mde"] < 0.15, lg["mde"])

    def test_the_file_holds_the_one_row_type(self) -> None:
        """What the validation writes, pick reads back as the same rows."""
        v, _ = self.run_v(GOOD, rows_as="rows")
        self.assertTrue(all(isinstance(r, ValidationRow) for r in v["rows"]))
        written = json.loads(json.dumps(validate.result_json(v)))
        self.assertEqual(validation_entries(PingpongDoc(validation=written)),
                         v["rows"])

    def test_malformed_winners(self) -> None:
        v, out = self.run_v(BAD, components=("task_queue", "logger"))
        check_bad(self, v)
        self.assertIn("note: cannot read %s" % BAD, out)
        self.assertEqual([r["outcome"] for r in v["rows"]],
                         ["not-told-apart", "held"])
        self.assertRegex(v["rows"][0]["verdict"], r"^not told apart: bounded-"
                         r"mpmc and swap-vector not told apart \(.*\) \(micro")

    def test_missing_winners(self) -> None:
        missing = os.path.join(self.tmp, "no-such-winners.json")
        v, out = self.run_v(missing, components=("buffer",))
        check_missing(self, v)
        self.assertIn("note: %s not found: default winners" % missing, out)
        self.assertEqual([r["outcome"] for r in v["rows"]], ["refuted"])

    def test_a_failed_run_stops_its_case(self) -> None:
        v, out = self.run_v(GOOD, FakeRuns(fail=("moodycamel", 1)),
                            components=("task_queue", "logger"))
        row = v["rows"][0]
        self.assertEqual((row["outcome"], row["verdict"], row["standing"]),
                         ("error", "error", "unknown"))
        self.assertEqual(row["error"], "winner moodycamel: client wrote no "
                         "JSON (rc 1): boom")
        self.assertEqual(len(row["records"]), 5)  # round 1's first run
        self.assertIsNone(row["e2e_ratio"])
        self.assertIn("did not run: winner moodycamel", row["sentence"])
        self.assertIn("FAILED client wrote no JSON", out)
        # The other cases still ran.
        self.assertEqual([r["outcome"] for r in v["rows"][1:]],
                         ["equivalent"])

    def test_the_logger_must_write(self) -> None:
        v, _ = self.run_v(GOOD, FakeRuns(write_log=False),
                          components=("logger",), rounds=1)
        row = v["rows"][0]
        self.assertEqual(row["outcome"], "error")
        self.assertIn("the logger wrote nothing to", row["error"])
        self.assertEqual(row["log_bytes"], [0])

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
        v, _ = self.run_v(GOOD, rows_as="rows")
        out = io.StringIO()
        validate_report.print_table(v, out)
        text = out.getvalue()
        self.assertIn("\nvalidation verdicts (candidates from winners.json; "
                      "rounds of baseline, candidate and two controls, 0.2 s "
                      "per run, 6 to 6 rounds, margin ±5%)\n", text)
        for pattern in (
                r"^task_queue +reply-via-queue-10 +pick +swap-vector -> "
                r"moodycamel +2\.50x +1\.\d{3}x \[1\.\d\d, 1\.\d\d\] p 0\.031 "
                r"+0\.\d{3}x \[0\.\d\d, 0\.\d\d\] p 0\.031 +5000 ns/task, "
                r"measured 5000 +6 \(max_rounds\) +\d+\.\d% +cpu +held: "
                r"moodycamel ahead of swap-vector by more than 5% \(by .*$",
                r"^buffer +echo-16k +alternative +linear -> ring +1\.05x .* "
                r"refuted: linear ahead of ring .*$",
                r"^logger +log-per-message-1 +pick +sync -> "
                r"async-double-buffer +n/a .* equivalent: async-double-buffer "
                r"and sync equivalent within ±5% .* \(micro n/a\)$",
                r"^verdict: task_queue \(the micro pick against the "
                r"baseline\): moodycamel's 2\.50x over swap-vector in the "
                r"micro sweep \(queues/eventloop/producers:2/coalesce:1\) "
                r"came out 1\.\d{3}x \[.*\] p 0\.031 end to end on server CPU "
                r"per mib over 6 rounds .*control swap-vector\+slowed, 5000 "
                r"ns per task popped injected, 5000 measured: .*\): held: "
                r"moodycamel ahead of swap-vector .*; "
                r"control detected .*$"):
            self.assertRegex(text, re.compile(pattern, re.M))
        self.assertNotIn("cannot reach p < 0.05 with so few", text)

    def test_defaults_are_marked(self) -> None:
        v, _ = self.run_v(BAD, components=("buffer",), rounds=1,
                          rows_as="rows")
        out = io.StringIO()
        validate_report.print_table(v, out)
        self.assertRegex(out.getvalue(), re.compile(
            r"^buffer +echo-16k +default +linear -> ring +n/a .* n/a +cpu "
            r"+instrument too weak \[default pair\]$", re.M))
        self.assertIn("1 round(s): the exact signed-rank test cannot reach "
                      "p < 0.05", out.getvalue())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--smoke"] and len(sys.argv) == 3:
        sys.exit(smoke(sys.argv[2]))
    unittest.main()
