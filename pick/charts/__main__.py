#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/charts/__main__.py
# -----------------------------------------------------------------------------
#
# `/usr/bin/python3 -m pick.charts --results=results [--out=DIR]`, from the
# workspace root: every chart the result files allow, without a report
# (draw.py's main()).

import sys

from pick.charts.draw import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
