# -----------------------------------------------------------------------------
# pick/report/__init__.py
# -----------------------------------------------------------------------------
#
# results/REPORT.md: document.py puts it together (its ReportFile is pick's
# REPORT.md reporter) and writes its head (the answer, the words under the
# recommendation table) and tail (the machine, the commands); one module
# per section or group of sections beside it (families, servers, latency,
# endtoend, predicted) over tables.py's Markdown; two_runs.py holds the
# two-run commands (--compare, --repro). The winners.json and console
# reporters are the command line's (cli.py). Importing the package loads
# nothing else.
