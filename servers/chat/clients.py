# -----------------------------------------------------------------------------
# servers/chat/clients.py
# -----------------------------------------------------------------------------
#
# The chat tests' side of the wire (chat_test.py, chat_uring_test.py): our
# server or Asio's started on a free port, a peer that sends and reads
# frames, joining peers until each has seen every other's hello, a check
# that the server closed a socket, the server log's lines, and the load test
# run to its JSON.
#
# Above codec and servers.driver.procs.

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from typing import IO, Any, Sequence

from servers.chat.codec import FrameReader, frame

from servers.driver import procs

DEADLINE = 30.0


def start_server(path: str, threads: int, log: IO[str],
                 extra: Sequence[str] = ()
                 ) -> tuple[subprocess.Popen[bytes], int]:
    port = procs.free_port()
    p = procs.spawn([path, "127.0.0.1", str(port), str(threads)] +
                    list(extra), None, log, log)
    if procs.wait_accepting(p, port, timeout=10.0):
        return p, port
    if p.poll() is not None:
        raise AssertionError("server exited with %s" % p.returncode)
    raise AssertionError("server never accepted on port %d" % port)


class Peer:
    """A chat client: a socket and the messages it has read."""

    def __init__(self, port: int, rcvbuf: int = 0) -> None:
        self.sock = socket.socket()
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(DEADLINE)
        self.sock.connect(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = FrameReader()
        self.got: list[bytes] = []

    def send(self, message: bytes) -> None:
        self.sock.sendall(frame(message))

    def read_some(self, timeout: float) -> bool:
        """Reads what arrives within timeout; False on EOF."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1 << 16)
        except socket.timeout:
            return True
        finally:
            self.sock.settimeout(DEADLINE)
        if not data:
            return False
        self.got.extend(self.reader.feed(data))
        return True

    def wait_for(self, pred: Any, what: str) -> None:
        deadline = time.monotonic() + DEADLINE
        while not pred():
            if time.monotonic() > deadline:
                raise AssertionError("timed out waiting for " + what)
            if not self.read_some(0.2):
                raise AssertionError("closed while waiting for " + what)


def join(peers: list[Peer]) -> None:
    """Until the server has registered every peer: in attempt a, each peer
    sends "hello a i", and every peer waits a moment for all of attempt a
    (a message is broadcast only once its sender has joined, but may miss
    a peer not registered yet: then the next attempt). Once every peer has
    all of one attempt, nothing earlier is still in flight (each sender's
    messages arrive in order); got is cleared."""
    for attempt in range(100):
        hellos = {b"hello %d %d" % (attempt, i) for i in range(len(peers))}
        for m in sorted(hellos):
            peers[int(m.split()[2])].send(m)
        done = True
        for p in peers:
            until = time.monotonic() + 0.2 * (attempt + 1)
            while not hellos <= set(p.got) and time.monotonic() < until:
                if not p.read_some(0.05):
                    raise AssertionError("closed while joining")
            done = done and hellos <= set(p.got)
        if done:
            for p in peers:
                p.got.clear()
            return
    raise AssertionError("the peers never all joined")


def expect_closed(sock: socket.socket, what: str) -> None:
    """EOF or a reset within the deadline, whatever is still buffered."""
    sock.settimeout(DEADLINE)
    try:
        while sock.recv(1 << 16):
            pass
    except ConnectionResetError:
        pass
    except socket.timeout:
        raise AssertionError("%s: the server kept the connection open"
                             % what)


def log_lines(log: IO[str], needle: str) -> list[str]:
    log.flush()
    log.seek(0)
    return [line for line in log.read().splitlines() if needle in line]


def run_loadtest(loadtest: str, port: int, k: int, rounds: int, tmp: str
                 ) -> subprocess.Popen[bytes]:
    out = os.path.join(tmp, "loadtest.json")
    return procs.spawn([loadtest, "127.0.0.1", str(port), str(k), "1",
                        "--rounds=%d" % rounds, "--json=" + out,
                        "--timeout=30"], None, sys.stdout, sys.stderr)


def loadtest_result(p: subprocess.Popen[bytes], tmp: str) -> dict[str, Any]:
    rc = p.wait(timeout=120)
    with open(os.path.join(tmp, "loadtest.json")) as f:
        r: dict[str, Any] = json.load(f)
    assert rc == 0 and r["ok"], "load test failed (rc %d): %s" % (rc, r)
    return r


# --- the cases ---------------------------------------------------------------
