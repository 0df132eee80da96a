#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/read/validation_rows_test.py
# -----------------------------------------------------------------------------
#
# pingpong.json's validation (read/validation_rows.py) read through its exact
# "outcome" field (outcome.py): the fixture's rows decided by equality, the
# outcome winning over the verdict's words, and a file without the field or
# with an unknown value refused with a clear error (the summary, REPORT.md's
# section, and pick's output say why and how to rerun).

import copy
import json
import os
import unittest
from typing import Any

from pick.testutil import BASIC

from pick import outcome
from pick.read import validation_rows
from pick.report.endtoend import validation_section
from pick.records import PingpongDoc, ValidationRow

# The validation rows of a whole make bench (2026-11-28, its second run:
# every field the writer had then; records and rounds cut to the first few).
ROWS = os.path.join(os.path.dirname(BASIC), "rows", "pingpong.json")


def fixture() -> PingpongDoc:
    with open(os.path.join(BASIC, "pingpong.json")) as f:
        doc: PingpongDoc = json.load(f)
    return doc


def with_rows(*rows: dict[str, Any]) -> PingpongDoc:
    return PingpongDoc(validation=dict(rows=list(rows)))


def row(component: str, outcome: Any, verdict: str = "",
        **extra: Any) -> dict[str, Any]:
    r = dict(component=component, case="c", winner="w", baseline="b",
             micro_ratio=1.2, e2e_ratio=1.1, verdict=verdict or str(outcome),
             outcome=outcome)
    r.update(extra)
    return r


class OutcomeTest(unittest.TestCase):
    def test_the_vocabulary(self) -> None:
        """The closed set validate.py writes and this side reads."""
        self.assertEqual(outcome.VALUES, (
            "held", "equivalent", "not-told-apart", "refuted", "too-weak",
            "nothing-to-validate", "error"))
        self.assertEqual(outcome.FIELD, "outcome")
        for v in outcome.VALUES:
            self.assertEqual(outcome.parse_outcome(v).value, v)

    def test_unknown_value(self) -> None:
        for bad in ("Held", "held (micro n/a)", "confirmed", "", None, 1,
                    True):
            with self.subTest(value=bad):
                with self.assertRaises(outcome.OutcomeError) as cm:
                    outcome.parse_outcome(bad)
                msg = str(cm.exception)
                self.assertIn("unknown outcome %r" % (bad,), msg)
                self.assertIn("held, equivalent, not-told-apart, refuted",
                              msg)


