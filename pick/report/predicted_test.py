#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/report/predicted_test.py
# -----------------------------------------------------------------------------
#
# REPORT.md's "Predict, then check" (report/predicted.py, reading through
# read/predictions.py) and the load-map chart (charts/endtoend.py) on
# testdata/predict/pingpong.json: two cases with a model (one with a
# second micro metric, one whose check is inconsistent), one without (its
# note), a nothing-to-validate row, and a load map of two components with an
# uninformative check,
# an error point and malformed points. Also an older file (one line saying
# how to rerun), every leaf of the fixture replaced by a wrong type (no
# exception), and the section and chart in pick's REPORT.md.

import json
import os
import shutil
import unittest
from typing import Any

from pick.testutil import BASIC, HERE, ChartCase, leaves, replaced, report_of

from pick.read import predictions
from pick.charts.endtoend import loadmap_chart
from pick.report.predicted import HEADING, NOT_IN_FILE, predict_section

PREDICT = os.path.join(HERE, "testdata", "predict")


def fixture() -> Any:
    with open(os.path.join(PREDICT, "pingpong.json")) as f:
        return json.load(f)


def text(doc: Any) -> str:
    return "\n".join(predict_section(doc))


class PredictSectionTest(unittest.TestCase):
    def setUp(self) -> None:
        self.md = text(fixture())
        self.lines = self.md.splitlines()

    def test_heading_first(self) -> None:
        self.assertEqual(self.lines[0], HEADING)
        self.assertEqual(HEADING, "## Predict, then check: why a micro "
                         "winner does or does not matter end to end")

    def test_model_rows(self) -> None:
        self.assertIn(
            "| task_queue | reply-via-queue | ns per task, 1 producer "
            "(confirm) | `swap-vector`: 3.6% [2.9, 4.4] of 25000 ns per "
            "message | 1.9 [1.6, 2.2] | 2 [2, 2] task popped per message | "
            "0.95 [0.8, 1.1] | 1.02 [0.95, 1.1]: linear | `moodycamel` "
            "1.015x [1.006, 1.024] (confirm) | 1.012x [1.004, 1.021] p "
            "0.008, n 12 | consistent: measured/predicted 0.997 [0.988, "
            "1.007], inside ±5%; γ 0.8x [0.3, 1.5]; measured 1.012x, "
            "predicted 1.015x |", self.lines)
        self.assertIn(
            "| logger | echo-16k | CPU ns per line, all threads (sweep) | "
            "`sync`: 12% [10, 14] of 30000 ns per message | 3.1 [2.7, 3.6] "
            "| 1 [1, 1] log line per message | 3.1 [2.7, 3.6] | 1.4 [1.2, "
            "1.6]: not linear | `async` 1.040x [1.020, 1.060] (sweep) | "
            "1.100x [1.070, 1.130] p 0.002, n 10 | inconsistent: the server "
            "pays 2.4x [1.6, 3.5] the micro cost difference (γ); measured "
            "1.100x, predicted 1.040x; the micro metric that failed: CPU "
            "per line |", self.lines)
        self.assertIn("**Checks: 1 consistent, 1 inconsistent, 0 "
                      "uninformative** (only consistent counts as holding).",
                      self.lines)

    def test_the_tally_counts_all_three_outcomes(self) -> None:
        doc = fixture()
        rows = doc["validation"]["rows"]
        tq = next(r for r in rows if r["component"] == "task_queue")
        for k in range(3):
            extra = json.loads(json.dumps(tq))
            extra["case"] = "extra-%d" % k
            extra["model"]["check"].update(outcome="uninformative",
                                           words="uninformative: γ ...")
            rows.append(extra)
        md = text(doc)
        self.assertIn("**Checks: 1 consistent, 1 inconsistent, 3 "
                      "uninformative** (only consistent counts as holding).",
                      md)

    def test_an_older_check_says_which_rule(self) -> None:
        doc = fixture()
        tq = next(r for r in doc["validation"]["rows"]
                  if r["component"] == "task_queue")
        tq["model"]["check"] = dict(holds=True, within=True, words="holds")
        md = text(doc)
        self.assertIn("| holds (the replaced interval rule; rerun for the "
                      "joint check) |", md)
        self.assertIn("**Checks: 0 consistent, 1 inconsistent, 0 "
                      "uninformative** (only consistent counts as holding). "
                      "1 checked by the replaced interval rule: rerun `bazel "
                      "run -c opt //bench:pingpong -- --validate`.", md)

    def test_row_without_model_shows_its_note(self) -> None:
        self.assertIn(
            "| buffer | echo-16k | - | - | - | - | - | - | - | 0.990x "
            "[0.970, 1.010] p 0.4, n 8 | no prediction: no micro cost of the "
            "baseline linear (ns per KiB) in results/buffer.json |",
            self.lines)
        # The nothing-to-validate row (case "-") is not a case.
        self.assertNotIn("threadpool", self.md)

    def test_which_micro_metric_applies(self) -> None:
        self.assertIn(
            "- logger/echo-16k: on this machine the micro metric is CPU ns "
            "per line, all threads (the server's threads share its cores); "
            "on caller ns per line (it counts only the caller's time, and "
            "the writer thread has no core of its own) the candidate "
            "`async` would be predicted at 1.110x [1.080, 1.140].",
            self.lines)
        self.assertEqual(sum(1 for x in self.lines
                             if x.startswith("- ") and "/" in x[:20]), 1)

    def test_every_implementation_best_first(self) -> None:
        rows = [x for x in self.lines if x.startswith("| task_queue | "
                                                      "reply-via-queue | `")]
        self.assertEqual(rows, [
            "| task_queue | reply-via-queue | `moodycamel` (candidate) | "
            "1.015x [1.006, 1.024] | 310 | confirm |",
            "| task_queue | reply-via-queue | `swap-vector` (baseline) | "
            "1.000x [1.000, 1.000] | 480 | confirm |",
            "| task_queue | reply-via-queue | `mutex-deque` | 0.982x [0.970, "
            "0.993] | 720 | sweep |"])

    def test_where_it_would_matter(self) -> None:
        md = self.md
        self.assertLess(md.index("### Where it would matter"),
                        md.index("- **task_queue**"))
        self.assertIn(
            "- **task_queue** (`moodycamel` vs `swap-vector`; replies "
            "through the task queue): would matter (≥ 5%) from about 100 "
            "sessions with 2 loops. Checked where the predicted effect is "
            "largest (100 sessions, 4096-byte blocks, 2 loop(s)): predicted "
            "1.070x [1.055, 1.090], measured 1.045x [1.020, 1.065] p 0.004, "
            "n 10: uninformative: γ 0.66x [0.35, 1.1], measured/predicted "
            "0.977 [0.951, 1.004] reaches past ±5%; measured 1.045x, "
            "predicted 1.070x.", self.lines)
        self.assertIn(
            "- **logger** (`async` vs `sync`; one log line per message): "
            "matters nowhere in this grid: at most 1.7% (100 sessions, 2 "
            "loops). Not checked end to end.", self.lines)
        # The file's order: the task queue first.
        self.assertLess(md.index("- **task_queue**"),
                        md.index("- **logger**"))
        self.assertIn("on 2 cores: sessions 1, 10, 100, blocks of 4096 "
                      "bytes, 1, 2 loop(s); each point 3 rounds of 0.5 s", md)
        self.assertIn("against the margin m = 5%.", md)

    def test_check_not_run(self) -> None:
        doc = fixture()
        check = doc["validation"]["loadmap"]["components"]["task_queue"][
            "check"]
        check.update(measured=None, outcome=None,
                     words="not checked: the server exited")
        self.assertIn(
            "2 loops. Where the predicted effect is largest (100 sessions, "
            "4096-byte blocks, 2 loop(s), predicted 1.070x [1.055, 1.090]): "
            "not checked: the server exited.", text(doc))
        check.update(measured=dict(ratio=1.06, low=1.03, high=1.09),
                     outcome="consistent", words="",
                     control_detected=False)
        self.assertIn("measured 1.060x [1.030, 1.090]: consistent (the "
                      "control was not detected).", text(doc))
        # A point without a message size (the pool's HTTP points).
        check.update(block=0)
        self.assertIn("largest (100 sessions, 2 loop(s)): predicted",
                      text(doc))

    def test_a_share_past_the_whole_is_explained(self) -> None:
        self.assertNotIn("A share above 100%", self.md)
        doc = fixture()
        pts = doc["validation"]["loadmap"]["components"]["task_queue"][
            "points"]
        pts[0]["share"] = dict(est=3.39, low=2.99, high=3.7)
        self.assertIn("A share above 100% (task_queue) says the micro "
                      "operation, as measured, costs more than the server's "
                      "whole unit of work at that load", text(doc))

    def test_grid_tables(self) -> None:
        tq = self.md[self.md.index("- **task_queue**"):
                     self.md.index("- **logger**")]
        rows = [x for x in tq.splitlines() if x.startswith("| ") and
                x[2].isdigit()]
        # Six points; a string and a point with "ten" sessions left out.
        self.assertEqual(len(rows), 6)
        self.assertEqual(rows[2], "| 100 | 4096 | 1 | 3% [2.5, 3.5] | "
                         "1.012x [1.006, 1.018] | ahead | client-bound |")
        # No standing in the file: from the interval and the margin.
        self.assertEqual(rows[4], "| 10 | 4096 | 2 | 8% [6, 10] | 1.040x "
                         "[1.020, 1.060] | ahead | oversubscribed |")
        self.assertEqual(rows[5], "| 100 | 4096 | 2 | 15% [12, 18] | "
                         "1.070x [1.055, 1.090] | ahead by > 5% | "
                         "oversubscribed |")
        self.assertIn("| 10 | 4096 | 1 | - | - | - | error: server exited "
                      "with status 1 |", self.lines)
        self.assertIn("| 1 | 4096 | 1 | 5% [4, 6] | 1.010x [0.995, 1.025] "
                      "| equivalent ±5% | - |", self.lines)


