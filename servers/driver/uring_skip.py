# -----------------------------------------------------------------------------
# servers/driver/uring_skip.py
# -----------------------------------------------------------------------------
#
# The first step of every io_uring variant of a server test: where io_uring
# cannot be set up here (//reactor:uring_probe, the call the loops make), the
# server would fall back to epoll and the target would test epoll. It says so
# in the line .ci/run counts as a skip ("serverkit-test: SKIPPED"), and ends
# the test.

from __future__ import annotations

import subprocess
import sys

# A data dependency of the test, relative to the runfiles root (its cwd).
PROBE = "reactor/uring_probe"
MARK = "serverkit-test: SKIPPED"


def skip_unless_uring(probe: str = PROBE) -> None:
    """Returns where io_uring works; else prints the skip line and exits 0.
    A probe that cannot run is an error, not a skip."""
    r = subprocess.run([probe], capture_output=True, text=True, timeout=60)
    if r.returncode == 0:
        return
    if r.returncode == 1:
        print("%s %s; this io_uring target did not run"
              % (MARK, r.stdout.strip()), flush=True)
        sys.exit(0)
    raise SystemExit("%s failed (exit %d): %s"
                     % (probe, r.returncode, r.stderr.strip()))
