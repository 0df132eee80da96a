# -----------------------------------------------------------------------------
# pick/decide/server_answer_test.py
# -----------------------------------------------------------------------------
#
# The answer per component and workload: measured end to end beats a
# consistent prediction, which beats the micro pick; a refuted candidate is
# never chosen, at its workload or (untested) elsewhere; the reactor entry
# loses a refuted winner; the load map's words; and the fixture's answers.

from __future__ import annotations

import json
import os
import shutil
import tempfile
import unittest
from typing import Any

from pick.read import sweeps
from pick.analysis import Settings, analyse
from pick.decide.server_answer import answers, load_words, workload_of
from pick.records import ValidationRow
from pick.decide.workloads import Workload
from pick.testutil import BASIC


def row(case: str, outcome: str, winner: str = "async",
        baseline: str = "sync", comp: str = "logger",
        protocol: str = "echo", **extra: Any) -> ValidationRow:
    return ValidationRow(component=comp, case=case, outcome=outcome,
                         winner=winner, baseline=baseline,
                         protocol=protocol, verdict=outcome,
                         e2e=dict(ratio=0.9, low=0.85, high=0.95), **extra)


def picked(adopted: bool = True) -> Any:
    entry = dict(winner="async" if adopted else "sync", baseline="sync",
                 adopted=adopted, leader="async", verdict="async ahead",
                 note=None if adopted else "kept the baseline sync: async "
                 "leads, not ahead (within: ...)")
    return dict(reactor=dict(logger=entry), min_margin=0.05)


def by(found: list[Any]) -> dict[str, Any]:
    return {a.workload: a for a in found}


class AnswerTest(unittest.TestCase):
    def test_refuted_keeps_the_baseline_everywhere(self) -> None:
        got = by(answers(picked(), [row("per-message", "refuted")]))
        self.assertEqual(got["pingpong"].choice, "sync")
        self.assertEqual(got["pingpong"].basis, "end to end")
        self.assertEqual(got["pingpong"].refuted, "async")
        # Not measured at the access log: the micro pick would say async,
        # but a refuted candidate is not put in anywhere untested.
        self.assertEqual(got["http-log"].basis, "micro only")
        self.assertEqual(got["http-log"].choice, "sync")
        self.assertIn("refuted end to end at ping-pong", got["http-log"].why)

    def test_held_takes_the_candidate_where_it_held(self) -> None:
        got = by(answers(picked(False), [
            row("access", "held", protocol="http")]))
        self.assertEqual(got["http-log"].choice, "async")
        self.assertEqual(got["http-log"].basis, "end to end")
        self.assertEqual(got["pingpong"].choice, "sync")  # micro: kept
        self.assertTrue(got["pingpong"].why.startswith("micro only"))

    def test_refuted_beats_held_at_one_workload(self) -> None:
        got = by(answers(picked(), [row("a", "held"), row("b", "refuted")]))
        self.assertEqual(got["pingpong"].choice, "sync")
        self.assertIn("also a held", got["pingpong"].why)

    def test_equivalent_keeps_the_baseline(self) -> None:
        got = by(answers(picked(), [row("a", "equivalent")]))
        self.assertEqual(got["pingpong"].choice, "sync")
        self.assertIn("buys nothing", got["pingpong"].why)

    def test_a_consistent_prediction_decides_when_unmeasured(self) -> None:
        model = dict(check=dict(outcome="consistent",
                                gamma=dict(est=1.0, low=0.8, high=1.3)),
                     predicted=dict(est=1.2, low=1.1, high=1.3))
        got = by(answers(picked(False), [
            row("a", "not-told-apart", model=model)]))
        self.assertEqual(got["pingpong"].basis, "predicted")
        self.assertEqual(got["pingpong"].choice, "async")
        model["check"]["outcome"] = "uninformative"  # type: ignore[index]
        got = by(answers(picked(False), [
            row("a", "not-told-apart", model=model)]))
        self.assertEqual(got["pingpong"].basis, "micro only")
        self.assertEqual(got["pingpong"].choice, "sync")

    def test_another_baseline_is_other_evidence(self) -> None:
        got = by(answers(picked(), [row("a", "refuted", baseline="x")]))
        self.assertEqual(got["pingpong"].basis, "micro only")
        self.assertEqual(got["pingpong"].choice, "async")

    def test_predicted_harm_keeps_the_baseline(self) -> None:
        """A micro-only win that the load map predicts worse than the
        baseline by more than the margin is not put in, nor adopted."""
        pts = [dict(sessions=1, standing="equivalent"),
               dict(sessions=10, standing="behind-beyond")]
        lm = dict(components=dict(logger=dict(
            candidate="async", baseline="sync", points=pts,
            check=dict(sessions=10, outcome="uninformative"))))
        got = by(answers(picked(), [], lm))
        self.assertEqual(got["pingpong"].choice, "sync")
        self.assertEqual(got["pingpong"].harmful, "async")
        self.assertIn("predicts sync ahead by more than 5% at 1 of 2 loads, "
                      "from about 10 sessions", got["pingpong"].why)
        self.assertEqual(got["http-log"].choice, "sync")
        # A map of another pair is other evidence; a map that predicts no
        # harm leaves the micro pick in.
        lm["components"]["logger"]["baseline"] = "other"
        self.assertEqual(by(answers(picked(), [], lm))["pingpong"].choice,
                         "async")
        lm["components"]["logger"]["baseline"] = "sync"
        pts[1]["standing"] = "equivalent"
        self.assertEqual(by(answers(picked(), [], lm))["pingpong"].choice,
                         "async")

    def test_workload_of(self) -> None:
        self.assertEqual(workload_of(row("a", "held", protocol="chat")),
                         "chat")
        self.assertEqual(workload_of(row("a", "held", protocol="http")),
                         "http-log")
        self.assertEqual(workload_of(row("a", "held", comp="buffer",
                                         protocol="http")), "http")
        self.assertEqual(workload_of(row("a", "held", protocol="header")),
                         "pingpong")

    def test_load_words(self) -> None:
        pts = [dict(sessions=s, standing=st) for s, st in (
            (1, "equivalent"), (10, "behind-beyond"), (100, "behind-beyond"))]
        text = load_words(dict(candidate="async", baseline="sync",
                               points=pts, check=dict(
                                   sessions=10, outcome="consistent")), 0.05)
        self.assertEqual(text, "load map (echo): within 5% up to about 10 "
                         "sessions; from there, sync predicted ahead by more "
                         "than 5% (2 of 3 points); the map's check at 10 "
                         "sessions: consistent")
        pts[0]["sessions"] = "ten"  # malformed: read as 0, no crash
        self.assertIn("within 5% up to about 10", str(load_words(dict(
            candidate="async", baseline="sync", points=pts), 0.05)))
        self.assertIsNone(load_words(None, 0.05))


