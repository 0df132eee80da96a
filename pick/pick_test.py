#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/pick_test.py
# -----------------------------------------------------------------------------
#
# Runs every test file of pick (unittest discovery of *_test.py in this
# folder and its stages): //pick:pick_test runs it (through
# //build:python3.sh), and so can you, from the workspace root:
# `PYTHONPATH=. /usr/bin/python3 -m pick.pick_test [-v]`. The tests, by
# stage:
#
#   read/sweeps_test       names, aggregates, the vocabulary read from the
#                          files; --merge, a winner not ahead in every
#                          process
#   read/identity_test     which sweep a confirmation confirms
#   read/validation_rows_test  the validation's exact outcome field, old
#                          files refused
#   decide/ranking_test    the classes decided, the noise rule's minimum
#                          margin
#   decide/paired_rounds_test  paired rounds: interval, sign test, host
#                          states, ties, budgets, the reactor's baseline kept
#   decide/paired_test     paired statistics (signed rank, processes)
#   decide/winners_test    winners.json's reactor contract, floor and drift
#   decide/server_answer_test  what to put in a server, per component
#   decide/error_rates_test  the decision rule's error rates
#   analysis_test          the one analysis value and the reporters over it
#   report/document_test   REPORT.md and the charts, no matplotlib
#   report/predicted_test  predict, then check: the section and the load map
#   report/latency_test    latency at set rates: the section and the charts
#   report/two_runs_test   --repro and --compare
#
# Each file also runs on its own, as a module from the workspace root
# (`/usr/bin/python3 -m pick.read.sweeps_test`).
# Exit status 0 when every test passed, 1 otherwise.

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str]) -> int:
    verbosity = 2 if "-v" in argv or "--verbose" in argv else 1
    # The test files as the package's modules (pick.read.sweeps_test, ...):
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
