# -----------------------------------------------------------------------------
# pick/__init__.py
# -----------------------------------------------------------------------------
#
# pick, the package: from sweeps to a choice (`bazel run //bench:pick`; the
# modules and their layers are listed in __main__.py's header), with the
# subpackages report/ (REPORT.md) and charts/ (its charts). Its modules
# import each other by absolute package imports (`from pick import results
# as R`, `from pick.report.latency import latency_section`), so its parent
# directory, the workspace root, is what goes on the import path:
# //build:python3.sh puts it on PYTHONPATH for every Bazel target, and
# __main__.py, the one file run by its path, loads the package from its own
# directory. The other entry points run as modules from the workspace root
# (`/usr/bin/python3 -m pick.charts`, `-m pick.results_test`). Importing
# the package loads nothing else.
