#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pick/layers_test.py
# -----------------------------------------------------------------------------
#
# pick's modules in layers (the map is in pick.py's header): a module may
# import only modules of the layers below its own, never one of its layer or
# above, so there are no import cycles, and a script (pick.py, charts.py)
# is never imported back by what it imports: run as __main__ it is loaded
# once. Checks each module's imports (parsed with ast, imports inside
# functions included) against LAYERS, imports each module alone in a fresh
# interpreter, and keeps every Python file of bench/pick under 400 lines.

import os
import re
import sys
import unittest

import layering

HERE = os.path.dirname(os.path.abspath(__file__))

# Bottom first. Test files (*_test.py, and testutil.py and layering.py,
# which they share) sit above them all.
LAYERS = [
    ["records", "outcome"],
    ["results"],
    ["merge", "spec", "stats", "validation", "paired"],
    ["rounds"],
    ["picking", "tables", "markdown", "plotting"],
    ["winners", "compare", "repro", "report_details", "report_pingpong",
     "report_servers", "charts_micro", "charts_servers"],
    ["report", "charts"],
    ["cli"],
    ["pick"],
]
LAYER = {m: k for k, layer in enumerate(LAYERS) for m in layer}
MAX_LINES = 400


def is_test(name: str) -> bool:
    return name.endswith("_test") or name in ("testutil", "layering")


def module_names() -> list[str]:
    return layering.module_names(HERE)


def imports(name: str) -> set[str]:
    return layering.imports(HERE, name)


class LayersTest(unittest.TestCase):
    def test_every_module_has_a_layer(self) -> None:
        modules = [m for m in module_names() if not is_test(m)]
        self.assertEqual(sorted(modules), sorted(LAYER))

    def test_imports_go_down(self) -> None:
        for name in module_names():
            mine = LAYER.get(name, len(LAYERS))  # tests: above every layer
            for dep in sorted(imports(name) & set(LAYER)):
                with self.subTest(module=name, imports=dep):
                    self.assertLess(
                        LAYER[dep], mine, "%s (layer %d) imports %s (layer "
                        "%d): a module imports only lower layers" % (
                            name, mine, dep, LAYER[dep]))
            if not is_test(name):
                self.assertFalse(imports(name) & {"testutil", "layering"},
                                 name)

    def test_the_bottom_is_standard_library_only(self) -> None:
        for name in LAYERS[0] + LAYERS[1]:
            third = {m for m in imports(name) - set(LAYER)
                     if m not in sys.stdlib_module_names and
                     m != "__future__"}
            self.assertEqual(third, set(), name)

    def test_each_module_imports_alone(self) -> None:
        """In a fresh interpreter each module imports, loading only itself
        and modules of lower layers (pick.py's main does not run)."""
        for name in sorted(LAYER):
            with self.subTest(module=name):
                rc, err, loaded = layering.loaded_alone(HERE, name)
                self.assertEqual(rc, 0, err)
                ours = loaded & set(LAYER)
                self.assertEqual({m for m in ours if m != name and
                                  LAYER[m] >= LAYER[name]}, set(), name)
                if LAYER[name] <= 1:
                    self.assertFalse({"scipy", "matplotlib", "numpy"} &
                                     loaded, name)

    def test_build_lists_every_module(self) -> None:
        """BUILD's SCRIPTS (the runfiles of //bench/pick:pick) and TESTS
        (//bench/pick:pick_test's), where BUILD is at hand (not in the
        runfiles: there a missing module fails the tests above)."""
        path = os.path.join(HERE, "BUILD")
        if not os.path.exists(path):
            self.skipTest("no BUILD beside the modules")
        with open(path) as f:
            build = f.read()
        for var, want in (("SCRIPTS", sorted(LAYER)),
                          ("TESTS", [m for m in module_names()
                                     if m.endswith("_test") and
                                     m != "pick_test"])):
            m = re.search(r"^%s = \[(.*?)\]" % var, build, re.S | re.M)
            assert m, var
            listed = re.findall(r'"(\w+)\.py"', m.group(1))
            self.assertEqual(sorted(listed), sorted(want), var)

    def test_files_are_short(self) -> None:
        self.assertEqual(layering.files_over(HERE, MAX_LINES), [])


if __name__ == "__main__":
    unittest.main()
