#!/usr/bin/env bash
# Runs pick_test.py (every *_test.py of bench/pick) under Debian's
# /usr/bin/python3 (where matplotlib and scipy import), from the runfiles tree
# (the test's working directory).
set -euo pipefail
exec /usr/bin/python3 bench/pick/pick_test.py -v
