# -----------------------------------------------------------------------------
# pick/report/__init__.py
# -----------------------------------------------------------------------------
#
# results/REPORT.md: document.py puts it together (its ReportFile is pick's
# REPORT.md reporter), one module per section or group of sections beside
# it (recommendation, families, pingpong, servers, latency, validation,
# predict, provenance). Importing the package loads nothing else.
