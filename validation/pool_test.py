#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/pool_test.py
# -----------------------------------------------------------------------------
#
# The thread pool's validation (component "thread_pool") on fixture files:
# the case's flags, its path to wrk and its control; the control's count
# read from the pool's stop line; the micro metric (the hand-off latency's
# p50 at 1 submitter) from testdata/threadpool.json and
# testdata/confirm/threadpool.json; the winners entry and its fallback to
# DEFAULTS; a whole case on FakeRuns (run_test.py) through the prediction
# and the load map; the case's cap on the profile's budget.

from __future__ import annotations

import io
import os
import tempfile
import unittest
from typing import Any
from unittest import mock

from pick.records import ValidationRow
from servers.driver import procs
from servers.http import run as http_run
from validation import kinds
from validation import loadmap
from validation import micro
from validation import run as validate
from validation.cases import (CASES, CONTROL_FRACTION, CONTROLS, DEFAULTS,
                              Outcome, load_winners, profile_cases)
from validation.rounds import ops_of, set_outcome, side_flags, size_control
from validation.run_test import GOOD, TESTDATA, FakeRuns, Harness

GROUP = "threadpool/latency/submitters:1"
# The HTTP server's stop lines with a pool (servers/http/server.cc): the
# 503 count must not pass for the submits.
STOP = ("server: loop 0: connections 1, replies 1200, busy polls 0\n"
        "server: stopped; connections 1, replies 1200 (200: 1200, 404: 0)\n"
        "server: pool mutex: tasks run 1199, failed submits 0, inline runs "
        "0, task failures 0, replies dropped (connection gone) 0, 503 "
        "replies 0")


class PoolRuns(FakeRuns):
    """FakeRuns with the pool's stop line after the server's."""

    def __call__(self, server: procs.Server, client: str, tmp: str,
                 p: procs.Point, pin: str) -> dict[str, Any]:
        rec = super().__call__(server, client, tmp, p, pin)
        rec["server_log"] += "\nserver: pool p: tasks run %d, 503 replies " \
            "0" % (self.data["ops_per_s"] * p.seconds)
        return rec


def pool_case() -> dict[str, Any]:
    return profile_cases("thread_pool", "default")[0]


class CaseTest(unittest.TestCase):
    def row(self) -> ValidationRow:
        entries, _ = load_winners(GOOD)
        return validate.new_row("thread_pool", pool_case(),
                                entries["thread_pool"], "queue-bounded-mpmc",
                                "pick")

    def test_the_default_case(self) -> None:
        case = pool_case()
        self.assertEqual(case["name"], "http-pool")
        self.assertEqual((case["kind"], case["protocol"], case["path"]),
                         ("http", "http", "/work"))
        self.assertEqual((case["threads"], case["sessions"],
                          case["server_cores"]), (1, 1, 2))
        self.assertLessEqual(case["budget_s"]["default"], 60.0)
        self.assertEqual(profile_cases("thread_pool", "first"), [case])
        self.assertEqual([c["name"] for c in CASES["thread_pool"]],
                         ["http-pool", "http-pool-50"])

    def test_flags_of_each_side(self) -> None:
        row = self.row()
        self.assertEqual(row.baseline_flags, [
            "--pool=mutex", "--pool_threads=1", "--work_ns=20000"])
        self.assertEqual(row.winner_flags[0], "--pool=queue-bounded-mpmc")
        self.assertEqual(row.control, "mutex+slowed")
        # Unsized, the control is the baseline; sized from the first
        # baseline run's CPU per submit (the pool's tasks run).
        self.assertEqual(row.control_flags, row.baseline_flags)
        ops = ops_of("thread_pool", "http", STOP)
        self.assertEqual(ops, 1199.0)
        self.assertIsNone(size_control(row, dict(ops=ops,
                                                 server_cpu_s=0.03)))
        # The case's own fraction (25%: a 10% control went undetected).
        assert row.control_fraction is not None
        self.assertEqual(row.control_fraction, 0.25)
        self.assertGreater(row.control_fraction, CONTROL_FRACTION)
        ns = round(row.control_fraction * 0.03e9 / 1199)
        self.assertEqual(row.control_ns, ns)
        self.assertEqual(side_flags(row, "control2", "FILE"), [
            "--pool=mutex", "--pool_slowdown_ns=%d" % (2 * ns),
            "--pool_threads=1", "--work_ns=20000"])
        self.assertEqual((row.control_cost or {})["op"], "task submitted")
        # No pool line, no count: the control cannot be sized.
        self.assertIsNone(ops_of("thread_pool", "http", STOP.rsplit(
            "\n", 1)[0]))
        self.assertEqual(CONTROLS["thread_pool"].flags(7),
                         ["--pool_slowdown_ns=7"])

    def test_the_logger_counts_replies_not_503s(self) -> None:
        """The access log's control counts the server's replies; the pool
        line's "503 replies 0" after it must not be read instead (it was,
        and sized no control: make bench of 2026-11-28)."""
        self.assertEqual(ops_of("logger", "http", STOP), 1200.0)

    def test_the_path_reaches_wrk(self) -> None:
        got: list[tuple[http_run.ServerSpec, http_run.PointSpec]] = []

        def run_point(spec: http_run.ServerSpec, wrk: str,
                      pt: http_run.PointSpec, pin: http_run.Pinning,
                      pointdir: str) -> http_run.PointRecord:
            got.append((spec, pt))
            return http_run.PointRecord(
                server=spec.name, access_log=False, threads=pt.threads,
                connections=pt.connections, wrk_threads=pt.wrk_threads,
                seconds=pt.seconds, repetition=0, error="fake")
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(http_run, "run_point", run_point), \
                mock.patch.object(procs, "resolve", lambda spec: spec):
            s = kinds.Settings("client", "no", 0.2, tmp)
            flags = ["--pool=mutex", "--pool_threads=1"]
            kinds.run("x", flags, pool_case(), s)
            logger = [c for c in CASES["logger"]
                      if c["name"] == "http-access-log"][0]
            kinds.run("y", [], logger, s)
        self.assertEqual(got[0][1].path, "/work")
        self.assertEqual(got[0][1].connections, 1)
        self.assertEqual(got[0][0].flags, tuple(flags))
        self.assertEqual(got[1][1].path, http_run.PATH)


