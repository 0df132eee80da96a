#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/loadgen/loadgen_test.py
# -----------------------------------------------------------------------------
#
# loadgen_test.py LOADGEN STALL_ECHO_SERVER
#
# The generator end to end, on everything but its timing (see
# coordinated_omission_test.py and void_test.py):
#   - bad flags exit 2 with a message, --help exits 0;
#   - a refused connection exits 1 with a clear error, in the JSON too;
#   - echo on 2 threads with Poisson arrivals: ok, every key of the JSON,
#     the counts adding up, the achieved rate near the asked one;
#   - the floor (stall_echo_server) on 3 loops: connections spread over
#     them, every request answered; stalls on more than one refused;
#   - a server that closes one connection mid-run: its requests are errors,
#     the other connections go on, exit 1;
#   - a peer that never answers: every request unanswered, exit 1;
#   - a peer that never reads: the output stops at 64 MiB, exit 1;
#   - HTTP: exact request bytes, responses written in two pieces are timed
#     (exit 0); no Content-Length, chunked, a 500, and a server that closes
#     each connection after a few responses are errors (exit 1).
# Lag bounds are loose (--max_lag_us=50000): a busy machine must not void
# these runs. A run that expects exit 0 and is void all the same (a pause
# of the machine) is run again, up to twice.

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from typing import Any

from servers.loadgen import harness

KEYS = {"ok", "void", "void_reason", "protocol", "rate", "arrivals", "mode",
        "connections", "threads", "duration_s", "warmup_s", "scheduled",
        "sent", "completed", "errors", "unanswered", "unsent", "held",
        "achieved_rate", "latency_us", "uncorrected_us", "lag_us",
        "read_lag_us", "error"}
LATENCY_KEYS = {"p50", "p90", "p99", "p999", "p9999", "max", "mean", "count"}
LOOSE = "--max_lag_us=50000"
SHORT = ["--warmup=0.2", "--duration=0.5", LOOSE]


def expect_consistent(r: dict[str, Any]) -> None:
    assert r["sent"] + r["unsent"] <= r["scheduled"], r
    assert (r["completed"] + r["errors"] + r["unanswered"] + r["unsent"]
            == r["scheduled"]), r
    assert r["latency_us"]["count"] == r["completed"], r
    assert r["uncorrected_us"]["count"] == r["completed"], r


def test_flags(loadgen: str) -> None:
    for flags, message in [
            (["--port=1", "--rate=1"], "missing required flag --protocol"),
            (["--protocol=echo", "--rate=1"], "missing required flag --port"),
            (["--protocol=echo", "--port=1"], "missing required flag --rate"),
            (["--protocol=echo", "--port=1", "--rate=0"], "for --rate"),
            (["--protocol=echo", "--port=1", "--rate=1", "--nope=1"],
             "unknown flag --nope"),
            (["--protocol=echo", "--port=1", "--rate=1", "extra"],
             "expected --name=value"),
            (["--protocol=smtp", "--port=1", "--rate=1"], "for --protocol"),
            (["--protocol=echo", "--port=1", "--rate=1", "--connections=2",
              "--threads=3"], "exceeds --connections=2")]:
        run = harness.run_loadgen(loadgen, *flags)
        assert run.rc == 2, "%s: exit %d" % (flags, run.rc)
        assert message in run.stderr and "usage:" in run.stderr, run.stderr
        assert run.result is None
    run = harness.run_loadgen(loadgen, "--help")
    assert run.rc == 0 and "usage:" in run.stdout


def test_connect_failure(loadgen: str) -> None:
    with socket.socket() as s:  # bound, not listening: connect is refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        run = harness.run_loadgen(loadgen, "--protocol=echo",
                                  "--port=%d" % port, "--rate=100")
    assert run.rc == 1, run.rc
    assert "cannot connect to 127.0.0.1:%d" % port in run.stderr
    assert "refused" in run.stderr
    assert run.result is not None and not run.result["ok"]
    assert "cannot connect" in run.result["error"]


