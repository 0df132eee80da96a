#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/pingpong/pingpong_test.py
# -----------------------------------------------------------------------------
#
# pingpong_test.py CLIENT NAME=SERVER [NAME=SERVER ...]
#
# For every server, with 1 and with 2 server threads:
#   - echo: the client runs briefly with --verify (every byte read matches the
#     block pattern; blocksize 1000 so reads straddle block boundaries);
#   - header (--max_body=4096): the client runs with reply verification while
#     raw connections check that a body of exactly max_body is echoed, a
#     header with body_size max_body + 1 gets its connection closed (one line
#     on the server's stderr), a truncated header and a truncated body are
#     only closed, an earlier connection keeps working afterwards, and the
#     client's sessions all finish clean;
#   - half-close: a peer with a 32 KiB receive window sends 8 MiB of echo
#     (and, on the header protocol, 128 messages of 64 KiB) without reading,
#     half-closes (SHUT_WR), then reads: every byte comes back before EOF
#     (ours with every buffer);
#   - back-pressure (ours): a peer that never reads is seen to stall (the
#     server paused reading) after it read less than 24 MiB, its RSS grows
#     by less than 16 MiB, and once the peer reads, every byte comes back.
# Every process runs in its own process group and is killed at the end.

from __future__ import annotations

import ctypes
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from typing import IO, Any, Callable, Sequence

from servers.pingpong import hostile_peer
from servers.driver import procs

MAX_BODY = 4096
HALF_CLOSE_BYTES = 8 << 20
BUFFERS = ("linear", "ring", "mirrored", "string")
_libc = ctypes.CDLL(None, use_errno=True)
_live: list[subprocess.Popen[bytes]] = []
Result = dict[str, Any]


def spawn(argv: list[str], **kw: Any) -> subprocess.Popen[bytes]:
    p = subprocess.Popen(argv, start_new_session=True,
                         stdin=subprocess.DEVNULL,
                         preexec_fn=lambda: _libc.prctl(1, signal.SIGKILL),
                         **kw)
    _live.append(p)
    return p


def kill(p: subprocess.Popen[bytes]) -> None:
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    p.wait(timeout=10)


def start_server(path: str, threads: int, protocol: str, log: IO[str],
                 max_body: int = MAX_BODY, extra: Sequence[str] = ()
                 ) -> tuple[subprocess.Popen[bytes], int]:
    port = procs.free_port()
    p = spawn([path, "127.0.0.1", str(port), str(threads),
               "--protocol=" + protocol, "--max_body=%d" % max_body] +
              list(extra), stdout=log, stderr=log)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise AssertionError("server exited with %s" % p.returncode)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p, port
        except OSError:
            time.sleep(0.02)
    raise AssertionError("server never accepted on port %d" % port)


def message(body_size: int, packet_count: int) -> bytes:
    body = bytes((packet_count + i) & 0xFF for i in range(body_size))
    return struct.pack("!II", body_size, packet_count) + body


def recv_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise AssertionError("connection closed after %d of %d bytes"
                                 % (len(data), n))
        data += chunk
    return data


def round_trip(sock: socket.socket, body_size: int, count: int) -> None:
    msg = message(body_size, count)
    sock.sendall(msg)
    reply = recv_exact(sock, len(msg))
    assert reply == msg, "reply differs from the message"


def expect_closed(sock: socket.socket, what: str) -> None:
    sock.settimeout(5)
    try:
        data = sock.recv(100)
        assert data == b"", "%s: got %r instead of a close" % (what, data)
    except ConnectionResetError:
        pass
    except socket.timeout:
        raise AssertionError("%s: the server kept the connection open" % what)


def connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def start_client(client: str, port: int, args: list[str], tmp: str
                 ) -> tuple[subprocess.Popen[bytes], str]:
    """The client, started; (process, the path of its JSON)."""
    out = os.path.join(tmp, "client.json")
    if os.path.exists(out):
        os.remove(out)
    p = spawn([client, "127.0.0.1", str(port)] + args + ["--json=" + out])
    return p, out


