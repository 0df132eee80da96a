#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/pick_test.py
# -----------------------------------------------------------------------------
#
# Runs every test file of pick (unittest discovery of *_test.py in
# this directory): //pick:pick_test runs it (through
# //build:python3.sh), and so can you,
# `/usr/bin/python3 pick/pick_test.py [-v]`. The tests, by topic:
#
#   results_test   names, aggregates, the vocabulary read from the files
#   picking_test   the classes decided, the noise rule's minimum margin
#   winners_test   winners.json's reactor contract, the floor and drift
#   analysis_test  the one analysis value and the reporters over it
#   report_test    REPORT.md and the charts, --compare, no matplotlib
#   report_predict_test  predict, then check: the section and the load map
#   report_latency_test  latency at set rates: the section and the charts
#   repro_test     --repro
#   merge_test     --merge, a winner not ahead in every process, rounds
#   rounds_test    paired rounds: interval, sign test, host states, ties,
#                  budgets, the reactor's baseline kept, --repro
#   validation_test  the validation's exact outcome field, old files refused
#
# Each file also runs on its own, as a module from the workspace root
# (`/usr/bin/python3 -m pick.X_test`).
# Exit status 0 when every test passed, 1 otherwise.

import importlib.util
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def load_package() -> None:
    """The package `pick`, this folder, imported from here (as pick.py's
    package() does: run by its path, this file's folder comes first on the
    import path, where `pick` would name pick.py), unless it already is."""
    loaded = sys.modules.get("pick")
    if loaded is not None and hasattr(loaded, "__path__"):
        return
    spec = importlib.util.spec_from_file_location(
        "pick", os.path.join(HERE, "__init__.py"),
        submodule_search_locations=[HERE])
    assert spec is not None and spec.loader is not None, HERE
    module = importlib.util.module_from_spec(spec)
    sys.modules["pick"] = module
    spec.loader.exec_module(module)


def main(argv: list[str]) -> int:
    verbosity = 2 if "-v" in argv or "--verbose" in argv else 1
    load_package()
    # The test files as the package's modules (pick.results_test, ...):
    # discovery from the package's parent, which unittest puts on the path.
    suite = unittest.defaultTestLoader.discover(
        HERE, pattern="*_test.py", top_level_dir=os.path.dirname(HERE))
    if suite.countTestCases() == 0:
        print("pick_test: no tests found in %s" % HERE, file=sys.stderr)
        return 1
    result = unittest.TextTestRunner(verbosity=verbosity).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