def test_echo(loadgen: str, server_path: str) -> None:
    server, port = harness.start_stall_server(server_path, "--size=100")
    run = harness.run_loadgen(
        loadgen, "--protocol=echo", "--port=%d" % port, "--rate=1000",
        "--connections=4", "--threads=2", "--arrivals=poisson", "--seed=7",
        "--size=100", "--warmup=0.2", "--duration=1", LOOSE, attempts=3)
    assert run.rc == 0, run.rc
    r = run.result
    assert r is not None
    assert set(r) == KEYS, set(r) ^ KEYS
    assert set(r["latency_us"]) == LATENCY_KEYS
    assert set(r["uncorrected_us"]) == LATENCY_KEYS
    assert set(r["lag_us"]) == {"p50", "p99", "max"}
    assert r["ok"] is True and r["error"] == "" and r["errors"] == 0
    assert (r["protocol"], r["arrivals"], r["threads"], r["mode"]) == (
        "echo", "poisson", 2, "pipelined")
    expect_consistent(r)
    assert r["sent"] == r["completed"] == r["scheduled"]
    # Poisson: 1000 expected, standard deviation about 32.
    assert 800 < r["completed"] < 1200, r["completed"]
    assert abs(r["achieved_rate"] - r["completed"]) < 1e-6
    assert 0 < r["latency_us"]["p50"] <= r["latency_us"]["p99"] <= (
        r["latency_us"]["max"])
    # The closed-loop view can only be shorter.
    assert r["uncorrected_us"]["mean"] <= r["latency_us"]["mean"]
    harness.stop_stall_server(server)


def test_floor_threads(loadgen: str, server_path: str) -> None:
    """The floor on 3 loops: 24 connections land on more than one (a
    one-loop spread has odds 3 * 3^-24), every request is answered, and
    the loops' counts add up to at least the timed window's (the warm-up's
    0.2 s, 400 more, are counted by the server only)."""
    server, port = harness.start_stall_server(server_path, "--size=100",
                                              "--threads=3")
    run = harness.run_loadgen(
        loadgen, "--protocol=echo", "--port=%d" % port, "--rate=2000",
        "--connections=24", "--threads=2", "--size=100", *SHORT)
    last = harness.stop_stall_server(server)[-1].split()
    assert run.rc == 0 and run.result is not None, (run.rc, run.stderr)
    assert last[0] == "messages" and last[6] == "loops_used", last
    r = run.result
    assert r["completed"] == r["sent"] == r["scheduled"], r
    assert r["sent"] < int(last[1]) <= r["sent"] + 450, (last, r)
    assert int(last[7]) >= 2, last
    for flags in (["--threads=2", "--stall_every=10"],
                  ["--threads=2", "--close_at=5"], ["--threads=0"]):
        p = subprocess.run([server_path, *flags], capture_output=True,
                           text=True, timeout=10)
        assert p.returncode == 2 and "stall_echo_server:" in p.stderr, (
            flags, p.returncode, p.stderr)


def test_server_closes(loadgen: str, server_path: str) -> None:
    server, port = harness.start_stall_server(server_path, "--close_at=300")
    run = harness.run_loadgen(loadgen, "--protocol=echo", "--port=%d" % port,
                              "--rate=1000", "--connections=4", *SHORT)
    harness.stop_stall_server(server)
    assert run.rc == 1, run.rc
    r = run.result
    assert r is not None and not r["ok"] and not r["void"]
    expect_consistent(r)
    assert "closed by the server" in r["error"], r["error"]
    # Message 300 is sent at 0.3 s: the closed connection loses about a
    # quarter of the 500 measured requests; the other three keep going.
    assert 60 < r["errors"] < 200, r["errors"]
    assert r["completed"] >= 0.7 * r["scheduled"], r


def test_unanswered(loadgen: str) -> None:
    server = harness.ToyServer(lambda conn, data: b"")
    run = harness.run_loadgen(loadgen, "--protocol=echo",
                              "--port=%d" % server.port, "--rate=200",
                              "--connections=2", *SHORT)
    server.close()
    assert run.rc == 1, run.rc
    r = run.result
    assert r is not None and not r["ok"]
    assert r["unanswered"] == r["sent"] == r["scheduled"] > 0, r
    assert r["completed"] == 0 and "unanswered" in r["error"]
    expect_consistent(r)


def test_unbounded_output(loadgen: str) -> None:
    # A peer that never accepts: the kernel completes the handshakes, then
    # its receive buffer fills and our output must stop at 64 MiB.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        run = harness.run_loadgen(
            loadgen, "--protocol=echo", "--port=%d" % s.getsockname()[1],
            "--size=1048576", "--rate=400", "--connections=1", *SHORT)
    assert run.rc == 1, run.rc
    r = run.result
    assert r is not None and not r["ok"] and not r["void"], r
    assert "over 64 MiB of requests the server did not read" in r["error"]
    assert r["sent"] <= 80, r


