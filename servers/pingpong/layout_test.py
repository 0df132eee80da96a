#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/pingpong/layout_test.py
# -----------------------------------------------------------------------------
#
# servers/pingpong's Python in layers (the map is in sweep.py's header): a
# module imports only modules of the layers below its own (imports inside
# functions included, parsed with ast), so there are no import cycles and
# sweep.py, the script, is never imported back; each module imports alone in
# a fresh interpreter; pick's outcome is the one module taken from
# there, through validate_cases; and no Python file here is over 400 lines.

from __future__ import annotations

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# The helpers it shares with pick/layers_test.py.
sys.path.append(os.path.join(os.path.dirname(os.path.dirname(HERE)), "pick"))
import layering  # noqa: E402

# Bottom first. Test files (*_test.py) sit above them all.
LAYERS = [
    ["pick.outcome", "pick.margin", "pick.ranks"],
    ["procs", "validate_paired", "msgcost_parse",
     "uring_skip", "hostile_peer", "validate_model", "validate_micro"],
    ["validate_cases", "validate_kinds", "sweep_tables", "side_by_side",
     "latency_point"],
    ["validate_decide", "sweep_paired", "validate_predict",
     "latency_sweep"],
    ["validate_report", "sweep_run", "validate_calibration"],
    ["validate_case"],
    ["validate_loadmap"],
    ["validate"],
    ["sweep", "msgcost"],
]
LAYER = {m: k for k, layer in enumerate(LAYERS) for m in layer}
# pick's modules by their package names (layering.imports).
FROM_PICK = {"pick.outcome", "pick.margin", "pick.ranks"}
MAX_LINES = 400


def module_names() -> list[str]:
    return layering.module_names(HERE)


def imports(name: str) -> set[str]:
    return layering.imports(HERE, name)


class LayoutTest(unittest.TestCase):
    def test_every_module_has_a_layer(self) -> None:
        modules = [m for m in module_names() if not m.endswith("_test")]
        self.assertEqual(sorted(modules), sorted(set(LAYER) - FROM_PICK))

    def test_imports_go_down(self) -> None:
        for name in module_names():
            mine = LAYER.get(name, len(LAYERS))  # tests: above every layer
            for dep in sorted(imports(name) & set(LAYER)):
                with self.subTest(module=name, imports=dep):
                    self.assertLess(
                        LAYER[dep], mine, "%s (layer %d) imports %s (layer "
                        "%d): a module imports only lower layers" % (
                            name, mine, dep, LAYER[dep]))

    def test_outcome_comes_through_validate_cases(self) -> None:
        for name in module_names():
            if name != "validate_cases" and not name.endswith("_test"):
                self.assertNotIn("pick.outcome", imports(name), name)

    def test_only_the_vocabularies_from_pick(self) -> None:
        for name in module_names():
            if not name.endswith("_test"):
                self.assertEqual({m for m in imports(name) if m == "pick" or
                                  m.startswith("pick.")} - FROM_PICK, set(),
                                 name)

    def test_the_bottom_is_standard_library_only(self) -> None:
        third = {m for m in imports("procs")
                 if m not in sys.stdlib_module_names and m != "__future__"}
        self.assertEqual(third, set())

    def test_each_module_imports_alone(self) -> None:
        """In a fresh interpreter each module imports, loading only itself
        and modules of lower layers (sweep.py's main does not run)."""
        for name in sorted(set(LAYER) - FROM_PICK):
            with self.subTest(module=name):
                rc, err, loaded = layering.loaded_alone(HERE, name)
                self.assertEqual(rc, 0, err)
                self.assertEqual({m for m in loaded & set(LAYER)
                                  if m != name and
                                  LAYER[m] >= LAYER[name]}, set(), name)

    def test_files_are_short(self) -> None:
        self.assertEqual(layering.files_over(HERE, MAX_LINES), [])


if __name__ == "__main__":
    unittest.main()
