#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/http_server_test.py
# -----------------------------------------------------------------------------
#
# http_server_test.py serverkit=PATH [beast=PATH] [evhttp=PATH]
#
# Drives the HTTP servers over real loopback sockets.
#   - every server, with 1 and 2 threads: GET /collect?v=1 answers 200 with
#     {"ok":true}, Content-Length and Content-Type application/json; three
#     requests on one connection (keep-alive); two pipelined requests
#     answered in order; an unknown path 404 with the connection kept;
#   - ours (serverkit) also: 200 pipelined requests and a malformed one in
#     one write get 200 replies then a complete 400 and an EOF (the reply's
#     tail is never dropped); a head over 8 KiB gets 431 and an EOF, a
#     target over 8 KiB 414 and an EOF; HTTP/1.0 gets Connection: close and
#     an EOF; HEADs and a GET in one write read as exactly three replies
#     (the HEADs without a body);
#     with Expect: 100-continue the 100 arrives before the body is sent; a
#     request written one byte at a time and split in two writes at every
#     byte boundary gets its 200; with --logger=sync every reply is one
#     access-log line in nginx's combined format, quotes, backslashes and
#     other bytes escaped as nginx does (\xHH), and the stop line counts
#     the 414;
#   - SIGTERM stops every server with status 0 (ours prints its counters).
# Every process runs in its own process group and is stopped at the end.

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Callable

from servers.driver import procs
from servers.http import testing

GET = b"GET /collect?v=1 HTTP/1.1\r\nHost: t\r\n\r\n"
BODY = b'{"ok":true}'


