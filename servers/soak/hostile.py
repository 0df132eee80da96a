# -----------------------------------------------------------------------------
# servers/soak/hostile.py
# -----------------------------------------------------------------------------
#
# The soak's hostile clients: one thread per server (`Hostile`) that, until
# the stop event, runs one kind after another in a seeded random order,
# a short pause between them. The kinds are those the servers' own tests
# send (servers/pingpong/pingpong_test.py and hostile_peer.py,
# servers/chat/chat_test.py, servers/http/http_server_test.py):
#
#   never-reading  a small receive window, sends without reading until the
#                  server stalls it (no progress for STALL_S) or a cap,
#                  holds, then closes with unread data (a reset);
#                  ping-pong: 64 KiB messages; chat: 4 KiB frames, broadcast
#                  to the room as well; HTTP: pipelined GETs;
#   half-close     sends a batch, shuts down its writing side with replies
#                  pending, then either reads to EOF or closes at once;
#   slow           a message dribbled one byte at a time (HTTP: slow loris,
#                  a head dribbled and sometimes never finished);
#   malformed      ping-pong: body_size over --max_body, a truncated header,
#                  a truncated body; chat: lengths 65537 and 2^32-1 (over
#                  the default --max_message of 64 KiB); HTTP: a bad request
#                  line, a head over 8 KiB (431), a target over 8 KiB
#                  (414), binary junk;
#   churn          CHURN connections opened and closed, every other one with
#                  a reset (SO_LINGER 0), some after a partial message.
#
# A hostile client may be disconnected or refused: every socket error is
# expected, counted nowhere but the connection count, and never a failure.
# Each connection made is counted (Tally.add_hostile) by server and kind.
#
# Above wire and procs.

from __future__ import annotations

import random
import select
import socket
import struct
import threading
import time
from typing import Callable

from servers.soak import wire
from servers.soak.procs import Tally

STALL_S = 1.0
NEVER_READ_CAP = 48 << 20
CHURN = 20
PAUSE_S = 0.2
MAX_BODY = 65536  # the ping-pong server's --max_body in the soak


def _sock(port: int, rcvbuf: int = 0) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(5.0)
    s.connect(("127.0.0.1", port))
    return s


