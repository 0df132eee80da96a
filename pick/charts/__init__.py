# -----------------------------------------------------------------------------
# pick/charts/__init__.py
# -----------------------------------------------------------------------------
#
# REPORT.md's charts, drawn with matplotlib: draw.py draws them all (its
# ChartFiles is pick's charts reporter), one module per subject beside it
# (micro, pingpong, validation, servers, predict, latency), over plotting.py's
# helpers. Importing the package loads nothing else (matplotlib only when a
# chart is drawn).
