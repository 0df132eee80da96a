#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/pingpong/pingpong_test.sh
# -----------------------------------------------------------------------------
#
# //bench/pingpong:pingpong_test: runs pingpong_test.py under Debian's
# /usr/bin/python3 with the client and the peer servers (see the .py file).
set -euo pipefail
exec /usr/bin/python3 bench/pingpong/pingpong_test.py "$@"
