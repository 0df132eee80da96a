#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/pingpong/pingpong_uring_test.py
# -----------------------------------------------------------------------------
#
# pingpong_test.py's checks on our server with every loop polling through
# io_uring: SERVERKIT_REACTOR_BACKEND=uring, which the server reads when it
# gets no --backend flag (servers/common/server_policy.h). Same arguments as
# pingpong_test.py. Where io_uring cannot be set up, a skip (uring_skip.py).

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import uring_skip  # noqa: E402

if __name__ == "__main__":
    uring_skip.skip_unless_uring()
    os.environ["SERVERKIT_REACTOR_BACKEND"] = "uring"
    sys.argv[0] = os.path.join(HERE, "pingpong_test.py")
    runpy.run_path(sys.argv[0], run_name="__main__")
