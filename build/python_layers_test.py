#!/usr/bin/python3
# -----------------------------------------------------------------------------
# build/python_layers_test.py
# -----------------------------------------------------------------------------
#
# The project's Python folders import in one direction (python_layers.py
# holds the order and the checks): each folder has a layer, imports go only
# to lower layers, no import loop forms between folders or modules, no
# module edits sys.path, no file is over the line cap; within a unit its
# modules keep their declared order and each imports alone. The checks
# first run on planted trees, so they are seen to fail on what they forbid;
# then on the workspace (the runfiles under Bazel, else this file's parent
# folder).

from __future__ import annotations

import os
import tempfile
import unittest

from build import python_layers as L

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Every unit the tree must show, so that a runfiles tree missing a folder
# fails rather than passing on less.
EXPECTED = {"pick", "servers.driver", "servers.pingpong", "servers.chat",
            "servers.http", "servers.loadgen", "servers.soak",
            "validation", "build"}


def plant(root: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


UNITS = [["low"], ["mid.a", "mid.b"], ["top"]]


class PlantedTest(unittest.TestCase):
    def check(self, files: dict[str, str]) -> list[str]:
        with tempfile.TemporaryDirectory() as root:
            plant(root, files)
            return (L.unplaced(root, UNITS) +
                    L.wrong_direction(root, UNITS) + L.loops(root, UNITS) +
                    L.path_edits(root, UNITS) + L.too_long(root, UNITS))

    def test_a_clean_tree_passes(self) -> None:
        self.assertEqual(self.check({
            "low/__init__.py": "", "low/x.py": "",
            "mid/a/y.py": "from low import x\n",
            "top/z.py": "import mid.a.y\nfrom low.x import f\n"}), [])

    def test_a_folder_loop_is_reported(self) -> None:
        out = self.check({
            "mid/a/y.py": "from mid.b import w\n",
            "mid/b/w.py": "def f() -> None:\n    from mid.a import y\n"})
        loops = [s for s in out if s.startswith("import loop between "
                                                "folders mid.a, mid.b")]
        self.assertEqual(len(loops), 1, out)
        self.assertIn("mid.a -> mid.b (mid/a/y.py:1)", loops[0])
        self.assertIn("mid.b -> mid.a (mid/b/w.py:2)", loops[0])

    def test_a_loop_through_bare_names_is_reported(self) -> None:
        out = self.check({"mid/a/y.py": "import w\n",
                          "mid/b/w.py": "import y\n"})
        self.assertTrue(any(s.startswith("import loop between folders")
                            for s in out), out)

    def test_a_module_loop_is_reported(self) -> None:
        out = self.check({"low/p.py": "from low import q\n",
                          "low/q.py": "from low import p\n"})
        self.assertTrue(any(s.startswith("import loop between modules "
                                         "low.p, low.q") for s in out), out)

    def test_an_upward_or_sideways_import_is_reported(self) -> None:
        out = self.check({"low/x.py": "from top import z\n",
                          "mid/a/y.py": "from mid.b import w\n",
                          "mid/b/w.py": "", "top/z.py": ""})
        self.assertTrue(any("low.x (low, layer 0) imports top.z" in s
                            for s in out), out)
        self.assertTrue(any("mid.a.y (mid.a, layer 1) imports mid.b.w" in s
                            for s in out), out)

    def test_a_module_above_its_layer_is_reported(self) -> None:
        with tempfile.TemporaryDirectory() as root:
            plant(root, {"low/__init__.py": "",
                         "low/x.py": "from low import y\n",
                         "low/y.py": "", "low/z.py": "",
                         "low/x_test.py": "from low import x\n"})
            maps = {"low": [["x"], ["y"]]}
            out = L.module_order(root, UNITS, maps)
            self.assertIn("low.z has no layer in MODULES['low']", out)
            self.assertTrue(any("low.x (layer 0) imports low.y (layer 1)"
                                in s for s in out), out)
            self.assertEqual(len(out), 2, out)
            self.assertEqual(L.not_alone(root, UNITS, maps),
                             ["low.x loads low.y, not of a lower layer"])

    def test_an_unplaced_folder_a_path_edit_and_a_long_file(self) -> None:
        out = self.check({"other/o.py": "import sys\nsys.path.append('.')\n",
                          "low/long.py": "x = 1\n" * 401})
        self.assertIn("other holds Python but has no layer in UNITS", out)
        self.assertIn("other/o.py:2: edits the import path (sys's path); "
                      "import by package name instead", out)
        self.assertIn("low/long.py: 401 lines, over 400", out)


class WorkspaceTest(unittest.TestCase):
    maxDiff = None

    def test_every_unit_is_seen(self) -> None:
        seen = {m.unit for m in L.modules(ROOT)}
        self.assertEqual(EXPECTED - seen, set())

    def test_every_folder_has_a_layer(self) -> None:
        self.assertEqual(L.unplaced(ROOT), [])

    def test_imports_go_down(self) -> None:
        self.assertEqual(L.wrong_direction(ROOT), [])

    def test_no_import_loops(self) -> None:
        self.assertEqual(L.loops(ROOT), [])

    def test_no_path_edits(self) -> None:
        self.assertEqual(L.path_edits(ROOT), [])

    def test_files_are_short(self) -> None:
        self.assertEqual(L.too_long(ROOT), [])

    def test_modules_in_their_units_go_down(self) -> None:
        self.assertEqual(L.module_order(ROOT), [])

    def test_bottoms_and_pick_imports_stay_narrow(self) -> None:
        self.assertEqual(L.narrow_imports(ROOT), [])

    def test_each_module_imports_alone(self) -> None:
        self.assertEqual(L.not_alone(ROOT), [])


if __name__ == "__main__":
    unittest.main()
