#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/chat/chat_test.py
# -----------------------------------------------------------------------------
#
# chat_test.py LOADTEST NAME=SERVER [NAME=SERVER ...]
#
# For every chat server (ours and the Asio peer), with 1 and with 2 server
# threads:
#   - clean: the load test (K = 50, 30 rounds) passes: every client got
#     every round exactly once and in order; ours also with the ring buffer
#     and another task queue; SIGTERM then stops the server with status 0
#     and its counters on stderr;
#   - churn: while the load test runs many rounds, other clients connect and
#     disconnect (some read a while and close, some reset, some send half a
#     frame and close, some close at once): the load test still passes, and
#     every churn client saw consecutive rounds, each once, in order;
#   - senders: 4 clients send 100 messages each at once: every client gets
#     all 400, each exactly once, each sender's in its order;
#   - oversized (--max_message=4096): a message of exactly 4096 bytes is
#     broadcast; lengths 4097 and 2^32 - 1 close only their own connections,
#     one stderr line each; the others keep chatting;
#   - slow receiver (--max_queued=65536): a client that never reads is
#     closed (one stderr line) while an active client receives every one of
#     4000 messages of 4 KiB; the active client keeps chatting;
#   - large message (--max_message=131072 --max_queued=65536): a message
#     larger than --max_queued reaches every client with nothing queued, and
#     nobody is closed as slow (only bytes already queued count).
# No timing is asserted; every wait has a generous deadline. Every process
# runs in its own process group (servers/driver/procs.py) and is stopped at
# the end.

from __future__ import annotations

import os
import random
import signal
import socket
import sys
import tempfile
import threading
import time
from typing import Any, Sequence

from servers.chat import codec as chat_codec
from servers.driver import procs
from servers.chat.clients import (DEADLINE, Peer, expect_closed, join,
                                  loadtest_result, log_lines, run_loadtest,
                                  start_server)

HERE = os.path.dirname(os.path.abspath(__file__))


def check_clean(loadtest: str, path: str, threads: int, tmp: str,
                extra: Sequence[str]) -> str:
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, log, extra)
        try:
            r = loadtest_result(run_loadtest(loadtest, port, 50, 30, tmp),
                                tmp)
            assert r["deliveries"] == 50 * 30, r
            srv.send_signal(signal.SIGTERM)
            rc = srv.wait(timeout=20)
            assert rc == 0, "SIGTERM: exit status %s" % rc
            lines = log_lines(log, "stopped; messages in")
            assert len(lines) == 1 and "frames delivered" in lines[0], \
                "no counters after SIGTERM: %s" % log_lines(log, "")
            return "round p50 %.3f ms; %s" % (r["round_ms"]["p50"],
                                              lines[0].split(": ", 1)[1])
        finally:
            procs.stop(srv)


def churn_client(port: int, rng: random.Random, stats: dict[str, int],
                 errors: list[str]) -> None:
    """One churn cycle: connect, maybe read a while, leave some way."""
    way = rng.choice(["read", "read", "reset", "half-frame", "at-once"])
    try:
        p = Peer(port)
    except OSError as e:
        errors.append("connect: %s" % e)
        return
    try:
        if way == "at-once":
            return
        if way == "half-frame":
            p.sock.sendall(chat_codec.header(64) + b"x" * 10)
        until = time.monotonic() + rng.uniform(0.005, 0.05)
        while time.monotonic() < until:
            if not p.read_some(0.01):
                errors.append("churn client closed by the server")
                return
        seqs: list[int] = []
        for m in p.got:
            r = chat_codec.round_of(m)
            if r is None:
                errors.append("churn client: malformed message %r" % m[:20])
                return
            if r[0] == "P" and seqs:
                errors.append("churn client: probe after rounds")
                return
            if r[0] == "R":
                seqs.append(r[1])
        if seqs and seqs != list(range(seqs[0], seqs[0] + len(seqs))):
            errors.append("churn client: rounds not consecutive: %s"
                          % seqs[:20])
            return
        stats["rounds_seen"] += len(seqs)
        if way == "reset":
            p.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                              b"\x01\x00\x00\x00\x00\x00\x00\x00")
    finally:
        stats["cycles"] += 1
        p.sock.close()


def check_churn(loadtest: str, path: str, threads: int, tmp: str) -> str:
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, log)
        try:
            lt = run_loadtest(loadtest, port, 20, 3000, tmp)
            stats = {"cycles": 0, "rounds_seen": 0}
            errors: list[str] = []
            rng = random.Random(14)
            while lt.poll() is None and not errors:
                threads_ = [threading.Thread(
                    target=churn_client, args=(port, rng, stats, errors))
                    for _ in range(4)]
                for t in threads_:
                    t.start()
                for t in threads_:
                    t.join()
            r = loadtest_result(lt, tmp)
            assert not errors, errors[:3]
            # The churn overlapped the rounds (the load test runs 3000).
            assert stats["rounds_seen"] > 0, stats
            assert srv.poll() is None, "server died"
            return "%d churn cycles, %d rounds seen by churn clients; " \
                "load test clean over %d rounds" % (
                    stats["cycles"], stats["rounds_seen"], r["rounds_done"])
        finally:
            procs.stop(srv)


