# -----------------------------------------------------------------------------
# pick/__main__.py
# -----------------------------------------------------------------------------
#
# The entry point: `python -m pick` from the workspace root, which
# //pick:pick (through //build:python3.sh), bench/bench.sh, bench/sweep.sh
# and `make compare` run. The flags and exit statuses are cli.py's.

import sys

from pick import cli

if __name__ == "__main__":
    sys.exit(cli.main(sys.argv[1:]))
