#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pick/pick_test.py
# -----------------------------------------------------------------------------
#
# Runs every test file of bench/pick (unittest discovery of *_test.py in
# this directory): //bench/pick:pick_test runs it (through
# //bench:python3.sh), and so can you,
# `/usr/bin/python3 bench/pick/pick_test.py [-v]`. The tests, by topic:
#
#   results_test   names, aggregates, the vocabulary read from the files
#   picking_test   the classes decided, the noise rule's minimum margin
#   winners_test   winners.json's reactor contract, the floor and drift
#   report_test    REPORT.md and the charts, --compare, no matplotlib
#   repro_test     --repro
#   merge_test     --merge, a winner not ahead in every process, rounds
#   rounds_test    paired rounds: interval, sign test, host states, ties,
#                  budgets, the reactor's baseline kept, --repro
#   validation_test  the validation's exact outcome field, old files refused
#   layers_test    each module imports only the layers below it
#
# Each file also runs on its own (`/usr/bin/python3 bench/pick/X_test.py`).
# Exit status 0 when every test passed, 1 otherwise.

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str]) -> int:
    verbosity = 2 if "-v" in argv or "--verbose" in argv else 1
    suite = unittest.defaultTestLoader.discover(HERE, pattern="*_test.py",
                                                top_level_dir=HERE)
    if suite.countTestCases() == 0:
        print("pick_test: no tests found in %s" % HERE, file=sys.stderr)
        return 1
    result = unittest.TextTestRunner(verbosity=verbosity).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
