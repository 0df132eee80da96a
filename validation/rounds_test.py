#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/rounds_test.py
# -----------------------------------------------------------------------------
#
# The validation's questions and rounds on fixture runs (run_test.py's
# FakeRuns): the candidate when the micro pick kept the baseline (its best
# alternative, or nothing to validate), the rounds' Williams order (each
# side after each other equally often), the control sized from the first
# baseline run (and an error when the stop line has no count), and when a
# case stops: once the candidate's interval is narrow enough for the
# margin and the control detected, at the maximum, or when its share of the
# budget is spent.

from __future__ import annotations

import collections
import io
import json
import os
import shutil
import unittest
from typing import Any
from unittest import mock

from servers.driver import procs
from validation import run as validate
from pick.records import SIDES
from validation.rounds import ORDERS, order
from validation.cases import PROFILES
from validation.decide import MIN_TARGET_ROUNDS
from validation.predict_test import bench, write
from validation.run_test import GOOD, FakeRuns, Harness, Result


class WilliamsTest(Harness):
    def test_the_orders_are_balanced(self) -> None:
        """Over four rounds: a Latin square (each side once in each
        position, once in each round), each side right after each other
        side exactly once within the rounds, never after itself."""
        self.assertEqual(len(ORDERS), len(SIDES))
        self.assertEqual(ORDERS[0][0], "baseline")
        for o in ORDERS:
            self.assertEqual(sorted(o), sorted(SIDES))
        for pos in range(len(SIDES)):
            self.assertEqual(collections.Counter(o[pos] for o in ORDERS),
                             {s: 1 for s in SIDES})
        within = collections.Counter(
            (o[i], o[i + 1]) for o in ORDERS for i in range(len(o) - 1))
        self.assertEqual(within, {(a, b): 1 for a in SIDES for b in SIDES
                                  if a != b})
        self.assertEqual([order(r) for r in range(8)], list(ORDERS) * 2)

    def test_the_runs_follow_the_orders(self) -> None:
        fake = FakeRuns()
        v, _ = self.run_v(GOOD, fake, components=("task_queue",))
        recs = v["rows"][0]["records"]
        self.assertEqual([r["side"] for r in recs],
                         [s for rnd in range(6) for s in order(rnd)])
        self.assertEqual(len(recs), 6 * len(SIDES))


class PredictTest(Harness):
    def test_rows_say_why_and_the_load_map_runs(self) -> None:
        """No micro file beside the fixture winners: each measured row
        says why it has no prediction; the load map ran each pair."""
        v, out = self.run_v(GOOD, FakeRuns())
        rows = {r["component"]: r for r in v["rows"]}
        for r in v["rows"]:
            self.assertIsNone(r["model"])
            self.assertIn("no micro cost of the baseline", r["model_note"])
        self.assertIn("[predict] task_queue/reply-via-queue-10: no "
                      "prediction", out)
        lm = v["loadmap"]
        self.assertEqual(sorted(lm["components"]),
                         ["buffer", "logger", "task_queue"])
        for comp, e in lm["components"].items():
            self.assertEqual(e["baseline"], rows[comp]["baseline"])
            self.assertEqual(e["candidate"], rows[comp]["winner"])
            self.assertEqual(len(e["points"]), 1)  # the smoke grid
            self.assertIn("no point of the grid", e["sentence"])
            self.assertIsNone(e["check"])

    def test_with_micro_costs_the_rows_predict(self) -> None:
        """Micro costs beside winners.json: the task queue's row and its
        load map predict (validate_predict_test checks the figures on
        exact fixtures; FakeRuns' controls also lose throughput)."""
        winners = os.path.join(self.tmp, "winners.json")
        shutil.copy(GOOD, winners)
        write(os.path.join(self.tmp, "queues.json"), [
            bench("queues/eventloop/%s/producers:2/coalesce:1/iterations:1"
                  % impl, r, cpu_ns_per_item=c) for r in range(1, 6)
            for impl, c in (("swap-vector", 500.0), ("moodycamel", 400.0))])
        v, out = self.run_v(winners, FakeRuns(), components=("task_queue",))
        m = v["rows"][0]["model"]
        self.assertGreater(m["exchange_rate"]["est"], 0.0)
        # moodycamel's 100 ns less per task predicts it cheaper.
        self.assertGreater(m["candidate"]["est"], 1.0)
        self.assertEqual(m["candidate"]["source"], "sweep")
        self.assertIn("[predict] task_queue/reply-via-queue-10: the "
                      "baseline swap-vector is", out)
        e = v["loadmap"]["components"]["task_queue"]
        self.assertIsNotNone(e["points"][0]["predicted"])
        self.assertIn("words", e["check"])
        # One round (the smoke profile's): no interval, so no check, and
        # the lines still print.
        v, out = self.run_v(winners, FakeRuns(), components=("task_queue",),
                            rounds=1)
        self.assertIsNone(v["rows"][0]["model"]["check"])
        self.assertIn("(no interval): not checked", out)


