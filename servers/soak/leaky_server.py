#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/soak/leaky_server.py
# -----------------------------------------------------------------------------
#
# A planted leak for soak_smoke_test: a stand-in for the ping-pong server
# (the header protocol, one thread per connection, a body over --max_body
# closes its connection) that leaks on purpose, LEAK_KIB of touched memory
# every LEAK_EVERY_S seconds and one descriptor (/dev/null) every
# FD_EVERY_S seconds. The soak pointed at it (--pingpong=this file) must
# name its RSS and its descriptors as leaks while its replies stay right.
#
#   leaky_server.py <addr> <port> <threads> [--protocol=header]
#                        [--max_body=N]
#
# SIGTERM ends it with status 0, as the real servers.

from __future__ import annotations

import os
import signal
import socket
import struct
import sys
import threading
import time
from types import FrameType
from typing import Optional

LEAK_KIB = 256
LEAK_EVERY_S = 0.1
FD_EVERY_S = 0.25


def recv_exact(s: socket.socket, n: int) -> Optional[bytes]:
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(n - len(buf), 1 << 16))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def serve(s: socket.socket, max_body: int) -> None:
    try:
        with s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while True:
                head = recv_exact(s, 8)
                if head is None:
                    return
                size, _count = struct.unpack("!II", head)
                if size > max_body:
                    return
                body = recv_exact(s, size)
                if body is None:
                    return
                s.sendall(head + body)
    except OSError:
        pass


def leak() -> None:
    hoard: list[bytes] = []
    fds: list[int] = []
    last_fd = time.monotonic()
    while True:
        hoard.append(b"\x01" * (LEAK_KIB << 10))
        if time.monotonic() - last_fd >= FD_EVERY_S:
            fds.append(os.open("/dev/null", os.O_RDONLY))
            last_fd = time.monotonic()
        time.sleep(LEAK_EVERY_S)


def main(argv: list[str]) -> int:
    addr, port = argv[0], int(argv[1])
    max_body = 1 << 20
    for a in argv[3:]:
        if a.startswith("--max_body="):
            max_body = int(a.split("=", 1)[1])

    def on_term(_sig: int, _frame: Optional[FrameType]) -> None:
        os._exit(0)
    signal.signal(signal.SIGTERM, on_term)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((addr, port))
    listener.listen(128)
    threading.Thread(target=leak, daemon=True).start()
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, max_body),
                         daemon=True).start()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