class MetricTest(unittest.TestCase):
    def test_the_hand_off_at_one_submitter(self) -> None:
        for spare in (True, False):
            m, why = micro.metric_for("thread_pool", spare)
            self.assertEqual((m.key, m.scenario), ("handoff", "latency"))
            self.assertIn("hand-off", why)
        mc = micro.micro_costs(TESTDATA, "thread_pool", GROUP, 0, False)
        self.assertEqual(mc.params, {"submitters": 1})
        # The sweep per round; 4 submitters, the tiny tasks and the
        # errored run left out.
        self.assertEqual(mc.sweep, {
            "asio": {1: 32000.0, 2: 33000.0, 3: 31000.0},
            "mutex": {1: 31000.0, 2: 30000.0, 3: 32000.0},
            "queue-bounded-mpmc": {1: 400.0, 2: 420.0, 3: 380.0}})
        self.assertEqual(mc.confirm, {
            "mutex": {1: 30000.0, 2: 30500.0},
            "queue-bounded-mpmc": {1: 500.0, 2: 520.0}})
        self.assertEqual(mc.source_of("queue-bounded-mpmc", "mutex"),
                         "confirm")
        self.assertEqual(mc.source_of("asio", "mutex"), "sweep")
        self.assertTrue(mc.files["sweep"].endswith("threadpool.json"))


class WinnersTest(unittest.TestCase):
    def load(self, text: str) -> tuple[dict[str, Any], list[str]]:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            f.write(text)
            f.flush()
            return load_winners(f.name)

    def test_the_entry_and_its_fallback(self) -> None:
        e, _ = load_winners(GOOD)
        pool = e["thread_pool"]
        self.assertEqual((pool["winner"], pool["baseline"], pool["origin"]),
                         ("queue-bounded-mpmc", "mutex", "winners.json"))
        self.assertEqual((pool["micro_ratio"], pool["source"],
                          pool["metric"]), (77.5, GROUP, "p50_ns"))
        self.assertEqual(pool["micro_ratios"]["asio"], 0.97)
        d = DEFAULTS["thread_pool"]
        self.assertEqual((d["winner"], d["baseline"]),
                         ("queue-bounded-mpmc", "mutex"))
        # A file from before the pool had an entry: the default pair.
        e, notes = self.load('{"reactor": {"buffer": {"winner": "ring"}}}')
        self.assertEqual((e["thread_pool"]["winner"],
                          e["thread_pool"]["baseline"],
                          e["thread_pool"]["origin"]),
                         ("queue-bounded-mpmc", "mutex", "default"))
        self.assertIn("thread_pool: no entry in winners.json: default "
                      "queue-bounded-mpmc vs mutex", notes)
        e, notes = self.load('{"reactor": {"thread_pool": "asio"}}')
        self.assertEqual(e["thread_pool"]["origin"], "default")
        self.assertTrue(any(n.startswith("thread_pool: malformed entry")
                            for n in notes), notes)
        e, _ = self.load('{"reactor": {"thread_pool": {"winner": "tbb"}}}')
        self.assertEqual((e["thread_pool"]["winner"],
                          e["thread_pool"]["baseline"]), ("tbb", "mutex"))
        e, _ = load_winners(os.path.join(TESTDATA, "no-such.json"))
        self.assertEqual(e["thread_pool"]["origin"], "default")


