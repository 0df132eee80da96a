# -----------------------------------------------------------------------------
# pick/__init__.py
# -----------------------------------------------------------------------------
#
# pick, the package: from sweeps to a choice (`bazel run //bench:pick`,
# `python -m pick`), by stage:
#
#   records.py, margin.py, outcome.py  the types (one per record), the
#                      words an interval supports, the validation's
#                      outcome vocabulary
#   read/              result files into typed records
#   decide/            rankings, paired answers, winners, the reactor
#                      policy, the server answer
#   analysis.py        the one value every output reads, and the
#                      reporters' interface
#   report/, charts/   REPORT.md and its PNGs from that value
#   cli.py, __main__.py  the command line
#
# Modules import each other by package name from the workspace root
# (`from pick.read import sweeps`): //build:python3.sh puts the root on
# PYTHONPATH. //build:python_layers_test checks the imports: no cycle
# between modules, and the stages import in one direction. Importing the
# package loads nothing else.
