#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/layers_test.py
# -----------------------------------------------------------------------------
#
# pick's modules in layers (the map is in pick.py's header): a module may
# import only modules of the layers below its own, never one of its layer or
# above, so there are no import cycles, and a script (pick.py,
# charts/__main__.py) is never imported back by what it imports: run as
# __main__ it is loaded once. The modules are the package `pick`'s, its
# subpackages' included, and import each other by absolute package imports
# only (`from pick import stats`, `from pick.report.latency import
# latency_section`): never by a bare name, never relatively. A subpackage is
# either a folder of modules, each with its own layer, whose __init__.py
# imports nothing (report/, charts/), or one module split into files, whose
# __init__.py re-exports them (paired/): there the package has the layer.
# Checks each module's imports (parsed with ast, imports inside functions
# included) against LAYERS, imports each module alone (as pick.NAME) in a
# fresh interpreter, and keeps every Python file of pick under 400 lines.

import ast
import os
import re
import sys
import unittest

from pick import layering

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PACKAGE = "pick"

# Bottom first; subpackages' modules as "report.latency". Test files
# (*_test.py, and testutil.py, layering.py and testdata/, which they share)
# sit above them all.
LAYERS = [
    ["records", "outcome", "margin", "ranks", "shapes", "identity"],
    ["results", "decisions"],
    ["merge", "spec", "stats", "validation", "paired", "confirm",
     "prediction"],
    ["rounds", "latency_doc"],
    ["picking", "tables", "markdown", "charts.plotting",
     "server_answer"],
    ["winners", "compare", "repro", "calibration",
     "report.recommendation", "report.answer", "report.families",
     "report.pingpong",
     "report.validation", "report.servers", "report.predict",
     "report.latency",
     "charts.micro", "charts.pingpong", "charts.validation",
     "charts.servers", "charts.predict", "charts.latency"],
    ["analysis"],
    ["reporter", "report.provenance"],
    ["winners_file", "report.document", "charts.draw", "console"],
    ["cli", "charts.__main__"],
    ["pick"],
]
LAYER = {m: k for k, layer in enumerate(LAYERS) for m in layer}
MAX_LINES = 400
TEST_SUPPORT = ("testutil", "layering", "testdata")


def relative(dotted: str) -> str:
    """pick.report.latency -> report.latency; other names as they are."""
    prefix = PACKAGE + "."
    return dotted[len(prefix):] if dotted.startswith(prefix) else dotted


def is_test(name: str) -> bool:
    return name.endswith("_test") or name.split(".")[0] in TEST_SUPPORT


def modules() -> list[str]:
    """Every module of the package, subpackages' included ("stats",
    "report", "report.latency"), the package's __init__.py aside."""
    return [relative(m) for m in layering.package_modules(ROOT, PACKAGE)]


def subpackages() -> list[str]:
    return [m for m in modules() if not is_test(m) and
            os.path.isdir(os.path.join(HERE, *m.split(".")))]


def raw_imports(name: str) -> set[str]:
    return layering.module_imports(ROOT, PACKAGE + "." + name)


def facades() -> list[str]:
    """The subpackages that are one module split into files: their
    __init__.py imports their own modules."""
    return [p for p in subpackages()
            if any(relative(m).startswith(p + ".") for m in raw_imports(p))]


def unit(name: str, split: list[str]) -> str:
    """The layered unit a module belongs to: its facade package (in
    `split`), else itself."""
    top = name.split(".")[0]
    return top if top in split else name


def imports(name: str, split: list[str]) -> set[str]:
    """The package's units module `name` imports (its own unit aside);
    other names by their top-level name."""
    out = set()
    for m in raw_imports(name):
        if m == PACKAGE or m.startswith(PACKAGE + "."):
            out.add(unit(relative(m), split))
        else:
            out.add(m.split(".")[0])
    return out - {unit(name, split)}