def run_client(client: str, port: int, args: list[str], tmp: str
               ) -> tuple[int, Result]:
    """The client, run to its end; (exit status, its JSON)."""
    p, out = start_client(client, port, args, tmp)
    rc = p.wait(timeout=60)
    return rc, json.load(open(out))


def check_echo(client: str, path: str, threads: int, tmp: str) -> Result:
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, "echo", log)
        try:
            rc, r = run_client(client, port,
                               ["2", "1000", "10", "0.5", "--verify"], tmp)
            assert rc == 0, "client exit %d: %s" % (rc, r)
            assert r["connected"] == 10 and r["connect_failures"] == 0, r
            assert r["errors"] == 0 and r["closed_by_server"] == 0, r
            assert r["bytes"] > 10 * 1000 and r["verify"], r
            assert srv.poll() is None, "server died"
            return r
        finally:
            kill(srv)


def small_window(port: int) -> socket.socket:
    """A client socket with a 32 KiB receive buffer (set before connect)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 10)
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    return s


def check_half_close(client: str, path: str, threads: int, tmp: str,
                     extra: Sequence[str] = ()) -> Result:
    rng = random.Random(threads)
    payload = rng.randbytes(HALF_CLOSE_BYTES)
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, "echo", log, extra=extra)
        try:
            s = small_window(port)
            got = hostile_peer.send_half_close_read(s, payload, srv.pid)
            s.close()
            assert len(got) == len(payload), \
                "echo: %d of %d bytes back before EOF" % (len(got),
                                                          len(payload))
            assert got == payload, "echo: the bytes differ"
        finally:
            kill(srv)
        srv, port = start_server(path, threads, "header", log,
                                 max_body=64 << 10, extra=extra)
        try:
            msgs = b"".join(message(64 << 10, k) for k in range(128))
            s = small_window(port)
            got = hostile_peer.send_half_close_read(s, msgs, srv.pid)
            s.close()
            assert len(got) == len(msgs), \
                "header: %d of 128 replies back before EOF" % (
                    len(got) // len(message(64 << 10, 0)))
            assert got == msgs, "header: the replies differ"
        finally:
            kill(srv)
    return dict(summary="%d bytes echoed and 128 replies after SHUT_WR" %
                len(payload))


def check_backpressure(client: str, path: str, threads: int, tmp: str,
                       extra: Sequence[str] = ()) -> Result:
    chunk = random.Random(7).randbytes(64 << 10)
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, "echo", log, extra=extra)
        try:
            s = small_window(port)
            # Memory a loop owns anyway is not growth (io_uring's 4 MiB
            # receive ring, touched as data arrives, and TSan's shadow of
            # it): echo 8 MiB before taking the baseline.
            for k in range(128):
                s.sendall(chunk[k:] + chunk[:k])
                assert recv_exact(s, len(chunk)) == chunk[k:] + chunk[:k]
            before = hostile_peer.rss_kib(srv.pid)
            # Once stalled the server reads nothing more: its RSS is final.
            sent, read = hostile_peer.send_until_stalled(s, srv.pid,
                                                         log.name, chunk)
            grown = hostile_peer.rss_kib(srv.pid) - before
            assert read < (24 << 20), "%d MiB read, no stall" % (read >> 20)
            assert grown < (16 << 10), "server RSS grew by %d KiB for %d " \
                "MiB read" % (grown, read >> 20)
            s.settimeout(30)
            s.shutdown(socket.SHUT_WR)
            got = hostile_peer.read_to_eof(s)
            s.close()
            want = (chunk * (sent // len(chunk) + 1))[:sent]
            assert len(got) == sent, "%d of %d bytes back" % (len(got), sent)
            assert got == want, "the echo differs from what was sent"
            assert srv.poll() is None, "server died"
            return dict(summary="stalled: %.1f MiB sent, %.1f read, RSS "
                        "+%d KiB" % (sent / 2**20, read / 2**20, grown))
        finally:
            kill(srv)


# Round trips per session of check_header's client: enough for its sessions
# to outlast the bad input sent beside them. Each body is one byte longer
# than the last, from 100, so the last is still under MAX_BODY.
HEADER_COUNT = 3900


def check_header(client: str, path: str, threads: int, tmp: str
                 ) -> Result:
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, "header", log)
        try:
            early = connect(port)
            round_trip(early, 100, 1)
            cp, out = start_client(
                client, port,
                ["2", "100", "8", "30", "--protocol=header",
                 "--count=%d" % HEADER_COUNT], tmp)
            # The bad input below comes while the client's sessions run.
            deadline = time.monotonic() + 10
            while hostile_peer.connections_to(port) < 9:  # theirs and `early`
                assert cp.poll() is None, "the client ended before the test"
                assert time.monotonic() < deadline, "the sessions never came"
                time.sleep(0.005)

            edge = connect(port)
            round_trip(edge, MAX_BODY, 7)  # exactly the limit: served
            edge.close()

            big = connect(port)
            big.sendall(struct.pack("!II", MAX_BODY + 1, 1))
            expect_closed(big, "body_size max_body + 1")
            big.close()

            for partial in (b"\x00\x00",
                            struct.pack("!II", 200, 1) + b"x" * 50):
                t = connect(port)
                t.sendall(partial)  # truncated header, then truncated body
                t.close()

            round_trip(early, 101, 2)  # an earlier session carries on
            early.close()

            rc = cp.wait(timeout=60)
            r: dict[str, Any] = json.load(open(out))
            assert rc == 0, "client exit %d: %s" % (rc, r)
            assert r["completed"] == 8 and r["unfinished"] == 0, r
            assert r["errors"] == 0 and r["closed_by_server"] == 0, r
            assert r["messages"] == 8 * HEADER_COUNT, r
            assert srv.poll() is None, "server died"
            log.flush()
            log.seek(0)
            lines = [x for x in log.read().splitlines() if x.strip()]
            reasons = [x for x in lines if "max_body" in x]
            assert len(reasons) == 1, "want one logged close, got %r" % lines
            assert str(MAX_BODY + 1) in reasons[0], reasons
            # Still serving after all that.
            late = connect(port)
            round_trip(late, 100, 1)
            late.close()
            return r
        finally:
            kill(srv)


Check = Callable[..., Result]


def main(argv: list[str]) -> int:
    client, servers = argv[0], dict(a.split("=", 1) for a in argv[1:])
    started = time.monotonic()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="pingpong-test-") as tmp:
        for name, path in servers.items():
            # Ours keeps every byte and its memory with every buffer.
            ours = name == "serverkit"
            checks: list[tuple[Check, tuple[str, ...]]] = [
                (check_echo, ()), (check_header, ())]
            checks += [(check_half_close, ("--buffer=" + b,))
                       for b in BUFFERS] if ours else [(check_half_close, ())]
            if ours:
                checks += [(check_backpressure, ("--buffer=" + b,))
                           for b in BUFFERS]
            for threads in (1, 2):
                for check, extra in checks:
                    what = "%s %s%s threads %d" % (
                        check.__name__[6:], name,
                        "".join(" " + e for e in extra), threads)
                    try:
                        if extra:
                            r = check(client, path, threads, tmp, extra)
                        else:
                            r = check(client, path, threads, tmp)
                        print("PASS %s: %s" % (what, r["summary"]) if
                              "summary" in r else
                              "PASS %s: %.1f MiB/s, %d messages" % (
                                  what, r["mib_per_s"], r["messages"]))
                    except Exception as e:  # report all, fail at the end
                        failures += 1
                        print("FAIL %s: %s" % (what, e))
                    sys.stdout.flush()
    for p in _live:
        if p.poll() is None:
            kill(p)
    print("%d failure(s), %.1f s" % (failures, time.monotonic() - started))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
