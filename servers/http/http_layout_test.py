#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/http_layout_test.py
# -----------------------------------------------------------------------------
#
# servers/http's Python in layers (the map is in http_bench.py's header): a
# module imports only modules of the layers below its own (imports inside
# functions included, parsed with ast), so http_bench, the script, is never
# imported back; each module imports alone in a fresh interpreter; procs,
# side_by_side, latency_point and latency_sweep are the modules taken from
# servers/pingpong; every module
# name starts with http_ (none may shadow the standard library's http
# package); no Python file here is over 400 lines. The helpers are
# pick/layering.py's, shared with the layer tests of pick, servers/pingpong
# and servers/chat.

from __future__ import annotations

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(os.path.dirname(os.path.dirname(HERE)), "pick"))

import layering  # noqa: E402

# Bottom first. Test files (*_test.py) sit above them all.
LAYERS = [
    ["procs", "side_by_side", "http_wrk", "http_nginx", "http_loops"],
    ["latency_point", "http_run"],
    ["latency_sweep", "http_tables", "http_context"],
    ["http_latency"],
    ["http_bench"],
]
LAYER = {m: k for k, layer in enumerate(LAYERS) for m in layer}
FROM_PINGPONG = {"procs", "side_by_side", "latency_point",
                 "latency_sweep"}
MAX_LINES = 400


def module_names() -> list[str]:
    return layering.module_names(HERE)


def imports(name: str) -> set[str]:
    return layering.imports(HERE, name)


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
        """In a fresh interpreter each module imports, loading no module of
        its own layer or above."""
        for name in sorted(set(LAYER) - FROM_PINGPONG):
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