class HttpResponder:
    """Answers each pipelined GET as its path says."""

    REQUEST = b"GET %s HTTP/1.1\r\nHost: test.example\r\n\r\n"
    OK = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world"

    def __init__(self) -> None:
        self.buffers: dict[int, bytes] = {}
        self.answered: dict[int, int] = {}
        self.bad_request = b""
        self.lock = threading.Lock()

    def __call__(self, conn: int, data: bytes) -> bytes | None:
        buf = self.buffers.get(conn, b"") + data
        out = b""
        while b"\r\n\r\n" in buf:
            head, buf = buf.split(b"\r\n\r\n", 1)
            path = head.split(b" ")[1]
            if head + b"\r\n\r\n" != self.REQUEST % path:
                self.bad_request = head
            n = self.answered.get(conn, 0) + 1
            self.answered[conn] = n
            if path == b"/ok":
                out += self.OK
            elif path == b"/nolength":
                out += b"HTTP/1.1 200 OK\r\nServer: toy\r\n\r\nhello"
            elif path == b"/chunked":
                out += (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                        b"\r\n5\r\nhello\r\n0\r\n\r\n")
            elif path == b"/status500":
                out += (b"HTTP/1.1 500 Internal Server Error\r\n"
                        b"Content-Length: 0\r\n\r\n")
            elif path == b"/close":
                if n > 5:
                    return None
                out += self.OK
        self.buffers[conn] = buf
        return out


def test_http(loadgen: str) -> None:
    for path, rc, error in [("/ok", 0, ""),
                            ("/nolength", 1, "without Content-Length"),
                            ("/chunked", 1, "Transfer-Encoding"),
                            ("/status500", 1, "HTTP status 500"),
                            ("/close", 1, "closed by the server")]:
        responder = HttpResponder()
        server = harness.ToyServer(responder)
        run = harness.run_loadgen(
            loadgen, "--protocol=http", "--port=%d" % server.port,
            "--rate=400", "--connections=4", "--path=" + path,
            "--host_header=test.example", *SHORT,
            attempts=3 if rc == 0 else 1)
        server.close()
        assert responder.bad_request == b"", responder.bad_request
        assert run.rc == rc, "%s: exit %d" % (path, run.rc)
        r = run.result
        assert r is not None and r["protocol"] == "http"
        assert r["mode"] == "serial", r  # http's default
        expect_consistent(r)
        assert error in r["error"], (path, r["error"])
        if rc == 0:
            assert r["completed"] == r["scheduled"] == 200, r
        else:
            assert r["errors"] > 0 and not r["ok"], r


def test_http_split_responses(loadgen: str, mode: str) -> None:
    # Every write ends 20 bytes into a response's head: the rest goes out
    # with the next write, when the next pipelined request has come. The
    # reader must join the pieces; each connection's last response stays
    # cut, so it is the one unanswered request. Serial, the next request
    # waits for that reply: each connection sends one, and every request
    # of the window is unanswered (held behind a reply that never came).
    responder = HttpResponder()
    held: dict[int, bytes] = {}
    keep = len(HttpResponder.OK) - 20

    def cut(conn: int, data: bytes) -> bytes | None:
        out = responder(conn, data)
        if out is None:
            return None
        whole = held.pop(conn, b"") + out
        held[conn] = whole[-keep:]
        return whole[:-keep]

    server = harness.ToyServer(cut)
    run = harness.run_loadgen(
        loadgen, "--protocol=http", "--port=%d" % server.port, "--rate=400",
        "--connections=2", "--path=/ok", "--host_header=test.example",
        "--mode=" + mode, *SHORT)
    server.close()
    r = run.result
    assert r is not None and run.rc == 1, run.rc
    assert r["mode"] == mode and r["errors"] == 0, r
    if mode == "pipelined":
        assert r["unanswered"] == 2 and r["held"] == 0, r
        assert r["completed"] == r["scheduled"] - 2, r
    else:
        assert r["completed"] == 0 and r["sent"] <= 2, r
        assert r["unanswered"] == r["scheduled"] == 200, r
        assert r["held"] >= 2, r
    expect_consistent(r)


def main() -> None:
    loadgen, server_path = sys.argv[1], sys.argv[2]
    test_flags(loadgen)
    test_connect_failure(loadgen)
    test_echo(loadgen, server_path)
    test_floor_threads(loadgen, server_path)
    test_server_closes(loadgen, server_path)
    test_unanswered(loadgen)
    test_unbounded_output(loadgen)
    test_http(loadgen)
    test_http_split_responses(loadgen, "pipelined")
    test_http_split_responses(loadgen, "serial")
    print("PASS")


if __name__ == "__main__":
    main()
