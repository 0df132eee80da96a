#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/http_work_test.py
# -----------------------------------------------------------------------------
#
# http_work_test.py SERVER
#
# Our HTTP server's GET /work over real loopback sockets, with --pool=none
# and with every pool the server names (its exit-2 message for a bad
# --pool is the list), with 1 and 2 I/O threads:
#   - the body is {"work":"<FNV-1a 64 of the fixed block>"}, worked out
#     here apart from the server, so every pool answers the same body;
#   - keep-alive; /work, /collect, HEAD /work, 405 and 404 pipelined in one
#     write come back in order, also when the client half-closes right
#     behind them; 8 connections pipelining 20 /work each all get theirs;
#   - SIGTERM exits 0 and the pool's stop line counts every task (or inline
#     run), with no failed submit and no dropped reply; clients that close
#     with /work still out leave the server up and stopping cleanly;
#   - a bad --pool exits 2 with the valid names; a bad --pool_threads and
#     --pool_slowdown_ns without a pool exit 2; --pool_slowdown_ns with a
#     pool still answers the same body. Nothing here is timed: whether the
#     slowdown shows is the benchmark's question.

from __future__ import annotations

import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from typing import Callable

from servers.driver import procs
from servers.http import testing

WORK = b"GET /work HTTP/1.1\r\nHost: t\r\n\r\n"
HEAD_WORK = b"HEAD /work HTTP/1.1\r\nHost: t\r\n\r\n"
COLLECT = b"GET /collect HTTP/1.1\r\nHost: t\r\n\r\n"
POST_WORK = b"POST /work HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
NOPE = b"GET /nope HTTP/1.1\r\nHost: t\r\n\r\n"


def expected_body() -> bytes:
    """FNV-1a 64 of 256 bytes, byte i = (167 i + 13) mod 256 (work.h)."""
    h = 0xcbf29ce484222325
    for i in range(256):
        h ^= (167 * i + 13) & 0xff
        h = (h * 0x100000001b3) & 0xffffffffffffffff
    return b'{"work":"%016x"}' % h


BODY = expected_body()


def read_replies(sock: socket.socket, heads: list[bool],
                 eof: bool = False) -> list[tuple[int, bytes]]:
    """(status, body) of len(heads) replies; heads[i]: a reply to HEAD."""
    buf = b""
    out: list[tuple[int, bytes]] = []
    for head_only in heads:
        while b"\r\n\r\n" not in buf:
            data = sock.recv(65536)
            assert data, "EOF before reply %d: %r" % (len(out), buf[:200])
            buf += data
        head, buf = buf.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 "), head[:100]
        m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
        assert m, head
        n = 0 if head_only else int(m.group(1))
        while len(buf) < n:
            data = sock.recv(65536)
            assert data, "EOF inside a body"
            buf += data
        out.append((int(head.split()[1]), buf[:n]))
        buf = buf[n:]
    if eof:
        while True:
            data = sock.recv(65536)
            if not data:
                break
            buf += data
    assert buf == b"", "bytes after the replies: %r" % buf[:200]
    return out


def connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def check_one_and_keep_alive(port: int) -> int:
    with connect(port) as s:
        for _ in range(4):
            s.sendall(WORK)
            assert read_replies(s, [False]) == [(200, BODY)]
    return 4


PIPELINE = [(WORK, False), (COLLECT, False), (WORK, False),
            (HEAD_WORK, True), (POST_WORK, False), (NOPE, False),
            (b"GET /work?x=1 HTTP/1.1\r\nHost: t\r\n\r\n", False)]
PIPELINE_REPLIES = [(200, BODY), (200, b'{"ok":true}'), (200, BODY),
                    (200, b""), (405, b'{"error":"method not allowed"}'),
                    (404, b'{"error":"not found"}'), (200, BODY)]
PIPELINE_WORK = 4


def check_pipelined(port: int, half_close: bool) -> int:
    with connect(port) as s:
        s.sendall(b"".join(r for r, _ in PIPELINE))
        if half_close:
            s.shutdown(socket.SHUT_WR)
        got = read_replies(s, [h for _, h in PIPELINE], eof=half_close)
        assert got == PIPELINE_REPLIES, got
    return PIPELINE_WORK


def check_close_behind_half_close(port: int) -> int:
    """A /work, one that closes, then the client's FIN right behind them:
    both replies, then EOF."""
    with connect(port) as s:
        s.sendall(WORK + b"GET /work HTTP/1.1\r\nHost: t\r\n"
                  b"Connection: close\r\n\r\n")
        s.shutdown(socket.SHUT_WR)
        assert read_replies(s, [False, False], eof=True) == [(200, BODY)] * 2
    return 2


def check_many_connections(port: int) -> int:
    conns, per = 8, 20
    errors: list[str] = []

    def one() -> None:
        try:
            with connect(port) as s:
                s.sendall(WORK * per)
                got = read_replies(s, [False] * per)
                if got != [(200, BODY)] * per:
                    errors.append("wrong replies: %r" % got[:3])
        except (AssertionError, OSError) as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=one) for _ in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return conns * per


