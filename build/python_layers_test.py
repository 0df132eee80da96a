#!/usr/bin/python3
# -----------------------------------------------------------------------------
# build/python_layers_test.py
# -----------------------------------------------------------------------------
#
# The project's Python keeps python_layers.py's one rule, read from its
# imports: no cycle between modules, none between the folders of one
# parent, the top-level units in the order of UNITS, no sys.path edits.
# The checks first run on planted trees in a temporary folder, so they are
# seen to fail on what they forbid; then on the workspace (the runfiles
# under Bazel, else this file's parent folder). Long files are printed as
# warnings, never failed.

from __future__ import annotations

import os
import sys
import tempfile
import unittest

from build import python_layers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Folders the tree must show, so that a runfiles tree missing one fails
# rather than passing on less.
EXPECTED = {"pick", "pick.read", "pick.decide", "pick.report", "pick.charts",
            "servers.driver", "servers.pingpong", "servers.chat",
            "servers.http", "servers.loadgen", "servers.soak",
            "validation", "build"}
UNITS = ["low", "mid", "top"]


def plant(root: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


class PlantedTest(unittest.TestCase):
    def check(self, files: dict[str, str]) -> list[str]:
        with tempfile.TemporaryDirectory() as root:
            plant(root, files)
            return python_layers.problems(root, UNITS)

    def test_a_clean_tree_passes(self) -> None:
        self.assertEqual(self.check({
            "low/__init__.py": "", "low/x.py": "",
            "low/read/r.py": "from low import x\n",
            "low/decide/d.py": "from low.read import r\n",
            "low/main.py": "from low.decide import d\nimport low.read.r\n",
            "mid/a/y.py": "from low import x\n",
            "top/z.py": "import mid.a.y\nfrom low.x import f\n"}), [])

    def test_a_module_cycle_is_reported(self) -> None:
        out = self.check({"low/p.py": "from low import q\n",
                          "low/q.py": "def f() -> None:\n"
                                      "    from low import p\n"})
        self.assertEqual(len(out), 1, out)
        self.assertTrue(out[0].startswith(
            "import cycle between modules low.p, low.q"), out)
        self.assertIn("low.q -> low.p (low/q.py:2)", out[0])

    def test_a_cycle_between_stages_is_reported(self) -> None:
        # No module cycle: read.a imports decide.b, decide.c imports read.d.
        out = self.check({
            "low/read/a.py": "from low.decide import b\n",
            "low/read/d.py": "",
            "low/decide/b.py": "",
            "low/decide/c.py": "from low.read import d\n"})
        self.assertEqual(len(out), 1, out)
        self.assertTrue(out[0].startswith(
            "import cycle between folders low.decide, low.read"), out)
        self.assertIn("low.read.a -> low.decide.b (low/read/a.py:1)", out[0])
        self.assertIn("low.decide.c -> low.read.d (low/decide/c.py:1)",
                      out[0])

    def test_a_test_may_import_a_later_stage(self) -> None:
        files = {"low/read/r.py": "",
                 "low/decide/d.py": "from low.read import r\n",
                 "low/read/r_test.py": "from low.decide import d\n"}
        self.assertEqual(self.check(files), [])
        # ...but not close a cycle between modules.
        files["low/read/r.py"] = "from low.read import r_test\n"
        out = self.check(files)
        self.assertTrue(out and out[0].startswith(
            "import cycle between modules low.decide.d, low.read.r, "
            "low.read.r_test"), out)

    def test_a_cycle_through_subfolders_is_reported(self) -> None:
        out = self.check({
            "mid/a/deep/y.py": "from mid.b import w\n",
            "mid/b/w.py": "",
            "mid/b/v.py": "import mid.a.deep.z\n",
            "mid/a/deep/z.py": ""})
        self.assertTrue(any(s.startswith(
            "import cycle between folders mid.a, mid.b") for s in out), out)

    def test_a_package_and_its_stages_may_import_each_other(self) -> None:
        self.assertEqual(self.check({
            "low/types.py": "",
            "low/read/r.py": "from low import types\n",
            "low/main.py": "from low.read import r\n"}), [])

    def test_an_upward_import_and_an_unplaced_folder(self) -> None:
        out = self.check({"low/x.py": "from top import z\n",
                          "top/z.py": "", "other/o.py": ""})
        self.assertIn("low/x.py:1: low.x imports top.z: top comes after "
                      "low in UNITS", out)
        self.assertIn("other holds Python but is not in UNITS", out)

    def test_a_path_edit_is_reported(self) -> None:
        out = self.check({"low/o.py": "import sys\nsys.path.append('.')\n"})
        self.assertEqual(out, ["low/o.py:2: edits the import path (sys's "
                               "path); import by package name instead"])

    def test_a_long_file_is_a_warning_only(self) -> None:
        files = {"low/long.py": "x = 1\n" * 601,
                 "low/long_test.py": "x = 1\n" * 700}
        self.assertEqual(self.check(files), [])
        with tempfile.TemporaryDirectory() as root:
            plant(root, files)
            self.assertEqual(python_layers.long_files(root), [
                "warning: low/long.py: 601 lines, past 600; split it only "
                "if it holds two ideas"])


class WorkspaceTest(unittest.TestCase):
    maxDiff = None

    def test_every_folder_is_seen(self) -> None:
        seen = {m.folder for m in python_layers.modules(ROOT)}
        self.assertEqual(EXPECTED - seen, set())

    def test_the_tree_keeps_the_rule(self) -> None:
        self.assertEqual(python_layers.problems(ROOT), [])

    def test_long_files_are_printed(self) -> None:
        for line in python_layers.long_files(ROOT):
            print(line, file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
