# -----------------------------------------------------------------------------
# pick/report/__init__.py
# -----------------------------------------------------------------------------
#
# results/REPORT.md: document.py puts it together (its ReportFile is pick's
# REPORT.md reporter, with the machine and commands), one module per section
# or group of sections beside it (answer, families, servers, latency,
# endtoend, predicted) over tables.py's Markdown; outputs.py holds the
# winners.json and console reporters, two_runs.py the two-run commands
# (--compare, --repro). Importing the package loads nothing else.
