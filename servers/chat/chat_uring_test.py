#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/chat/chat_uring_test.py
# -----------------------------------------------------------------------------
#
# chat_uring_test.py LOADTEST serverkit=SERVER
#
# chat_test.py's checks (clean, churn, senders, oversized, slow receiver) on
# our server with every loop polling through io_uring with completion I/O
# (SERVERKIT_REACTOR_BACKEND=uring, SERVERKIT_URING_IO=completion):
# broadcasts are many completion-based sends per iteration, and churn
# removes connections with sends queued.
# Where io_uring cannot be set up here it reports a skip
# (servers/driver/uring_skip.py). Else it first checks that the server really
# runs on io_uring (one of its descriptors is an io_uring instance) and, where
# SERVERKIT_URING_TEST_SQE_FAIL_EVERY is set (chat_uring_sq_full_test.py),
# that it says it missed a submission entry.

from __future__ import annotations

import os
import sys
import tempfile

from servers.chat import chat_test
from servers.chat.clients import Peer, start_server
from servers.driver import procs
from servers.driver import uring_skip

HERE = os.path.dirname(os.path.abspath(__file__))

SAID = "io_uring submission queue full"


def fd_links(pid: int) -> list[str]:
    """What the process's descriptors point at now. A descriptor closed
    between the listing and its readlink is skipped, not an error: the
    server closes the socket of start_server's readiness probe at its own
    pace (that race failed a clean-clone CI)."""
    fds = os.path.join("/proc", str(pid), "fd")
    links = []
    for f in os.listdir(fds):
        try:
            links.append(os.readlink(os.path.join(fds, f)))
        except FileNotFoundError:
            pass
    return links


def server_runs_as_asked(path: str) -> str:
    with tempfile.TemporaryDirectory(prefix="chat-uring-") as tmp:
        log_path = os.path.join(tmp, "server.log")
        with open(log_path, "w+") as log:
            p, port = start_server(path, 1, log)
            try:
                links = fd_links(p.pid)
                peer = Peer(port)  # one connection: a few arms
                peer.sock.close()
            finally:
                procs.stop(p, grace=5.0)
        with open(log_path) as f:
            text = f.read()
    if not any("io_uring" in link for link in links):
        raise AssertionError("the server has no io_uring descriptor: %s"
                             % sorted(links))
    if os.environ.get("SERVERKIT_URING_TEST_SQE_FAIL_EVERY"):
        if SAID not in text:
            raise AssertionError("the server never missed a submission "
                                 "entry: %r" % text[-500:])
        return "io_uring, missing submission entries"
    return "io_uring"


if __name__ == "__main__":
    uring_skip.skip_unless_uring()
    os.environ["SERVERKIT_REACTOR_BACKEND"] = "uring"
    os.environ["SERVERKIT_URING_IO"] = "completion"
    args = sys.argv[1:]
    try:
        path = dict(a.split("=", 1) for a in args[1:])["serverkit"]
        print("PASS the server runs on %s" % server_runs_as_asked(path))
    except (AssertionError, OSError, KeyError, IndexError) as e:
        print("FAIL the server does not run as asked: %r" % e)
        sys.exit(1)
    sys.exit(chat_test.main(args))
