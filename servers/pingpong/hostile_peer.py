# -----------------------------------------------------------------------------
# servers/pingpong/hostile_peer.py
# -----------------------------------------------------------------------------
#
# A hostile peer's moves for pingpong_test, and what /proc says of the
# server under them: sending without reading until the server stalls, or
# then half-closing; the server's RSS, whether all its threads sleep, the
# queues of both ends of a loopback connection, the connections to a port.
#
# A bottom layer of servers/pingpong: standard library only.

from __future__ import annotations

import dataclasses
import os
import select
import socket
import threading
import time
from typing import Optional


def rss_kib(pid: int) -> int:
    """The resident set of a live process, in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for pid %d" % pid)


@dataclasses.dataclass(frozen=True)
class TcpEnd:
    """One IPv4 TCP socket as /proc/net/tcp lists it: its state (hex, "01"
    ESTABLISHED), local and remote ports, and its send and receive queues
    (bytes its peer has not acknowledged, bytes its process has not read)."""
    state: str
    local_port: int
    remote_port: int
    send_queue: int
    receive_queue: int


def tcp_ends() -> list[TcpEnd]:
    """Every IPv4 TCP socket of the machine, from /proc/net/tcp."""
    out = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            tx, rx = fields[4].split(":")
            out.append(TcpEnd(fields[3], int(fields[1].split(":")[1], 16),
                              int(fields[2].split(":")[1], 16),
                              int(tx, 16), int(rx, 16)))
    return out


def tcp_queues(sock: socket.socket
               ) -> tuple[tuple[int, int], tuple[int, int]]:
    """The queues of both ends of a connected loopback IPv4 TCP socket, ours
    first: each (send queue, receive queue); (0, 0) for an end not found.
    Half-closed ends count: FIN_WAIT1, FIN_WAIT2 and CLOSE_WAIT as well as
    ESTABLISHED."""
    ours, peer = sock.getsockname()[1], sock.getpeername()[1]
    ends = {(e.local_port, e.remote_port): (e.send_queue, e.receive_queue)
            for e in tcp_ends() if e.state in ("01", "04", "05", "08")}
    return ends.get((ours, peer), (0, 0)), ends.get((peer, ours), (0, 0))


def threads_asleep(pid: int) -> bool:
    """Whether every thread of process pid sleeps (state S): none runs or
    waits for a CPU. False when the process is gone."""
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "S":
                    return False
        return True
    except (OSError, IndexError):
        return False


def stall_poll(sock: socket.socket, pid: int,
               last: Optional[tuple[int, int]]
               ) -> tuple[bool, Optional[tuple[int, int]]]:
    """One poll of whether process pid, the other end of loopback connection
    sock, has stalled on it: its end holds unread bytes while all its threads
    sleep, alike on this poll and the last (last: the previous poll's queues
    of its end, or None). Returns (stalled, this poll's)."""
    theirs = tcp_queues(sock)[1]
    idle = theirs[1] > 0 and threads_asleep(pid)
    return idle and theirs == last, theirs if idle else None


def connections_to(port: int) -> int:
    """The established IPv4 connections to local port `port`, counted from
    their client ends."""
    return sum(1 for e in tcp_ends()
               if e.state == "01" and e.remote_port == port)


def read_to_eof(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    while True:
        c = sock.recv(1 << 16)
        if not c:
            return b"".join(chunks)
        chunks.append(c)


def send_half_close_read(sock: socket.socket, data: bytes, pid: int
                         ) -> bytes:
    """Sends data without reading (from a thread), half-closes, and returns
    everything read up to EOF. Reading starts once the writer is done, when
    the half-close must meet output the server still holds (asserted), or
    once the server is seen stalled (stall_poll), when the writer cannot
    finish until someone reads."""
    sent = [0]
    failed: list[OSError] = []

    def writer() -> None:
        try:
            view = memoryview(data)
            while sent[0] < len(data):
                sent[0] += sock.send(view[sent[0]:sent[0] + (1 << 20)])
            sock.shutdown(socket.SHUT_WR)
        except OSError as e:
            failed.append(e)
    t = threading.Thread(target=writer)
    t.start()
    last: Optional[tuple[int, int]] = None
    deadline = time.monotonic() + 60
    while t.is_alive():
        stalled, last = stall_poll(sock, pid, last)
        if stalled:
            break
        assert time.monotonic() < deadline, \
            "neither done nor stalled after %d bytes" % sent[0]
        t.join(0.05)
    if not t.is_alive() and not failed:
        assert tcp_queues(sock)[1][0] > 0, \
            "the server held no output at the half-close: nothing tested"
    got = read_to_eof(sock)
    t.join(30)
    assert not failed, "sending failed after %d bytes: %s" % (sent[0],
                                                              failed[0])
    return got


def send_until_stalled(s: socket.socket, pid: int, log_path: str,
                       chunk: bytes) -> tuple[int, int]:
    """Sends without reading until the server is seen stalled (stall_poll)
    and has said it paused reading. Returns the bytes sent and those the
    server read (sent, less what waits in either end's queue)."""
    s.setblocking(False)
    sent, deadline = 0, time.monotonic() + 60
    last: Optional[tuple[int, int]] = None
    mark = os.path.getsize(log_path)
    while sent < (96 << 20) and time.monotonic() < deadline:
        try:  # on from where the last send stopped: the stream stays aligned
            sent += s.send(chunk[sent % len(chunk):])
            last = None
            continue
        except BlockingIOError:
            pass
        stalled, last = stall_poll(s, pid, last)
        with open(log_path) as f:
            f.seek(mark)
            if stalled and "reading paused" in f.read():
                mine, theirs = tcp_queues(s)
                return sent, sent - mine[0] - theirs[1]
        select.select([], [s], [], 0.05)
    raise AssertionError("never seen stalled: %d MiB in" % (sent >> 20))