def check_abandoned(server: str, tmp: str) -> None:
    """Clients that close with their /work still on the pool: the server
    drops those replies (counted), stays up, and stops cleanly."""
    log = os.path.join(tmp, "abandoned.log")
    port, p = testing.start(server, 2,
                            ["--pool=mutex", "--work_ns=200000"], log)
    for k in range(10):
        s = connect(port)
        if k % 2:  # a reset rather than a FIN: the connection goes at once
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
        s.sendall(WORK * 20)
        s.close()
    with connect(port) as s:
        s.sendall(WORK)
        assert read_replies(s, [False]) == [(200, BODY)]
    os.killpg(p.pid, signal.SIGTERM)
    assert p.wait(timeout=20) == 0, procs.tail(log, 50)
    assert "server: pool mutex: tasks run" in procs.tail(log, 50)


def stop_and_count(p: subprocess.Popen[bytes], log: str, pool: str,
                   work: int) -> None:
    """SIGTERM: exit 0, and the pool's line counts `work` runs."""
    os.killpg(p.pid, signal.SIGTERM)
    rc = p.wait(timeout=20)
    text = procs.tail(log, 50)
    assert rc == 0, "exit status %s: %s" % (rc, text)
    m = re.search(r"server: pool (\S+): tasks run (\d+), failed submits "
                  r"(\d+), inline runs (\d+), task failures (\d+), replies "
                  r"dropped \(connection gone\) (\d+), 503 replies (\d+)",
                  text)
    assert m, "no pool line: %s" % text
    tasks, inline = int(m.group(2)), int(m.group(4))
    want = (0, work) if pool == "none" else (work, 0)
    assert m.group(1) == pool and (tasks, inline) == want, (work, m.group(0))
    # Failed submits, task failures, dropped replies, 503s.
    assert [m.group(i) for i in (3, 5, 6, 7)] == ["0"] * 4, m.group(0)


def check_long_pipeline(server: str, tmp: str) -> None:
    """32768 pipelined /work requests (about 1 MB, past the 256 KiB the
    server holds behind an outstanding /work): every reply, in order, and
    the server stopped reading rather than buffering the rest."""
    n = 32768
    log = os.path.join(tmp, "long-pipeline.log")
    port, p = testing.start(server, 1, ["--pool=mutex"], log)
    with connect(port) as s:
        sender = threading.Thread(target=s.sendall, args=(WORK * n,))
        sender.start()
        got = read_replies(s, [False] * n)
        sender.join(timeout=20)
    assert got == [(200, BODY)] * n, "replies out of order or wrong"
    os.killpg(p.pid, signal.SIGTERM)
    assert p.wait(timeout=20) == 0, procs.tail(log)
    m = re.search(r"reads stopped \(input held\) (\d+)", procs.tail(log, 50))
    assert m and int(m.group(1)) >= 1, procs.tail(log, 50)


def pool_names(server: str) -> list[str]:
    r = subprocess.run([server, "127.0.0.1", "0", "1", "--pool=nope"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, (r.returncode, r.stderr)
    m = re.search(r"unknown --pool 'nope'; pools: (.*)", r.stderr)
    assert m, r.stderr
    names = m.group(1).strip().split(", ")
    for want in ("none", "mutex", "asio", "queue-moodycamel"):
        assert want in names, names
    return names


def check_bad_flags(server: str) -> None:
    for flags, says in ((["--pool_threads=0"], "--pool_threads takes 1"),
                        (["--pool_threads=257"], "--pool_threads takes 1"),
                        (["--work_ns=-1"], "--work_ns takes 0"),
                        (["--pool_slowdown_ns=100"], "set --pool")):
        r = subprocess.run([server, "127.0.0.1", "0", "1"] + flags,
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and says in r.stderr, (flags, r.stderr)


def run_server(server: str, tmp: str, pool: str, threads: int,
               extra: list[str]) -> None:
    log = os.path.join(tmp, "%s-%d.log" % (pool, threads))
    port, p = testing.start(server, threads,
                            ["--pool=" + pool, "--pool_threads=2"] + extra,
                            log)
    work = check_one_and_keep_alive(port)
    work += check_pipelined(port, half_close=False)
    work += check_pipelined(port, half_close=True)
    work += check_close_behind_half_close(port)
    work += check_many_connections(port)
    stop_and_count(p, log, pool, work)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: http_work_test.py SERVER", file=sys.stderr)
        return 2
    server = argv[0]
    tmp = tempfile.mkdtemp(prefix="http_work_test.",
                           dir=os.environ.get("TEST_TMPDIR"))
    failed = 0

    def attempt(label: str, f: Callable[..., object], *args: object) -> None:
        nonlocal failed
        try:
            f(*args)
            print("ok   " + label)
        except (AssertionError, OSError, ValueError,
                subprocess.TimeoutExpired) as e:
            failed += 1
            print("FAIL %s: %r" % (label, e))
        procs.stop_all()

    try:
        names: list[str] = []
        attempt("bad --pool lists the pools",
                lambda: names.extend(pool_names(server)))
        attempt("bad flags exit 2", check_bad_flags, server)
        for pool in names:
            for threads in (1, 2):
                attempt("pool=%s threads=%d" % (pool, threads), run_server,
                        server, tmp, pool, threads, [])
        attempt("abandoned connections", check_abandoned, server, tmp)
        attempt("a long pipeline behind /work", check_long_pipeline, server,
                tmp)
        attempt("pool=mutex with --pool_slowdown_ns", run_server, server,
                tmp, "mutex", 2, ["--pool_slowdown_ns=50000"])
    finally:
        procs.stop_all()
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