class FixtureTest(unittest.TestCase):
    def analyse(self, directory: str) -> Any:
        loaded, problems = sweeps.load_dir(directory)
        settings = Settings(results_dir=directory, out_dir=directory,
                            alpha=0.05, margin=0.05, charts=False)
        return analyse(settings, Workload(), loaded, tuple(problems))

    def test_basic(self) -> None:
        a = self.analyse(BASIC)
        found = {(x.component, x.workload): x for x in a.answers}
        tq = found[("task_queue", "pingpong")]
        self.assertEqual((tq.choice, tq.basis), ("moodycamel", "end to end"))
        self.assertNotIn(("buffer", "pingpong"), found)  # no buffer.json
        self.assertEqual(a.picked["reactor"]["task_queue"]["winner"],
                         "moodycamel")
        json.dumps([x.as_json() for x in a.answers])

    def test_a_refuted_winner_leaves_the_reactor(self) -> None:
        tmp = tempfile.mkdtemp()
        try:
            for name in os.listdir(BASIC):
                if name.endswith(".json"):
                    shutil.copy(os.path.join(BASIC, name), tmp)
            path = os.path.join(tmp, "pingpong.json")
            with open(path) as f:
                doc = json.load(f)
            doc["validation"]["rows"][0]["outcome"] = "refuted"
            with open(path, "w") as f:
                json.dump(doc, f)
            a = self.analyse(tmp)
        finally:
            shutil.rmtree(tmp)
        e = a.picked["reactor"]["task_queue"]
        self.assertEqual((e["winner"], e["adopted"], e["leader"]),
                         ("swap-vector", False, "moodycamel"))
        self.assertIn("refuted end to end", e["note"])


if __name__ == "__main__":
    unittest.main()