def check_senders(path: str, threads: int, tmp: str) -> str:
    n, m = 4, 100
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, log)
        peers = [Peer(port) for _ in range(n)]
        try:
            join(peers)
            for j in range(m):
                for i, p in enumerate(peers):
                    p.send(b"m:%d:%d" % (i, j))
            for p in peers:
                p.wait_for(lambda p=p: len(p.got) >= n * m, "all messages")
                p.read_some(0.05)  # anything extra shows up
            for k, p in enumerate(peers):
                for i in range(n):
                    seq = [int(x.split(b":")[2]) for x in p.got
                           if x.startswith(b"m:%d:" % i)]
                    assert seq == list(range(m)), \
                        "client %d got sender %d's as %s" % (k, i, seq[:10])
                assert len(p.got) == n * m, "client %d: %d messages" % (
                    k, len(p.got))
            return "%d clients got all %d messages once, in order" % (
                n, n * m)
        finally:
            for p in peers:
                p.sock.close()
            procs.stop(srv)


def check_oversized(path: str, threads: int, tmp: str) -> str:
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, log, ["--max_message=4096"])
        a, b, c1, c2 = (Peer(port) for _ in range(4))
        try:
            join([a, b, c1, c2])
            big = bytes(i & 0xFF for i in range(4096))
            a.send(big)
            for p in (a, b):
                p.wait_for(lambda p=p: big in p.got, "the 4096-byte message")
            c1.sock.sendall(chat_codec.header(4097) + b"x" * 100)
            expect_closed(c1.sock, "length 4097")
            c2.sock.sendall(chat_codec.header(0xFFFFFFFF))
            expect_closed(c2.sock, "length 2^32 - 1")
            b.send(b"still here")
            for p in (a, b):
                p.wait_for(lambda p=p: b"still here" in p.got, "after")
            lines = log_lines(log, "closing: message length")
            assert len(lines) == 2, "expected 2 lines: %s" % lines
            assert srv.poll() is None, "server died"
            return "4096 delivered; 4097 and 2^32-1 closed only their own"
        finally:
            for p in (a, b, c1, c2):
                p.sock.close()
            procs.stop(srv)


def check_slow(path: str, threads: int, tmp: str) -> str:
    count, size, window = 4000, 4096, 8
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, log, ["--max_queued=65536"])
        active, lazy = Peer(port), Peer(port, rcvbuf=4096)
        try:
            # The lazy client's own hello proves it joined.
            lazy.send(b"lazy joined")
            active.wait_for(lambda: b"lazy joined" in active.got, "join")
            active.got.clear()
            sent = 0
            while sent < count:
                if sent - len(active.got) < window:
                    active.send(sent.to_bytes(4, "big") * (size // 4))
                    sent += 1
                elif not active.read_some(DEADLINE):
                    raise AssertionError("active client closed")
            active.wait_for(lambda: len(active.got) >= count, "everything")
            for i, msg in enumerate(active.got):
                assert msg == i.to_bytes(4, "big") * (size // 4), \
                    "message %d of %d differs" % (i, len(active.got))
            expect_closed(lazy.sock, "the client that never reads")
            lines = log_lines(log, "closing slow receiver")
            assert len(lines) == 1, "expected one line: %s" % lines
            active.got.clear()
            active.send(b"after")
            active.wait_for(lambda: b"after" in active.got, "after")
            assert srv.poll() is None, "server died"
            return "never-reading client closed; %d x %d B all delivered" % (
                count, size)
        finally:
            active.sock.close()
            lazy.sock.close()
            procs.stop(srv)


def check_large_message(path: str, threads: int, tmp: str) -> str:
    size = 100000
    with open(os.path.join(tmp, "server.log"), "w+") as log:
        srv, port = start_server(path, threads, log,
                                 ["--max_message=131072",
                                  "--max_queued=65536"])
        peers = [Peer(port) for _ in range(3)]
        try:
            join(peers)
            big = bytes(i & 0xFF for i in range(size))
            peers[0].send(big)
            for p in peers:
                p.wait_for(lambda p=p: big in p.got, "the large message")
            peers[1].send(b"after")
            for p in peers:
                p.wait_for(lambda p=p: b"after" in p.got, "after")
            lines = log_lines(log, "closing slow receiver")
            assert not lines, "closed as slow: %s" % lines
            assert srv.poll() is None, "server died"
            return "%d-byte message (over max_queued) reached all %d" % (
                size, len(peers))
        finally:
            for p in peers:
                p.sock.close()
            procs.stop(srv)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: chat_test.py LOADTEST NAME=SERVER ...", file=sys.stderr)
        return 2
    loadtest = argv[0]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="chat-test-") as tmp:
        try:
            for spec in argv[1:]:
                name, path = spec.split("=", 1)
                for threads in (1, 2):
                    cases: list[tuple[str, Any]] = [
                        ("clean", lambda: check_clean(
                            loadtest, path, threads, tmp, [])),
                        ("churn", lambda: check_churn(
                            loadtest, path, threads, tmp)),
                        ("senders", lambda: check_senders(path, threads,
                                                          tmp)),
                        ("oversized", lambda: check_oversized(
                            path, threads, tmp)),
                        ("slow", lambda: check_slow(path, threads, tmp)),
                        ("large message", lambda: check_large_message(
                            path, threads, tmp)),
                    ]
                    if name == "serverkit":
                        cases.append(("clean ring/moodycamel",
                                      lambda: check_clean(
                                          loadtest, path, threads, tmp,
                                          ["--buffer=ring",
                                           "--task_queue=moodycamel"])))
                    for case, fn in cases:
                        label = "%s threads %d %s" % (name, threads, case)
                        try:
                            print("PASS %s: %s" % (label, fn()), flush=True)
                        except (AssertionError, OSError) as e:
                            failures += 1
                            print("FAIL %s: %s" % (label, e), flush=True)
        finally:
            procs.stop_all()
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