class ValidationTest(unittest.TestCase):
    def test_fixture_rows(self) -> None:
        entries = validation_rows.validation_entries(fixture())
        self.assertEqual([(e.component, e.outcome) for e in entries], [
            ("task_queue", "held"), ("task_queue", "too-weak"),
            ("buffer", "held"), ("buffer", "refuted"),
            ("logger", "nothing-to-validate")])
        self.assertEqual([validation_rows.held(e) for e in entries],
                         [True, False, True, False, False])
        # Every case counted, whatever its outcome.
        self.assertEqual(validation_rows.validation_summary(fixture())[0],
                         "end to end, 4 cases: held 2, equivalent 0, not "
                         "told apart 0, refuted 1, too weak 1, error 0, "
                         "nothing to validate 1 (no implementation but the "
                         "baseline); metric: the server's CPU per unit of "
                         "work in 4")
        self.assertIsNone(validation_rows.validation_problem(fixture()))

    def test_the_field_not_the_words(self) -> None:
        """The verdict text is for people: a row held when its outcome is
        "held", whatever its verdict says."""
        pp = with_rows(
            row("task_queue", "held", "equivalent (micro n/a)"),
            row("buffer", "refuted", "held"),
            row("logger", "not-told-apart", "held, yes, ok"))
        self.assertEqual([validation_rows.held(e)
                          for e in validation_rows.validation_entries(pp)],
                         [True, False, False])
        self.assertEqual(validation_rows.validation_summary(pp)[0],
                         "end to end, 3 cases: held 1, equivalent 0, not "
                         "told apart 1, refuted 1, too weak 0, error 0")

    def test_every_outcome_is_counted(self) -> None:
        """Fed two held cases, an error and a too-weak one for the task
        queue, errors for the buffer and the logger: the three errors are
        in the headline, and each metric is named."""
        pp = with_rows(row("task_queue", "held",
                           metric_kind="latency (ms per round)"),
                       row("task_queue", "held", metric_kind="throughput"),
                       row("task_queue", "error", e2e_ratio=None),
                       row("task_queue", "too-weak",
                           metric_kind="server CPU per mib"),
                       row("buffer", "error", e2e_ratio=None),
                       row("logger", "error", e2e_ratio=None))
        self.assertEqual(validation_rows.validation_summary(pp)[0],
                         "end to end, 6 cases: held 2, equivalent 0, not "
                         "told apart 0, refuted 0, too weak 1, error 3; "
                         "metric: throughput in 1, latency in 1, the "
                         "server's CPU per unit of work in 1")

    def test_each_outcome_alone(self) -> None:
        for value, words in (("held", "held 1"),
                             ("equivalent", "equivalent 1"),
                             ("not-told-apart", "not told apart 1"),
                             ("refuted", "refuted 1"),
                             ("too-weak", "too weak 1"),
                             ("error", "error 1")):
            with self.subTest(outcome=value):
                line = validation_rows.validation_summary(with_rows(
                    row("buffer", value)))[0]
                self.assertTrue(line.startswith("end to end, 1 case: "),
                                line)
                self.assertIn(words, line)
                self.assertEqual(line.split(": ", 1)[1].count(" 1"), 1,
                                 line)

    def test_questions_and_default_pairs_are_named(self) -> None:
        pp = with_rows(
            row("task_queue", "equivalent", question="alternative",
                origin="winners.json",
                metric_kind="server CPU per message"),
            row("buffer", "held", question="default", origin="default",
                metric_kind="server CPU per mib"),
            row("logger", "nothing-to-validate", question="alternative",
                origin="winners.json"))
        self.assertEqual(
            validation_rows.validation_summary(pp)[0],
            "end to end, 2 cases: held 1, equivalent 1, not told apart 0, "
            "refuted 0, too weak 0, error 0, nothing to validate 1 (no "
            "implementation but the baseline); metric: the server's CPU "
            "per unit of work in 2; 1 case asked whether leaving the "
            "baseline matters (the micro pick kept it); 1 case ran a default "
            "pair, not a micro pick")
        section = "\n".join(validation_section(pp))
        self.assertIn("| default pair, not a micro pick |", section)
        self.assertIn("| best alternative (pick kept the baseline) |",
                      section)

    def test_absent(self) -> None:
        self.assertEqual(validation_rows.validation_summary(None),
                         ("validation not run",
                          []))
        self.assertEqual(validation_rows.validation_summary({"echo": []})[0],
                         "validation not run")

    def test_a_file_without_the_field_is_refused(self) -> None:
        pp = fixture()
        for r in pp["validation"]["rows"]:
            del r["outcome"]
        with self.assertRaises(validation_rows.ValidationFormatError) as cm:
            validation_rows.validation_entries(pp)
        msg = str(cm.exception)
        self.assertIn("validation row 1 (task_queue/reply-via-queue) has no "
                      "\"outcome\" field", msg)
        self.assertIn("bazel run -c opt //bench:pingpong -- --validate", msg)
        summary, entries = validation_rows.validation_summary(pp)
        self.assertEqual(summary, "validation unreadable: " + msg)
        self.assertEqual(entries, [])
        section = "\n".join(validation_section(pp))
        self.assertIn("Validation unreadable: validation row 1", section)
        self.assertNotIn("| held", section)

    def test_an_old_no_difference_is_refused(self) -> None:
        """A file from before equivalent / not-told-apart: its rows'
        "no-difference" is an unknown outcome; the error says to rerun."""
        pp = fixture()
        pp["validation"]["rows"][0]["outcome"] = "no-difference"
        msg = validation_rows.validation_problem(pp)
        assert msg is not None
        self.assertIn("validation row 1 (task_queue/reply-via-queue): "
                      "unknown outcome 'no-difference'", msg)
        self.assertIn("rerun the validation: bazel run -c opt "
                      "//bench:pingpong -- --validate", msg)
        self.assertEqual(validation_rows.validation_summary(pp)[1], [])
        self.assertIn("Validation unreadable: validation row 1",
                      "\n".join(validation_section(pp)))

    def test_an_unknown_outcome_is_refused(self) -> None:
        pp = fixture()
        pp["validation"]["rows"][3]["outcome"] = "confirmed"
        with self.assertRaises(validation_rows.ValidationFormatError) as cm:
            validation_rows.validation_entries(copy.deepcopy(pp))
        msg = str(cm.exception)
        self.assertIn("validation row 4 (buffer/echo-16k): unknown outcome "
                      "'confirmed' (one of held, equivalent, "
                      "not-told-apart, refuted, too-weak, "
                      "nothing-to-validate, error)", msg)
        self.assertEqual(validation_rows.validation_problem(pp), msg)
        self.assertEqual(validation_rows.validation_summary(pp),
                         ("validation unreadable: " + msg, []))