class Response:
    def __init__(self, status: int, headers: dict[str, str],
                 body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body


class Conn:
    """A client connection that reads whole HTTP responses."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        self.buf += data
        return bool(data)

    def head(self) -> bytes:
        """The next response head (through its blank line)."""
        while b"\r\n\r\n" not in self.buf:
            if not self._fill():
                raise AssertionError("EOF before a response head: %r"
                                     % self.buf[:200])
        # A reply's first byte is its status line's (not a body's tail).
        assert self.buf.startswith(b"HTTP/1.1 "), self.buf[:200]
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return head + b"\r\n\r\n"

    def response(self, head_only: bool = False) -> Response:
        """The next response; head_only: a reply to HEAD (no body)."""
        head = self.head()[:-4]
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        n = 0 if head_only else int(headers["content-length"])
        while len(self.buf) < n:
            if not self._fill():
                raise AssertionError("EOF inside a body (%d of %d bytes)"
                                     % (len(self.buf), n))
        body, self.buf = self.buf[:n], self.buf[n:]
        return Response(status, headers, body)

    def expect_nothing_more(self) -> None:
        """Nothing after the replies read (within a moment)."""
        self.sock.settimeout(0.3)
        try:
            self._fill()
        except socket.timeout:
            pass
        finally:
            self.sock.settimeout(10)
        assert self.buf == b"", "bytes after the last reply: %r" % self.buf

    def expect_eof(self) -> None:
        while self._fill():
            pass
        assert self.buf == b"", "bytes after the last reply: %r" % self.buf


def expect_ok(r: Response) -> None:
    assert r.status == 200, r.status
    assert r.body == BODY, r.body
    assert r.headers.get("content-type") == "application/json", r.headers


# --- every server ------------------------------------------------------------

def check_keep_alive(port: int) -> None:
    c = Conn(port)
    for _ in range(3):
        c.send(GET)
        expect_ok(c.response())
    c.close()


def check_pipelining(port: int) -> None:
    c = Conn(port)
    c.send(GET + b"GET /nope HTTP/1.1\r\nHost: t\r\n\r\n" + GET)
    expect_ok(c.response())
    assert c.response().status == 404
    expect_ok(c.response())
    c.close()


def check_404_keeps(port: int) -> None:
    c = Conn(port)
    c.send(b"GET /other?v=1 HTTP/1.1\r\nHost: t\r\n\r\n")
    assert c.response().status == 404
    c.send(GET)
    expect_ok(c.response())
    c.close()


COMMON: list[Callable[[int], None]] = [check_keep_alive, check_pipelining,
                                       check_404_keeps]


# --- ours --------------------------------------------------------------------

def check_400_after_many(port: int) -> None:
    c = Conn(port)
    c.send(GET * 200 + b"BAD\x01 request\r\n\r\n" + GET)
    for _ in range(200):
        expect_ok(c.response())
    r = c.response()
    assert r.status == 400, r.status
    assert r.headers.get("connection") == "close", r.headers
    c.expect_eof()
    c.close()


def expect_refused(port: int, request: bytes, status: int) -> None:
    """`request` answered with `status`, then the connection closed."""
    c = Conn(port)
    c.send(request)
    assert c.response().status == status
    c.expect_eof()
    c.close()


def check_431(port: int) -> None:
    expect_refused(port, b"GET /collect HTTP/1.1\r\nX-Pad: " + b"a" * 9000 +
                   b"\r\n\r\n", 431)


def check_http10(port: int) -> None:
    c = Conn(port)
    c.send(b"GET /collect?v=1 HTTP/1.0\r\n\r\n")
    r = c.response()
    expect_ok(r)
    assert r.headers.get("connection") == "close", r.headers
    c.expect_eof()
    c.close()


def check_split_writes(port: int) -> None:
    c = Conn(port)
    for b in GET:  # one byte per write
        c.send(bytes([b]))
        time.sleep(0.001)
    expect_ok(c.response())
    for cut in range(len(GET) + 1):  # two writes, at every boundary
        c.send(GET[:cut])
        time.sleep(0.002)
        c.send(GET[cut:])
        expect_ok(c.response())
    c.close()


def check_414(port: int) -> None:
    expect_refused(port, b"GET /collect?v=" + b"a" * 9000 +
                   b" HTTP/1.1\r\nHost: t\r\n\r\n", 414)


def check_head_then_get(port: int) -> None:
    """HEADs and a GET in one write on a keep-alive connection: exactly
    three replies, the HEADs' with the GET's headers and no body."""
    c = Conn(port)
    c.send(b"HEAD /collect?v=1 HTTP/1.1\r\nHost: t\r\n\r\n"
           b"HEAD /nope HTTP/1.1\r\nHost: t\r\n\r\n" + GET)
    r = c.response(head_only=True)
    assert r.status == 200, r.status
    assert r.headers.get("content-length") == str(len(BODY)), r.headers
    assert r.headers.get("content-type") == "application/json", r.headers
    assert c.response(head_only=True).status == 404
    expect_ok(c.response())
    c.expect_nothing_more()
    c.send(GET)  # still open
    expect_ok(c.response())
    c.close()


def check_expect_continue(port: int) -> None:
    """The 100 comes after the head alone; the reply after the body."""
    c = Conn(port)
    c.send(b"POST /collect HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n"
           b"Content-Length: 5\r\n\r\n")
    assert c.head() == b"HTTP/1.1 100 Continue\r\n\r\n", c.buf
    assert c.buf == b"", c.buf
    c.send(b"hello")
    assert c.response().status == 405
    c.send(GET)
    expect_ok(c.response())
    c.close()


OURS: list[Callable[[int], None]] = [check_400_after_many, check_431,
                                     check_414, check_http10,
                                     check_head_then_get,
                                     check_expect_continue,
                                     check_split_writes]

COMBINED = re.compile(
    r'127\.0\.0\.1 - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] '
    r'"GET /collect\?v=1 HTTP/1\.1" 200 11 "http://ref/" "test-agent"$')


def check_access_log(path: str, tmp: str) -> None:
    log_file = os.path.join(tmp, "access.log")
    port, p = testing.start(path, 1,
                            ["--logger=sync", "--log_file=" + log_file],
                            os.path.join(tmp, "log-server.log"))
    c = Conn(port)
    req = (b"GET /collect?v=1 HTTP/1.1\r\nHost: t\r\nReferer: http://ref/\r\n"
           b"User-Agent: test-agent\r\n\r\n")
    for _ in range(5):
        c.send(req)
        expect_ok(c.response())
    c.send(b"GET /nope HTTP/1.1\r\nHost: t\r\n\r\n")
    assert c.response().status == 404
    c.send(b"HEAD /collect?v=1 HTTP/1.1\r\nHost: t\r\n\r\n")
    assert c.response(head_only=True).status == 200
    # A quote must not end the field early; nginx writes \x22.
    c.send(b'GET /nope?q="a\\b\t\xff HTTP/1.1\r\nHost: t\r\n'
           b'Referer: r"1\r\nUser-Agent: ua" x\\\xe9\r\n\r\n')
    assert c.response().status == 404
    c.close()
    c = Conn(port)
    c.send(b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: t\r\n\r\n")
    assert c.response().status == 414
    c.close()
    stop_clean(p, os.path.join(tmp, "log-server.log"))
    with open(log_file, "rb") as f:
        lines = f.read().decode("ascii").splitlines()
    assert len(lines) == 9, lines
    for line in lines[:5]:
        assert COMBINED.search(line), line
    assert re.search(r'"GET /nope HTTP/1\.1" 404 21 "-" "-"$', lines[5]), \
        lines[5]
    assert re.search(r'"HEAD /collect\?v=1 HTTP/1\.1" 200 0 "-" "-"$',
                     lines[6]), lines[6]
    assert lines[7].endswith(
        r'"GET /nope?q=\x22a\x5Cb\x09\xFF HTTP/1.1" 404 21 "r\x221" '
        r'"ua\x22 x\x5C\xE9"'), lines[7]
    assert lines[8].endswith('"-" 414 24 "-" "-"'), lines[8]
    assert "431: 0, 414: 1)" in procs.tail(
        os.path.join(tmp, "log-server.log")), "no 414 in the stop line"


def stop_marker(name: str) -> str:
    """What a server says on a clean stop (ours adds its counters)."""
    return ("server: stopped;" if name == "serverkit"
            else name + "_server: stopped")


def stop_clean(p: subprocess.Popen[bytes], log: str,
               marker: str = "server: stopped;") -> None:
    """SIGTERM: exits 0 and says so (ours with its counters)."""
    os.killpg(p.pid, signal.SIGTERM)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        raise AssertionError("no exit 10 s after SIGTERM: %s"
                             % procs.tail(log))
    assert rc == 0, "exit status %s: %s" % (rc, procs.tail(log))
    assert marker in procs.tail(log), procs.tail(log)


def check_stop_at_once(name: str, path: str, tmp: str) -> None:
    """SIGTERM as soon as the port accepts, before every loop may run.

    evhttp's loops once missed a stop that came before they started
    (event_base_loopbreak's flag is cleared by a starting loop): a race, so
    this tries it several times."""
    for k in range(8):
        log = os.path.join(tmp, "%s-at-once-%d.log" % (name, k))
        _port, p = testing.start(path, 2, [], log)
        stop_clean(p, log, stop_marker(name))


def main(argv: list[str]) -> int:
    servers = dict(a.split("=", 1) for a in argv)
    if "serverkit" not in servers:
        print("usage: http_server_test.py serverkit=PATH [beast=PATH] "
              "[evhttp=PATH]", file=sys.stderr)
        return 2
    failed = 0
    tmp = tempfile.mkdtemp(prefix="http_server_test.",
                           dir=os.environ.get("TEST_TMPDIR"))
    try:
        for name, path in servers.items():
            for threads in (1, 2):
                log = os.path.join(tmp, "%s-%d.log" % (name, threads))
                port, p = testing.start(path, threads, [], log)
                checks = COMMON + (OURS if name == "serverkit" else [])
                for check in checks:
                    label = "%s threads=%d %s" % (name, threads,
                                                  check.__name__)
                    try:
                        check(port)
                        print("ok   " + label)
                    except (AssertionError, OSError, ValueError,
                            KeyError) as e:
                        failed += 1
                        print("FAIL %s: %r" % (label, e))
                try:
                    stop_clean(p, log, stop_marker(name))
                    print("ok   %s threads=%d stop" % (name, threads))
                except AssertionError as e:
                    failed += 1
                    print("FAIL %s threads=%d stop: %s"
                          % (name, threads, e))
                procs.stop_all()
        for name, path in servers.items():
            try:
                check_stop_at_once(name, path, tmp)
                print("ok   %s stop at once" % name)
            except AssertionError as e:
                failed += 1
                print("FAIL %s stop at once: %s" % (name, e))
            procs.stop_all()
        try:
            check_access_log(servers["serverkit"], tmp)
            print("ok   serverkit access log")
        except (AssertionError, OSError, ValueError) as e:
            failed += 1
            print("FAIL serverkit access log: %r" % e)
    finally:
        procs.stop_all()
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
