# -----------------------------------------------------------------------------
# servers/soak/normal.py
# -----------------------------------------------------------------------------
#
# The soak's normal clients, one thread each, at a modest set rate; each
# checks every byte it gets back, and any loss, corruption, hang (no reply
# within REPLY_TIMEOUT s) or disconnection is a failure (Tally.fail, which
# stops the soak):
#
#   - `PingPong`: one connection to the ping-pong server (header protocol);
#     batches of 1-4 messages pipelined in one write, bodies of 0-8192
#     bytes, each reply compared with its message byte for byte;
#   - `ChatRoom`: CHAT_CLIENTS connections to the chat server, joined (each
#     has seen every other's probe) before the count starts; each sends
#     sequenced messages of 7-2006 bytes; every client must get every
#     client's every message, intact and in each sender's order, within
#     REPLY_TIMEOUT s; messages of hostile clients must be intact;
#   - `Http`: one keep-alive connection to the HTTP server; batches of 1-8
#     pipelined GET /collect, each reply 200 {"ok":true}, nothing extra.
#
# When the stop event is set, each finishes what it has in flight (the
# chat room waits until every message sent has reached every client) and
# closes.
#
# Above wire and procs.

from __future__ import annotations

import select
import socket
import threading
import time

from servers.soak import wire
from servers.soak.procs import Tally

REPLY_TIMEOUT = 10.0
CHAT_CLIENTS = 3