class RowTypeTest(unittest.TestCase):
    """One row type: the previous turn's rows load as ValidationRows and
    write back what they held; a field this version does not know is
    refused with the rerun command."""

    def doc(self) -> PingpongDoc:
        with open(ROWS) as f:
            doc: PingpongDoc = json.load(f)
        return doc

    def test_the_previous_files_rows_load_and_write_back(self) -> None:
        doc = self.doc()
        written = doc["validation"]["rows"]
        entries = validation_rows.validation_entries(doc)
        self.assertEqual(len(entries), 6)
        self.assertEqual([(e.component, e.case, e.outcome)
                          for e in entries][:2], [
            ("task_queue", "reply-via-queue-10", "not-told-apart"),
            ("task_queue", "reply-via-queue-1", "too-weak")])
        for e, w in zip(entries, written):
            back = e.to_json()
            self.assertEqual({k: back[k] for k in w}, w)
            # The fields the file lacked are the ones added since, unset.
            self.assertEqual({k: back[k] for k in back if k not in w},
                             dict(model_note=None, error=None, paced=None,
                                  rates=None))
            self.assertEqual(ValidationRow.from_json(back), e)
        self.assertEqual(entries[0].injected_ns("control2"),
                         written[0]["control2_ns"])
        with self.assertRaises(KeyError):
            entries[0].injected_ns("winner")
        with self.assertRaises(KeyError):
            entries[0].set_side("nobody", "runs", [])

    def test_an_unknown_field_is_refused_with_the_rerun(self) -> None:
        doc = self.doc()
        doc["validation"]["rows"][2]["sides"] = {}
        msg = validation_rows.validation_problem(doc)
        assert msg is not None
        self.assertIn("validation row 3 (buffer/header-growing): unknown "
                      "key sides; rerun the validation: bazel run -c opt "
                      "//bench:pingpong -- --validate", msg)
        self.assertEqual(validation_rows.validation_summary(doc)[1], [])

    def test_an_early_files_null_takes_the_default(self) -> None:
        r = ValidationRow.from_json(dict(component="buffer", case=None,
                                         rounds=None, blocks=None))
        self.assertEqual((r.case, r.rounds, r.blocks), ("-", [], 1))
        with self.assertRaises(ValueError):
            ValidationRow.from_json(dict(case="c"))


if __name__ == "__main__":
    unittest.main()
