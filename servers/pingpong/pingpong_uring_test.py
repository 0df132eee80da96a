#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/pingpong/pingpong_uring_test.py
# -----------------------------------------------------------------------------
#
# pingpong_test.py's checks on our server with every loop polling through
# io_uring with completion I/O: SERVERKIT_REACTOR_BACKEND=uring and
# SERVERKIT_URING_IO=completion, which the server reads when it gets no
# --backend or --uring_io flag (components/by_name.h); readiness I/O is
# epoll's connection code, run by pingpong_test.py. Same arguments as
# pingpong_test.py. Where io_uring cannot be set up, a skip
# (servers/driver/uring_skip.py).

import os
import runpy

from servers.driver import uring_skip

if __name__ == "__main__":
    uring_skip.skip_unless_uring()
    os.environ["SERVERKIT_REACTOR_BACKEND"] = "uring"
    os.environ["SERVERKIT_URING_IO"] = "completion"
    runpy.run_module("servers.pingpong.pingpong_test", run_name="__main__",
                     alter_sys=True)
