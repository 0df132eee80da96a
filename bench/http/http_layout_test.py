#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/http/http_layout_test.py
# -----------------------------------------------------------------------------
#
# bench/http's Python in layers (the map is in http_bench.py's header): a
# module imports only modules of the layers below its own (imports inside
# functions included, parsed with ast), so http_bench, the script, is never
# imported back; each module imports alone in a fresh interpreter; procs is
# the one module taken from bench/pingpong; every module name starts with
# http_ (none may shadow the standard library's http package); no Python
# file here is over 400 lines. (bench/pick/layering.py does the same for
# bench/pick and bench/pingpong; it is not visible to this package.)

from __future__ import annotations

import ast
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

# Bottom first. Test files (*_test.py) sit above them all.
LAYERS = [
    ["procs", "http_wrk", "http_nginx"],
    ["http_run"],
    ["http_tables"],
    ["http_bench"],
]
LAYER = {m: k for k, layer in enumerate(LAYERS) for m in layer}
FROM_PINGPONG = {"procs"}
MAX_LINES = 400


def module_names() -> list[str]:
    return sorted(f[:-3] for f in os.listdir(HERE) if f.endswith(".py"))


def imports(name: str) -> set[str]:
    with open(os.path.join(HERE, name + ".py")) as f:
        tree = ast.parse(f.read(), name + ".py")
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and \
                not node.level:
            out.add(node.module.split(".")[0])
    return out


class LayoutTest(unittest.TestCase):
    def test_every_module_has_a_layer_and_a_prefix(self) -> None:
        modules = [m for m in module_names() if not m.endswith("_test")]
        self.assertEqual(sorted(modules), sorted(set(LAYER) - FROM_PINGPONG))
        for m in module_names():
            self.assertTrue(m.startswith("http_"), m)
            self.assertNotEqual(m, "http")

    def test_imports_go_down(self) -> None:
        for name in module_names():
            mine = LAYER.get(name, len(LAYERS))  # tests: above every layer
            for dep in sorted(imports(name) & set(LAYER)):
                with self.subTest(module=name, imports=dep):
                    self.assertLess(LAYER[dep], mine,
                                    "%s imports %s, not below it"
                                    % (name, dep))

    def test_each_module_imports_alone(self) -> None:
        for name in sorted(set(LAYER) - FROM_PINGPONG):
            with self.subTest(module=name):
                p = subprocess.run(
                    [sys.executable, "-c", "import sys; sys.path.insert(0, "
                     "%r); import %s" % (HERE, name)],
                    capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)

    def test_files_are_short(self) -> None:
        for name in module_names():
            with open(os.path.join(HERE, name + ".py")) as f:
                n = sum(1 for _ in f)
            self.assertLessEqual(n, MAX_LINES, "%s.py has %d lines"
                                 % (name, n))


if __name__ == "__main__":
    unittest.main()
