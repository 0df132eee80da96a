# -----------------------------------------------------------------------------
# servers/chat/codec.py
# -----------------------------------------------------------------------------
#
# muduo's chat codec in Python, as codec.h has it: a frame is a 4-byte length
# in network byte order followed by the message. `FrameReader` collects the
# frames of a byte stream; `round_of` reads the load test's message body
# (kind b"P" join probe or b"R" round, uint32 sequence in network order,
# 8 bytes of send time, filler bytes (seq + i) mod 256), so a test client
# can follow the load test's rounds.
#
# The bottom layer of servers/chat: standard library only.

from __future__ import annotations

import struct
from typing import Optional

HEADER = 4
DEFAULT_MAX_MESSAGE = 64 * 1024
BODY_HEADER = 13


def frame(message: bytes) -> bytes:
    return struct.pack("!I", len(message)) + message


def header(length: int) -> bytes:
    """A bare length header (for the oversized-length tests)."""
    return struct.pack("!I", length)


class FrameReader:
    """The messages of a byte stream, in order, as they complete."""

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out: list[bytes] = []
        while len(self._buf) >= HEADER:
            (n,) = struct.unpack("!I", self._buf[:HEADER])
            if len(self._buf) < HEADER + n:
                break
            out.append(self._buf[HEADER:HEADER + n])
            self._buf = self._buf[HEADER + n:]
        return out

    def pending(self) -> int:
        return len(self._buf)


def round_of(body: bytes) -> Optional[tuple[str, int]]:
    """(kind "P" or "R", sequence) of a load test message whose filler is
    intact; None for anything else."""
    if len(body) < BODY_HEADER or body[:1] not in (b"P", b"R"):
        return None
    (seq,) = struct.unpack("!I", body[1:5])
    for i in range(BODY_HEADER, len(body)):
        if body[i] != (seq + i) & 0xFF:
            return None
    return body[:1].decode(), seq
