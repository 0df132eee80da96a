#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/pingpong/pingpong_uring_sq_full_test.py
# -----------------------------------------------------------------------------
#
# pingpong_test.py's checks on our server over io_uring (completion I/O,
# the path with the most submission entries) with every third
# submission entry the server asks for missing
# (SERVERKIT_URING_TEST_SQE_FAIL_EVERY=3, reactor/poller/uring_poller.h), as
# when the kernel does not take the queue: every byte must still come back.
# First it checks that the server really runs so (it says so once on
# stderr). Same arguments as pingpong_test.py.

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAID = "io_uring submission queue full"


def injection_reaches_the_server(client: str, path: str) -> None:
    from servers.pingpong import pingpong_test
    with tempfile.TemporaryDirectory(prefix="sq-full-") as tmp:
        log_path = os.path.join(tmp, "server.log")
        with open(log_path, "w+") as log:
            srv, port = pingpong_test.start_server(path, 1, "echo", log)
            try:
                rc, r = pingpong_test.run_client(
                    client, port, ["1", "1000", "2", "0.3", "--verify"], tmp)
                assert rc == 0 and r["verify"], r
            finally:
                pingpong_test.kill(srv)
        with open(log_path) as f:
            text = f.read()
    assert SAID in text, "the server never missed an entry: %r" % text[-500:]
    print("PASS the server runs with missing submission entries")


if __name__ == "__main__":
    os.environ["SERVERKIT_REACTOR_BACKEND"] = "uring"
    os.environ["SERVERKIT_URING_IO"] = "completion"
    os.environ["SERVERKIT_URING_TEST_SQE_FAIL_EVERY"] = "3"
    args = sys.argv[1:]
    servers = dict(a.split("=", 1) for a in args[1:])
    try:
        injection_reaches_the_server(args[0], servers["serverkit"])
    except AssertionError as e:
        print("FAIL %s" % e)
        sys.exit(1)
    from servers.pingpong import pingpong_test
    sys.exit(pingpong_test.main(args))
