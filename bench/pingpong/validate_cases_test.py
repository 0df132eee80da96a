#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pingpong/validate_cases_test.py
# -----------------------------------------------------------------------------
#
# validate_cases.py on its own: winners files of odd shapes fall back per
# component and never raise; every outcome has its words; every component
# has a positive control and every case a known workload.

from __future__ import annotations

import os
import sys
import tempfile
import unittest
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import validate_kinds  # noqa: E402
from validate_cases import (CASES, COMPONENTS, CONTROLS, VERDICT,  # noqa: E402
                            Outcome, load_winners)


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
            source=None, cv=None, origin="winners.json"))
        self.assertEqual(e["task_queue"]["origin"], "default")
        self.assertEqual(e["task_queue"]["winner"], "bounded-mpmc")
        self.assertEqual(e["logger"]["winner"], "async-queue-bounded-mpmc")
        # buffer's baseline, task_queue and logger malformed.
        self.assertEqual(len(notes), 3, notes)
        e, notes = self.load('{"reactor": {}}')
        self.assertEqual(len(notes), 3)
        self.assertTrue(all(x["origin"] == "default" for x in e.values()))

    def test_every_outcome_has_its_words(self) -> None:
        self.assertEqual(set(VERDICT), set(Outcome))
        self.assertEqual(VERDICT[Outcome.NO_DIFFERENCE], "no difference")

    def test_every_case_has_a_control_and_a_workload(self) -> None:
        self.assertEqual(set(CONTROLS), set(COMPONENTS))
        for comp in COMPONENTS:
            for case in CASES[comp]:
                with self.subTest(component=comp, case=case["name"]):
                    self.assertIn(case.get("kind", "pingpong"),
                                  ("pingpong", "http", "chat"))
                    kind = validate_kinds.kind_of(case)
                    self.assertTrue(kind.metric and kind.unit and kind.work)
        self.assertFalse(validate_kinds.kind_of(
            CASES["task_queue"][2]).higher_is_better)  # chat: ms per round


if __name__ == "__main__":
    unittest.main()
