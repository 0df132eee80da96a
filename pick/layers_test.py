#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/layers_test.py
# -----------------------------------------------------------------------------
#
# pick's modules in layers (the map is in pick.py's header): a module may
# import only modules of the layers below its own, never one of its layer or
# above, so there are no import cycles, and a script (pick.py, charts.py)
# is never imported back by what it imports: run as __main__ it is loaded
# once. The modules are the package `pick`'s and import each other by
# absolute package imports only (`from pick import stats`, `from pick.stats
# import fmt_ratio`): never by a bare name, never relatively. Checks each
# module's imports (parsed with ast, imports inside functions included)
# against LAYERS, imports each module alone (as pick.NAME) in a fresh
# interpreter, and keeps every Python file of pick under 400 lines.

import ast
import os
import re
import sys
import unittest

from pick import layering

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "pick"

# Bottom first. Test files (*_test.py, and testutil.py and layering.py,
# which they share) sit above them all.
LAYERS = [
    ["records", "outcome", "margin", "ranks", "shapes"],
    ["results", "decisions"],
    ["merge", "spec", "stats", "validation", "paired", "confirm",
     "prediction"],
    ["rounds", "latency_doc"],
    ["picking", "tables", "markdown", "plotting"],
    ["winners", "compare", "repro", "report_details", "report_pingpong",
     "calibration",
     "report_servers", "charts_micro", "charts_servers", "report_predict",
     "charts_predict", "report_latency", "charts_latency"],
    ["report", "charts"],
    ["cli"],
    ["pick"],
]
LAYER = {m: k for k, layer in enumerate(LAYERS) for m in layer}
MAX_LINES = 400


def is_test(name: str) -> bool:
    return name.endswith("_test") or name in TEST_SUPPORT


TEST_SUPPORT = ("testutil", "layering", "testdata")


def module_names() -> list[str]:
    """The package's modules (its __init__.py aside)."""
    return [m for m in layering.module_names(HERE) if m != "__init__"]


def ours(names: set[str]) -> set[str]:
    """`names` with the package's modules by their names here (pick.stats
    -> stats); other names as they are."""
    prefix = PACKAGE + "."
    return {m[len(prefix):] if m.startswith(prefix) else m for m in names}


def imports(name: str) -> set[str]:
    return ours(layering.imports(HERE, name))


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
                self.assertFalse(imports(name) & set(TEST_SUPPORT), name)

    def test_package_imports_only(self) -> None:
        """The one import style: the package's modules by `pick.NAME`; no
        bare sibling names, no relative imports, and the package's
        __init__.py imports nothing of it (importing `pick` loads no
        module)."""
        siblings = set(LAYER) | set(TEST_SUPPORT) | set(module_names())
        for name in module_names():
            with self.subTest(module=name):
                raw = layering.imports(HERE, name)
                self.assertEqual(raw & siblings, set(), name)
                self.assertNotIn(PACKAGE, raw, name)
                with open(os.path.join(HERE, name + ".py")) as f:
                    tree = ast.parse(f.read())
                self.assertFalse([n for n in ast.walk(tree)
                                  if isinstance(n, ast.ImportFrom) and
                                  n.level], name)
        self.assertEqual(layering.imports(HERE, "__init__"), set())

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
                rc, err, loaded = layering.loaded_alone(
                    os.path.dirname(HERE), PACKAGE + "." + name)
                self.assertEqual(rc, 0, err)
                mine = ours({m for m in loaded
                             if m.startswith(PACKAGE + ".")}) & set(LAYER)
                self.assertIn(name, mine)
                self.assertEqual({m for m in mine if m != name and
                                  LAYER[m] >= LAYER[name]}, set(), name)
                if LAYER[name] <= 1:
                    self.assertFalse({"scipy", "matplotlib", "numpy"} &
                                     loaded, name)

    def test_build_lists_every_module(self) -> None:
        """BUILD's SCRIPTS (the runfiles of //pick:pick) and TESTS
        (//pick:pick_test's), where BUILD is at hand (not in the
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