class LayersTest(unittest.TestCase):
    def setUp(self) -> None:
        self.split = facades()

    def units(self) -> set[str]:
        inner = set(subpackages()) - set(self.split)
        return {unit(m, self.split) for m in modules()
                if not is_test(m) and m not in inner}

    def test_every_module_has_a_layer(self) -> None:
        self.assertEqual(sorted(self.units()), sorted(LAYER))

    def test_imports_go_down(self) -> None:
        support = {unit(m, self.split) for m in modules()
                   if m.split(".")[0] in TEST_SUPPORT}
        for name in modules():
            mine = LAYER.get(unit(name, self.split), len(LAYERS))
            deps = imports(name, self.split)
            for dep in sorted(deps & set(LAYER)):
                with self.subTest(module=name, imports=dep):
                    self.assertLess(
                        LAYER[dep], mine, "%s (layer %d) imports %s (layer "
                        "%d): a module imports only lower layers" % (
                            name, mine, dep, LAYER[dep]))
            if not is_test(name):
                self.assertFalse(deps & support, name)

    def test_package_imports_only(self) -> None:
        """The one import style: the package's modules by `pick.NAME`; no
        bare sibling names, no relative imports, and the package's
        __init__.py, like a folder of modules' (report/, charts/), imports
        nothing (importing `pick` or `pick.report` loads no module)."""
        siblings = {m.split(".")[-1] for m in modules()} | set(TEST_SUPPORT)
        for name in modules():
            with self.subTest(module=name):
                raw = raw_imports(name)
                bare = {m.split(".")[0] for m in raw
                        if not m.startswith(PACKAGE + ".")}
                self.assertEqual(bare & siblings, set(), name)
                self.assertNotIn(PACKAGE, raw, name)
                path = layering.module_file(ROOT, PACKAGE + "." + name)
                with open(path) as f:
                    tree = ast.parse(f.read())
                self.assertFalse([n for n in ast.walk(tree)
                                  if isinstance(n, ast.ImportFrom) and
                                  n.level], name)
        self.assertEqual(layering.imports(HERE, "__init__"), set())
        for p in set(subpackages()) - set(self.split):
            self.assertEqual(raw_imports(p), set(), p)

    def test_the_bottom_is_standard_library_only(self) -> None:
        for name in LAYERS[0] + LAYERS[1]:
            third = {m for m in imports(name, self.split) - set(LAYER)
                     if m not in sys.stdlib_module_names and
                     m != "__future__"}
            self.assertEqual(third, set(), name)

    def test_each_module_imports_alone(self) -> None:
        """In a fresh interpreter each module imports, loading only itself
        and modules of lower layers (pick.py's main does not run)."""
        for name in sorted(LAYER):
            with self.subTest(module=name):
                rc, err, loaded = layering.loaded_alone(
                    ROOT, PACKAGE + "." + name)
                self.assertEqual(rc, 0, err)
                mine = {unit(relative(m), self.split) for m in loaded
                        if m.startswith(PACKAGE + ".")} & set(LAYER)
                self.assertIn(name, mine)
                self.assertEqual({m for m in mine if m != name and
                                  LAYER[m] >= LAYER[name]}, set(), name)
                if LAYER[name] <= 1:
                    self.assertFalse({"scipy", "matplotlib", "numpy"} &
                                     loaded, name)

    def test_build_lists_every_module(self) -> None:
        """BUILD's SCRIPTS (the runfiles of //pick:pick: every module's
        file, subpackages' __init__.py included) and TESTS
        (//pick:pick_test's), where BUILD is at hand (not in the runfiles:
        there a missing module fails the tests above)."""
        path = os.path.join(HERE, "BUILD")
        if not os.path.exists(path):
            self.skipTest("no BUILD beside the modules")
        with open(path) as f:
            build = f.read()

        def file_of(m: str) -> str:
            return os.path.relpath(layering.module_file(
                ROOT, PACKAGE + "." + m), HERE)
        for var, want in (("SCRIPTS", [file_of(m) for m in modules()
                                       if not is_test(m)]),
                          ("TESTS", [file_of(m) for m in modules()
                                     if m.endswith("_test") and
                                     m != "pick_test"])):
            m = re.search(r"^%s = \[(.*?)\]" % var, build, re.S | re.M)
            assert m, var
            listed = re.findall(r'"([\w/]+\.py)"', m.group(1))
            self.assertEqual(sorted(listed), sorted(want), var)

    def test_files_are_short(self) -> None:
        self.assertEqual(layering.files_over(HERE, MAX_LINES), [])


if __name__ == "__main__":
    unittest.main()