class RoundsTest(Harness):
    def test_the_rounds_rotate_and_the_control_is_sized_first(self) -> None:
        fake = FakeRuns()
        v, _ = self.run_v(GOOD, fake, components=("task_queue",))
        self.assertEqual([c[1] for c in fake.calls[:8]], [
            "swap-vector", "moodycamel", "swap-vector+slowed x2",
            "swap-vector+slowed", "moodycamel", "swap-vector+slowed",
            "swap-vector", "swap-vector+slowed x2"])
        self.assertEqual(fake.calls[1][2],
                         ["--task_queue=moodycamel", "--reply_via_queue"])
        self.assertEqual(fake.calls[3][2],
                         ["--task_queue=swap-vector",
                          "--task_queue_slowdown_ns=5000",
                          "--reply_via_queue"])
        self.assertEqual(fake.calls[2][2],
                         ["--task_queue=swap-vector",
                          "--task_queue_slowdown_ns=10000",
                          "--reply_via_queue"])
        recs = v["rows"][0]["records"]
        self.assertEqual([(r["round"], r["side"]) for r in recs[:8]], [
            (0, "baseline"), (0, "winner"), (0, "control2"),
            (0, "control"), (1, "winner"), (1, "control"),
            (1, "baseline"), (1, "control2")])
        self.assertEqual(v["rows"][0]["baseline_flags"],
                         ["--task_queue=swap-vector", "--reply_via_queue"])

    def test_the_logger_and_buffer_controls(self) -> None:
        fake = FakeRuns()
        self.run_v(GOOD, fake, components=("buffer", "logger"), rounds=1)
        by = {c[1]: c[2] for c in fake.calls}
        # The buffer's cost is per KiB consumed: 50 us of CPU per KiB.
        self.assertIn("--buffer_slowdown_ns_per_kib=5000",
                      by["linear+slowed"])
        self.assertEqual(by["sync+slowed"][0], "--logger=sync")
        self.assertRegex(by["sync+slowed"][1], r"^--log_file=.*/\.validate-"
                         r"logs-[^/]*/logger-control\.log$")
        self.assertEqual(by["sync+slowed"][2], "--log_slowdown_ns=5000")

    def test_the_rounds_stop_at_the_target(self) -> None:
        """Quiet rounds: the candidate's interval is narrow at once, but
        the target waits for MIN_TARGET_ROUNDS."""
        quiet = FakeRuns(values={"moodycamel": [120.0, 121.0, 119.0],
                                 "swap-vector": [100.0, 100.5, 99.5]})
        v, _ = self.run_v(GOOD, quiet, components=("task_queue",), rounds=0,
                          profile="default", budget_s=1e6)
        self.assertEqual([r["case"] for r in v["rows"]],
                         ["reply-via-queue-10", "reply-via-queue-1"])
        for r in v["rows"]:
            # Block 1 on its own target, block 2 its minimum (6 rounds).
            self.assertEqual((len(r["rounds"]), r["stop"]),
                             (MIN_TARGET_ROUNDS + 6, "target"))
            self.assertEqual(r["blocks"], 2)
            self.assertLessEqual(r["e2e90"]["high"] / r["e2e90"]["low"],
                                 1.05)
            self.assertEqual(r["outcome"], "held")

    def test_the_target_needs_the_control_detected(self) -> None:
        """A quiet candidate, a control whose CPU per unit swings 20% either
        side of the baseline's: the interval is narrow at once, but the
        rounds go on while they cannot tell the control apart."""
        quiet = FakeRuns(values={"moodycamel": [120.0, 121.0, 119.0],
                                 "swap-vector": [100.0, 100.5, 99.5],
                                 # 1.1 x 1.2 and 1.1 / 1.2 of 100: the
                                 # injected 10% of CPU cancelled on average
                                 "swap-vector+slowed": [132.0, 91.67]})
        v, _ = self.run_v(GOOD, quiet, components=("task_queue",), rounds=0,
                          profile="default", budget_s=1e6)
        row = v["rows"][0]
        self.assertEqual((len(row["rounds"]), row["stop"]),
                         (PROFILES["default"]["max_rounds"], "max_rounds"))
        self.assertLessEqual(row["mde"], 0.05)
        self.assertEqual(row["outcome"], "too-weak")

    def test_noisy_rounds_go_on_to_the_maximum_or_the_budget(self) -> None:
        noisy = {"moodycamel": [100.0, 130.0, 80.0, 125.0, 90.0]}
        v, _ = self.run_v(GOOD, FakeRuns(values=noisy),
                          components=("task_queue",),
                          rounds=0, profile="default", budget_s=1e6)
        self.assertEqual([(len(r["rounds"]), r["stop"]) for r in v["rows"]],
                         [(PROFILES["default"]["max_rounds"], "max_rounds")]
                         * 2)
        self.assertGreater(v["rows"][0]["mde"], 0.05)
        v, _ = self.run_v(GOOD, FakeRuns(values=noisy),
                          components=("task_queue",),
                          rounds=0, profile="default", budget_s=1e-9)
        # Each of the two blocks its minimum rounds.
        self.assertEqual([(len(r["rounds"]), r["stop"]) for r in v["rows"]],
                         [(12, "budget")] * 2)

    def test_a_control_that_cannot_be_sized_is_an_error(self) -> None:
        fake = FakeRuns()

        def no_counts(*a: Any) -> Result:
            rec = fake(*a)
            rec["server_log"] = "server: stopped"
            return rec
        with mock.patch.object(procs, "run_point", no_counts), \
                mock.patch.object(procs, "resolve", lambda spec: spec):
            v = validate.result_json(validate.run_validation(
                "client", "smoke", "no", GOOD, log_parent=self.tmp,
                seconds=0.2, rounds=6, components=("task_queue",),
                out=io.StringIO()))
        row = v["rows"][0]
        self.assertEqual(row["outcome"], "error")
        self.assertIn("cannot size the control", row["error"])
        self.assertEqual(len(row["records"]), 1)

    def test_the_pick_is_the_baseline_without_alternative(self) -> None:
        same = os.path.join(self.tmp, "winners-same.json")
        with open(same, "w") as f:
            json.dump({"reactor": {"buffer": {
                "winner": "linear", "baseline": "linear",
                "micro_ratio": 1.0}}}, f)
        v, _ = self.run_v(same, components=("buffer",))
        self.assertEqual(len(v["rows"]), 1)
        row = v["rows"][0]
        self.assertEqual(row["outcome"], "nothing-to-validate")
        self.assertFalse(row["records"])
        self.assertIn("no implementation but the baseline", row["sentence"])

    def test_the_best_alternative_by_micro_ratio(self) -> None:
        alt = os.path.join(self.tmp, "winners-alt.json")
        with open(alt, "w") as f:
            json.dump({"reactor": {"task_queue": {
                "winner": "swap-vector", "baseline": "swap-vector",
                "micro_ratio": 1.0, "micro_ratios": {
                    "swap-vector": 1.0, "bounded-mpmc": 1.3,
                    "moodycamel": 1.1}}}}, f)
        v, _ = self.run_v(alt, components=("task_queue",))
        row = v["rows"][0]
        self.assertEqual((row["question"], row["winner"], row["micro_ratio"]),
                         ("alternative", "bounded-mpmc", 1.3))
        self.assertEqual(row["outcome"], "not-told-apart")
        self.assertIn("the best alternative against the baseline",
                      row["sentence"])


if __name__ == "__main__":
    unittest.main()
