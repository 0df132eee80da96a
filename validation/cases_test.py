#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/cases_test.py
# -----------------------------------------------------------------------------
#
# cases.py on its own: winners files of odd shapes fall back per
# component and never raise; every outcome has its words; every component
# has a positive control and every case a known workload.

from __future__ import annotations

import tempfile
import unittest
from typing import Any

from validation import kinds as validate_kinds
from validation.rounds import ops_of
from validation.cases import (CASES, COMPONENTS, CONTROLS, PROFILES,
                              VERDICT, Outcome, candidate_of, load_winners,
                              profile_cases, verdict)


class WinnersAndRuleTest(unittest.TestCase):
    def load(self, text: str) -> tuple[dict[str, Any], list[str]]:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            f.write(text)
            f.flush()
            return load_winners(f.name)

    def test_load_winners_odd_shapes(self) -> None:
        """Never raises, falls back per component."""
        e, notes = self.load("[1, 2]")
        self.assertTrue(all(x["origin"] == "default" for x in e.values()))
        self.assertTrue(notes)
        e, notes = self.load(
            '{"reactor": {"buffer": {"winner": "mirrored", "micro_ratio": '
            '"fast"}, "task_queue": "moodycamel", "logger": {"baseline": '
            '"sync"}}}')
        self.assertEqual(e["buffer"], dict(
            winner="mirrored", baseline="linear", micro_ratio=None,
            source=None, cv=None, origin="winners.json", leader=None))
        self.assertEqual(e["task_queue"]["origin"], "default")
        self.assertEqual(e["task_queue"]["winner"], "bounded-mpmc")
        self.assertEqual(e["logger"]["winner"], "async-queue-bounded-mpmc")
        # buffer's baseline, task_queue and logger malformed, no pool.
        self.assertEqual(len(notes), 4, notes)
        e, notes = self.load('{"reactor": {}}')
        self.assertEqual(len(notes), len(COMPONENTS))
        self.assertTrue(all(x["origin"] == "default" for x in e.values()))

    def test_every_outcome_has_its_words(self) -> None:
        self.assertEqual(set(VERDICT), set(Outcome))
        self.assertEqual(VERDICT[Outcome.EQUIVALENT], "equivalent")
        self.assertEqual(VERDICT[Outcome.NOT_TOLD_APART], "not told apart")
        self.assertEqual(verdict(Outcome.HELD, 1.2, "ring ahead of linear "
                                 "by 2.0-8.1%"),
                         "held: ring ahead of linear by 2.0-8.1%")
        self.assertEqual(verdict(Outcome.NOT_TOLD_APART, None, "x"),
                         "not told apart: x (micro n/a)")
        self.assertEqual(verdict(Outcome.TOO_WEAK, None, "x"),
                         "instrument too weak")

    def test_every_case_has_a_control_and_a_workload(self) -> None:
        # whatif's probe site has a control too, and no case of ours.
        self.assertEqual(set(CONTROLS), set(COMPONENTS) | {"probe"})
        for comp in COMPONENTS:
            for case in CASES[comp]:
                with self.subTest(component=comp, case=case["name"]):
                    self.assertIn(case.get("kind", "pingpong"),
                                  ("pingpong", "http", "chat"))
                    kind = validate_kinds.kind_of(case)
                    self.assertTrue(kind.metric and kind.unit and kind.work)
        chat = [c for c in CASES["task_queue"] if c["name"] == "chat-1000"]
        self.assertFalse(validate_kinds.kind_of(
            chat[0]).higher_is_better)  # chat: ms per round

    def test_every_case_can_size_its_control(self) -> None:
        """The control's count is read from the stop line of the case's
        server: every workload a component runs has its pattern."""
        for comp in COMPONENTS:
            for case in CASES[comp]:
                with self.subTest(component=comp, case=case["name"]):
                    self.assertIn(case.get("kind", "pingpong"),
                                  CONTROLS[comp].ops)

    def test_a_library_server_counts_every_components_operations(self
                                                                 ) -> None:
        """components/'s stop line sizes every control (whatif's user
        workload), each count read from its own field."""
        line = ("serverkit components: tasks run 11, bytes in 2048, "
                "log lines 33, pool tasks run 44")
        want = dict(task_queue=11, buffer=2, logger=33, thread_pool=44)
        for comp, n in want.items():
            with self.subTest(component=comp):
                self.assertEqual(ops_of(comp, "user", "x\n" + line), n)

    def test_profiles_pick_cases(self) -> None:
        for comp in COMPONENTS:
            self.assertEqual(profile_cases(comp, "first"), CASES[comp][:1])
            self.assertEqual(profile_cases(comp, "all"), CASES[comp])
            self.assertTrue(profile_cases(comp, "default"))
        for name, p in PROFILES.items():
            with self.subTest(profile=name):
                self.assertLessEqual(p["min_rounds"], p["max_rounds"])
                self.assertIn(p["cases"], ("first", "default", "all"))

    def test_the_candidate_of_each_question(self) -> None:
        e = dict(winner="ring", baseline="linear", origin="winners.json",
                 leader=None, micro_ratios={"ring": 1.1})
        self.assertEqual(candidate_of(e), ("ring", "pick"))
        e.update(winner="linear", leader="mirrored")
        self.assertEqual(candidate_of(e), ("mirrored", "alternative"))
        e.update(leader="linear", micro_ratios={
            "linear": 1.0, "ring": 1.1, "string": 0.9, "mirrored": 1.1})
        # The best by micro ratio; a tie goes to the first name.
        self.assertEqual(candidate_of(e), ("mirrored", "alternative"))
        e.update(leader=None, micro_ratios={"linear": 1.0})
        self.assertEqual(candidate_of(e), (None, "alternative"))
        e.update(origin="default", winner="ring")
        self.assertEqual(candidate_of(e), ("ring", "default"))


if __name__ == "__main__":
    unittest.main()