class OlderAndMalformedTest(unittest.TestCase):
    def test_older_file(self) -> None:
        with open(os.path.join(BASIC, "pingpong.json")) as f:
            old = json.load(f)
        for doc in (old, None, {}, {"validation": None}):
            with self.subTest(doc=type(doc).__name__):
                self.assertEqual(predict_section(doc),
                                 [HEADING, "", NOT_IN_FILE])
        self.assertEqual(NOT_IN_FILE, "Not in this file; rerun `bazel run "
                         "-c opt //bench:pingpong -- --validate`.")

    def test_half_new(self) -> None:
        """Models without a load map, and a load map without models."""
        doc = fixture()
        del doc["validation"]["loadmap"]
        md = text(doc)
        self.assertIn("| task_queue | reply-via-queue |", md)
        self.assertTrue(md.endswith("### Where it would matter\n\n" +
                                    NOT_IN_FILE), md[-200:])
        doc = fixture()
        for r in doc["validation"]["rows"]:
            r.pop("model", None)
            r.pop("model_note", None)
        md = text(doc)
        self.assertIn("Predictions per case: " + NOT_IN_FILE, md)
        self.assertIn("- **task_queue**", md)

    def test_wrong_types_never_raise(self) -> None:
        doc = fixture()
        weird: list[Any] = [
            None, 3, "x", [], {"validation": []},
            {"validation": {"rows": "x", "loadmap": []}},
            {"validation": {"rows": [1, None, {"model": "x"}],
                            "loadmap": {"components": 4}}}]
        for w in weird:
            predict_section(w)
        paths = list(leaves(doc))
        self.assertGreater(len(paths), 300)
        for path in paths:
            values: list[Any] = [None, "x", -1, True, [], {}, float("nan")]
            for value in values:
                try:
                    predict_section(replaced(doc, path, value))
                except Exception as e:  # report which path broke it
                    self.fail("%r = %r: %s: %s" % (
                        path, value, type(e).__name__, e))

    def test_a_point_needs_whole_coordinates(self) -> None:
        pts = predictions.points({"points": [
            {"sessions": True, "block": 1, "loops": 1},
            {"sessions": 2, "block": 1, "loops": 1},
            {"sessions": 1.0, "block": 1, "loops": 1}]})
        self.assertEqual([p["sessions"] for p in pts], [2])