class WholeCaseTest(Harness):
    def test_a_case_on_fake_servers(self) -> None:
        fake = PoolRuns()
        v, out = self.run_v(GOOD, fake, components=("thread_pool",))
        row = v["rows"][0]
        self.assertEqual((row["component"], row["case"], row["question"]),
                         ("thread_pool", "http-pool", "pick"))
        self.assertEqual(len(row["rounds"]), 6)
        cost = row["control_cost"]
        self.assertEqual(cost["flag"], "--pool_slowdown_ns")
        self.assertIsNotNone(cost["measured_ns"])
        flags = {name: f for comp, name, f in fake.calls}
        self.assertIn("--pool=queue-bounded-mpmc",
                      flags["queue-bounded-mpmc"])
        self.assertTrue(any(f.startswith("--pool_slowdown_ns=")
                            for f in flags["mutex+slowed x2"]))
        m = row["model"]
        self.assertEqual((m["metric"], m["micro_from"]),
                         ("handoff", "confirm"))
        self.assertEqual(m["micro_params"], {"submitters": 1})
        self.assertEqual(m["predicted"]["queue-bounded-mpmc"]["source"],
                         "confirm")
        self.assertEqual(m["predicted"]["asio"]["source"], "sweep")
        self.assertIn("thread_pool/http-pool: the baseline mutex", out)
        # The load map: the HTTP server's points, no message size.
        lm = v["loadmap"]["components"]["thread_pool"]
        self.assertEqual([(p["block"], p["loops"]) for p in lm["points"]],
                         [(0, 1)])
        self.assertNotIn("byte", lm["sentence"])
        self.assertIn("GET /work", lm["workload"])


class BudgetTest(unittest.TestCase):
    def test_the_case_keeps_to_its_cap(self) -> None:
        """The default profile gives every case a share of what is left of
        the budget; the pool's case at most its budget_s over the blocks."""
        got: list[tuple[str, float]] = []

        def run_case(run: Any, row: ValidationRow, case: dict[str, Any],
                     budget_s: float, block: int = 0) -> None:
            got.append((case["name"], budget_s))
            set_outcome(row, Outcome.ERROR)
            row.sentence = "-"
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(validate, "run_case", run_case):
            validate.run_validation(
                "client", "default", "no", GOOD, log_parent=tmp,
                components=("logger", "thread_pool"), loadmap=False,
                out=io.StringIO())
        pool = [b for name, b in got if name == "http-pool"]
        others = [b for name, b in got if name != "http-pool"]
        self.assertEqual(pool, [30.0, 30.0])
        self.assertTrue(all(b > 30.0 for b in others), others)


class LoadMapTest(unittest.TestCase):
    def test_the_pools_points(self) -> None:
        g = loadmap.grid("default")
        self.assertEqual(loadmap.axes("thread_pool", g), ((1,), (0,)))
        self.assertEqual(loadmap.axes("buffer", g), (g["loops"], g["block"]))
        case = loadmap._case("thread_pool", 100, 0, 1)
        self.assertEqual((case["kind"], case["path"], case["sessions"],
                          case["server_cores"]), ("http", "/work", 100, 2))
        self.assertIn("--pool_threads=1", case["flags"])
        self.assertEqual(kinds.kind_of(case).work, "request")
        pt = dict(sessions=1, block=0, loops=1, standing="behind-beyond",
                  predicted=dict(est=0.8, low=0.7, high=0.9))
        self.assertEqual(
            loadmap.sentence("thread_pool", [pt], 0.05),
            "thread_pool: would matter (worse by more than 5%) at 1 of 1 "
            "points, from about 1 session(s), 1 loop(s) (predicted 0.800x "
            "[0.700, 0.900])")


if __name__ == "__main__":
    unittest.main()
