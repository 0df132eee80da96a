#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/driver/procs_test.py
# -----------------------------------------------------------------------------
#
# The descriptor limit the drivers' children inherit (procs.raise_fd_limit),
# in a child process whose limits are set first, so that the test's own are
# untouched.

import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

CHILD = """
import resource, sys
from servers.driver import procs
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 1024))
print(procs.raise_fd_limit(), *resource.getrlimit(resource.RLIMIT_NOFILE))
print(procs.raise_fd_limit(int(sys.argv[1])),
      *resource.getrlimit(resource.RLIMIT_NOFILE))
"""


class FdLimitTest(unittest.TestCase):
    def test_soft_to_hard_then_hard_to_the_need(self) -> None:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, "2048"], check=True,
            capture_output=True, text=True, cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=ROOT)).stdout.split("\n")
        self.assertEqual(out[0], "1024 1024 1024")
        # Only a process with CAP_SYS_RESOURCE may raise its hard limit
        # (root in a container may not); the others keep the hard one, and
        # the drivers skip what does not fit.
        self.assertIn(out[1], ("2048 2048 2048", "1024 1024 1024"))


if __name__ == "__main__":
    unittest.main()