def _connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=REPLY_TIMEOUT)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def _recv_exact(s: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(n - len(buf), 1 << 16))
        if not chunk:
            raise ConnectionError("EOF after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return bytes(buf)


class Pacer:
    """Sleeps until the next tick of `rate` per second, without bursts
    after a delay; False once stop is set."""

    def __init__(self, rate: float, stop: threading.Event) -> None:
        self.period, self.stop = 1.0 / rate, stop
        self.next = time.monotonic()

    def wait(self) -> bool:
        now = time.monotonic()
        self.next = max(self.next + self.period, now - self.period)
        return not self.stop.wait(max(0.0, self.next - now))


class PingPong(threading.Thread):
    def __init__(self, port: int, index: int, rate: float,
                 tally: Tally) -> None:
        super().__init__(name="pingpong-%d" % index, daemon=True)
        self.port, self.index, self.rate, self.tally = port, index, rate, tally

    def run(self) -> None:
        count = self.index * 1000003
        try:
            with _connect(self.port) as s:
                pacer = Pacer(self.rate, self.tally.stop)
                while pacer.wait():
                    depth = 1 + count % 4
                    msgs = [wire.pp_message(((count + k) * 131) % 8193,
                                            count + k) for k in range(depth)]
                    sent = b"".join(msgs)
                    s.sendall(sent)
                    got = _recv_exact(s, len(sent))
                    if got != sent:
                        at = next(i for i in range(len(sent))
                                  if got[i] != sent[i])
                        raise AssertionError(
                            "reply byte %d of %d differs (packets %d-%d)"
                            % (at, len(sent), count, count + depth - 1))
                    count += depth
                    self.tally.add_checked("pingpong", depth)
        except (OSError, AssertionError) as e:
            self.tally.fail("pingpong client %d: %s: %s"
                            % (self.index, type(e).__name__, e))


class Http(threading.Thread):
    def __init__(self, port: int, index: int, rate: float,
                 tally: Tally) -> None:
        super().__init__(name="http-%d" % index, daemon=True)
        self.port, self.index, self.rate, self.tally = port, index, rate, tally

    def run(self) -> None:
        n = 0
        try:
            with _connect(self.port) as s:
                reader = wire.HttpReader()
                pacer = Pacer(self.rate, self.tally.stop)
                while pacer.wait():
                    k = 1 + n % 8
                    s.sendall(b"".join(wire.http_get(n + i)
                                       for i in range(k)))
                    got: list[wire.HttpResponse] = []
                    while len(got) < k:
                        data = s.recv(1 << 16)
                        if not data:
                            raise ConnectionError(
                                "EOF after %d of %d replies" % (len(got), k))
                        got += reader.feed(data)
                    if len(got) > k or reader.pending():
                        raise AssertionError("%d replies to %d requests"
                                             % (len(got), k))
                    for i, r in enumerate(got):
                        problem = wire.http_ok_problem(r)
                        if problem:
                            raise AssertionError("request %d: %s"
                                                 % (n + i, problem))
                    n += k
                    self.tally.add_checked("http", k)
        except (OSError, AssertionError, ValueError) as e:
            self.tally.fail("http client %d: %s: %s"
                            % (self.index, type(e).__name__, e))


class ChatRoom(threading.Thread):
    """CHAT_CLIENTS clients in one thread; each sends `rate` messages a
    second."""

    def __init__(self, port: int, rate: float, tally: Tally) -> None:
        super().__init__(name="chat", daemon=True)
        self.port, self.rate, self.tally = port, rate, tally
        k = CHAT_CLIENTS
        self.socks: list[socket.socket] = []
        self.readers = [wire.FrameReader() for _ in range(k)]
        self.sent_at: list[list[float]] = [[] for _ in range(k)]
        # expected[r][s]: the next sequence client r must get from s.
        self.expected = [[0] * k for _ in range(k)]
        self.probes: list[set[bytes]] = [set() for _ in range(k)]

    def run(self) -> None:
        try:
            self.socks = [_connect(self.port) for _ in range(CHAT_CLIENTS)]
            self._join()
            self._chat()
            self._drain()
        except (OSError, AssertionError) as e:
            self.tally.fail("chat: %s: %s" % (type(e).__name__, e))
        finally:
            for s in self.socks:
                s.close()

    def _read(self, timeout: float) -> None:
        """Reads what arrives within timeout and checks it."""
        ready, _, _ = select.select(self.socks, [], [], timeout)
        for s in ready:
            r = self.socks.index(s)
            data = s.recv(1 << 16)
            if not data:
                raise AssertionError("the server closed client %d" % r)
            for m in self.readers[r].feed(data):
                self._check(r, m)

    def _check(self, r: int, m: bytes) -> None:
        got = wire.chat_check(m)
        if got is None:
            raise AssertionError("client %d got a corrupt message of %d "
                                 "bytes: %r" % (r, len(m), m[:16]))
        sender, seq = got
        if sender < 0:
            if m[:1] == b"J":
                self.probes[r].add(m)
            return
        if sender >= CHAT_CLIENTS or seq != self.expected[r][sender]:
            raise AssertionError("client %d got sender %d's message %d, "
                                 "expected %d" % (r, sender, seq,
                                                  self.expected[r][sender]
                                                  if sender < CHAT_CLIENTS
                                                  else -1))
        self.expected[r][sender] += 1
        self.tally.add_checked("chat", 1)

    def _join(self) -> None:
        """Probes until every client has seen all of one attempt's (a
        message reaches only the clients the server has registered)."""
        for attempt in range(100):
            probes = {b"J %d %d" % (attempt, i)
                      for i in range(CHAT_CLIENTS)}
            for i, s in enumerate(self.socks):
                s.sendall(wire.chat_frame(b"J %d %d" % (attempt, i)))
            until = time.monotonic() + 0.2 * (attempt + 1)
            while time.monotonic() < until:
                self._read(0.05)
                if all(probes <= seen for seen in self.probes):
                    return
            if self.tally.stop.is_set():
                return
        raise AssertionError("the chat clients never all joined")

    def _send(self, sender: int) -> None:
        seq = len(self.sent_at[sender])
        self.socks[sender].sendall(wire.chat_frame(
            wire.chat_normal(sender, seq, 7 + (seq * 53) % 2000)))
        self.sent_at[sender].append(time.monotonic())

    def _late(self) -> None:
        """Fails when a message sent REPLY_TIMEOUT s ago has not reached a
        client."""
        now = time.monotonic()
        for r in range(CHAT_CLIENTS):
            for s in range(CHAT_CLIENTS):
                e = self.expected[r][s]
                if (e < len(self.sent_at[s]) and
                        now - self.sent_at[s][e] > REPLY_TIMEOUT):
                    raise AssertionError(
                        "client %d still waits for sender %d's message %d "
                        "after %.0f s" % (r, s, e, now - self.sent_at[s][e]))

    def _chat(self) -> None:
        period = 1.0 / self.rate
        nxt = time.monotonic()
        while not self.tally.stop.is_set():
            now = time.monotonic()
            if now >= nxt:
                for sender in range(CHAT_CLIENTS):
                    self._send(sender)
                nxt = max(nxt + period, now - period)
                self._late()
            self._read(max(0.0, min(nxt - time.monotonic(), 0.1)))

    def _drain(self) -> None:
        """Until every message sent has reached every client."""
        total = [len(x) for x in self.sent_at]
        deadline = time.monotonic() + REPLY_TIMEOUT
        while any(self.expected[r] != total for r in range(CHAT_CLIENTS)):
            if time.monotonic() > deadline:
                raise AssertionError(
                    "after the stop, not every message arrived: sent %s, "
                    "got %s" % (total, self.expected))
            self._read(0.1)