class LoadmapChartTest(ChartCase):
    def test_draws_one_png(self) -> None:
        self.assertEqual(loadmap_chart(fixture(), self.out), "loadmap.png")
        with open(os.path.join(self.out, "loadmap.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_wrong_types(self) -> None:
        doc = fixture()
        lm = doc["validation"]["loadmap"]
        lm.update(margin="x", cores=None)
        tq = lm["components"]["task_queue"]
        tq.update(candidate=5, baseline=None)
        tq["points"][0]["predicted"] = {"est": 1.0, "low": 1.2, "high": 0.9}
        tq["points"][1]["predicted"] = {"est": 0, "low": 0, "high": 0}
        tq["points"][2]["oversubscribed"] = "yes"
        lm["components"]["logger"]["points"] = None
        self.assertEqual(loadmap_chart(doc, self.out), "loadmap.png")

    def test_nothing_without_a_load_map(self) -> None:
        with open(os.path.join(BASIC, "pingpong.json")) as f:
            old = json.load(f)
        broken = fixture()
        broken["validation"]["loadmap"]["components"] = {"a": {"points": 3}}
        for doc in (old, None, {"validation": {"loadmap": 5}}, broken):
            self.assertIsNone(loadmap_chart(doc, self.out))
        self.assertEqual(os.listdir(self.out), [])


class InTheReportTest(unittest.TestCase):
    """pick's REPORT.md places the section after the validation, and the
    chart among the others."""

    def test_report(self) -> None:
        rc, md, tmp = report_of(self, lambda results: shutil.copy(
            os.path.join(PREDICT, "pingpong.json"), results))
        at = md.index(HEADING)
        self.assertLess(md.index("## Validation: "), at)
        self.assertLess(at, md.index("## Machine"))
        self.assertIn("| task_queue | reply-via-queue | ns per task", md)
        if rc == 0:
            self.assertIn("](loadmap.png)", md)
            self.assertTrue(os.path.exists(os.path.join(tmp, "loadmap.png")))


if __name__ == "__main__":
    unittest.main()