def _reset(s: socket.socket) -> None:
    """Closes with a reset rather than a FIN."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def _drain(s: socket.socket, seconds: float) -> None:
    """Reads and drops until EOF, an error, or seconds pass."""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            if not s.recv(1 << 16):
                return
    except OSError:
        pass


def _never_read(s: socket.socket, chunk: bytes, stop: threading.Event
                ) -> None:
    """Sends chunk over and over (the stream stays aligned) without reading
    until no byte went out for STALL_S, NEVER_READ_CAP bytes, 15 s, or the
    stop; then holds a moment."""
    s.setblocking(False)
    sent, last = 0, time.monotonic()
    deadline = last + 15.0
    while (sent < NEVER_READ_CAP and time.monotonic() < deadline and
           not stop.is_set()):
        try:
            sent += s.send(chunk[sent % len(chunk):])
            last = time.monotonic()
            continue
        except BlockingIOError:
            pass
        if time.monotonic() - last > STALL_S:
            break
        select.select([], [s], [], 0.05)
    stop.wait(0.5)


def _dribble(s: socket.socket, data: bytes, gap: float,
             stop: threading.Event) -> bool:
    """Sends data one byte at a time; False when stopped before the end."""
    for i in range(len(data)):
        if stop.wait(gap):
            return False
        s.sendall(data[i:i + 1])
    return True


def _churn(port: int, partial: bytes, stop: threading.Event) -> int:
    n = 0
    for i in range(CHURN):
        if stop.is_set():
            break
        s = _sock(port)
        n += 1
        if i % 3 == 2:
            s.sendall(partial)
        if i % 2:
            _reset(s)
        else:
            s.close()
    return n


# --- ping-pong ---------------------------------------------------------------

_PP_CHUNK = b"".join(wire.pp_message(MAX_BODY, i) for i in range(16))


def pp_never_reading(port: int, rng: random.Random, stop: threading.Event
                     ) -> int:
    with _sock(port, rcvbuf=4096) as s:
        _never_read(s, _PP_CHUNK, stop)
        _reset(s)
    return 1


def pp_half_close(port: int, rng: random.Random, stop: threading.Event
                  ) -> int:
    with _sock(port, rcvbuf=32768) as s:
        s.sendall(b"".join(wire.pp_message(16384, i) for i in range(64)))
        s.shutdown(socket.SHUT_WR)
        if rng.random() < 0.5:
            _drain(s, 10.0)
    return 1


def pp_slow(port: int, rng: random.Random, stop: threading.Event) -> int:
    with _sock(port) as s:
        if _dribble(s, wire.pp_message(rng.randrange(1, 200), 7), 0.005,
                    stop):
            _drain(s, 0.2)
    return 1


def pp_malformed(port: int, rng: random.Random, stop: threading.Event
                 ) -> int:
    for data in (wire.pp_header(MAX_BODY + 1, 1) + b"x" * 100,
                 wire.pp_header(0xFFFFFFFF, 1),
                 wire.pp_header(100, 1)[:5],
                 wire.pp_message(100, 1)[:50]):
        with _sock(port) as s:
            s.sendall(data)
            if data[:4] == wire.pp_header(100, 1)[:4]:
                s.shutdown(socket.SHUT_WR)  # truncated: the server sees EOF
            _drain(s, 2.0)
    return 4


def pp_churn(port: int, rng: random.Random, stop: threading.Event) -> int:
    return _churn(port, wire.pp_message(100, 3)[:20], stop)


# --- chat --------------------------------------------------------------------

_CHAT_CHUNK = b"".join(wire.chat_frame(wire.chat_hostile(4096))
                       for _ in range(64))


def chat_never_reading(port: int, rng: random.Random,
                       stop: threading.Event) -> int:
    with _sock(port, rcvbuf=4096) as s:
        sent = 0
        while sent < (1 << 20) and not stop.is_set():  # 1 MiB, paced
            s.sendall(_CHAT_CHUNK)
            sent += len(_CHAT_CHUNK)
            stop.wait(0.05)
        stop.wait(2.0)
        _reset(s)
    return 1


def chat_half_close(port: int, rng: random.Random, stop: threading.Event
                    ) -> int:
    with _sock(port) as s:
        s.sendall(b"".join(wire.chat_frame(wire.chat_hostile(100 + i))
                           for i in range(10)))
        s.shutdown(socket.SHUT_WR)
        if rng.random() < 0.5:
            _drain(s, 0.5)
    return 1


def chat_slow(port: int, rng: random.Random, stop: threading.Event) -> int:
    with _sock(port) as s:
        if _dribble(s, wire.chat_frame(wire.chat_hostile(
                rng.randrange(1, 150))), 0.005, stop):
            _drain(s, 0.3)
    return 1


def chat_malformed(port: int, rng: random.Random, stop: threading.Event
                   ) -> int:
    for data in (wire.chat_length(wire.CHAT_MAX_MESSAGE + 1) + b"x" * 100,
                 wire.chat_length(0xFFFFFFFF)):
        with _sock(port) as s:
            s.sendall(data)
            _drain(s, 2.0)
    return 2


def chat_churn(port: int, rng: random.Random, stop: threading.Event) -> int:
    return _churn(port, wire.chat_length(50) + b"H" * 10, stop)


# --- HTTP --------------------------------------------------------------------

_HTTP_CHUNK = b"".join(wire.http_get(i) for i in range(1000))
_HEAD = b"GET /collect?v=1 HTTP/1.1\r\nHost: soak\r\nUser-Agent: loris\r\n\r\n"


def http_never_reading(port: int, rng: random.Random,
                       stop: threading.Event) -> int:
    with _sock(port, rcvbuf=4096) as s:
        _never_read(s, _HTTP_CHUNK, stop)
        _reset(s)
    return 1


def http_half_close(port: int, rng: random.Random, stop: threading.Event
                    ) -> int:
    with _sock(port) as s:
        s.sendall(b"".join(wire.http_get(i) for i in range(100)))
        s.shutdown(socket.SHUT_WR)
        if rng.random() < 0.5:
            _drain(s, 5.0)
    return 1


def http_slow(port: int, rng: random.Random, stop: threading.Event) -> int:
    with _sock(port) as s:
        end = len(_HEAD) if rng.random() < 0.5 else rng.randrange(len(_HEAD))
        if _dribble(s, _HEAD[:end], 0.01, stop):
            _drain(s, 0.5 if end == len(_HEAD) else 0.0)
            stop.wait(0.5)  # a loris holds its connection a moment
    return 1


def http_malformed(port: int, rng: random.Random, stop: threading.Event
                   ) -> int:
    requests = (b"BAD\x01 request\r\n\r\n",
                b"GET /collect HTTP/1.1\r\nX-Pad: " + b"a" * 9000 +
                b"\r\n\r\n",
                b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: t\r\n\r\n",
                bytes(rng.randrange(256) for _ in range(300)))
    for data in requests:
        with _sock(port) as s:
            s.sendall(data)
            _drain(s, 2.0)
    return len(requests)


def http_churn(port: int, rng: random.Random, stop: threading.Event) -> int:
    return _churn(port, _HEAD[:20], stop)


Kind = Callable[[int, random.Random, threading.Event], int]
KINDS: dict[str, dict[str, Kind]] = {
    "pingpong": {"never-reading": pp_never_reading,
                 "half-close": pp_half_close, "slow": pp_slow,
                 "malformed": pp_malformed, "churn": pp_churn},
    "chat": {"never-reading": chat_never_reading,
             "half-close": chat_half_close, "slow": chat_slow,
             "malformed": chat_malformed, "churn": chat_churn},
    "http": {"never-reading": http_never_reading,
             "half-close": http_half_close, "slow": http_slow,
             "malformed": http_malformed, "churn": http_churn},
}


class Hostile(threading.Thread):
    """One server's hostile clients, one kind at a time until the stop."""

    def __init__(self, server: str, port: int, seed: int,
                 tally: Tally) -> None:
        super().__init__(name="hostile-" + server, daemon=True)
        self.server, self.port, self.tally = server, port, tally
        self.rng = random.Random(seed)

    def run(self) -> None:
        kinds = KINDS[self.server]
        names = sorted(kinds)
        while not self.tally.stop.is_set():
            order = names[:]
            self.rng.shuffle(order)
            for name in order:
                if self.tally.stop.is_set():
                    return
                try:
                    n = kinds[name](self.port, self.rng, self.tally.stop)
                except OSError:
                    n = 1  # refused, reset or timed out: allowed
                self.tally.add_hostile(self.server, name, n)
                self.tally.stop.wait(PAUSE_S)
