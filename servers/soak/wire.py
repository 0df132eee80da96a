# -----------------------------------------------------------------------------
# servers/soak/wire.py
# -----------------------------------------------------------------------------
#
# The three servers' wire formats as the soak's clients write and check
# them, standard library only:
#
#   - ping-pong, header protocol (servers/pingpong/common.h): an 8-byte
#     header {uint32 body_size, uint32 packet_count} in network byte order,
#     then body_size bytes, byte i = (packet_count + i) mod 256; the server
#     echoes each message whole;
#   - chat (servers/chat/codec.h): a 4-byte big-endian length, then the
#     message; the server broadcasts each frame to every client. A normal
#     client's message is b"N", uint16 sender, uint32 sequence, then filler
#     byte i = (sequence + i) mod 256; a hostile client's is b"H" then
#     filler byte i = (7 * i) mod 256; a joining probe is b"J..." (any);
#   - HTTP (servers/http/http_handler.h): GET /collect answers 200 with the
#     body {"ok":true}; `HttpReader` takes whole responses out of a stream.
#
# The bottom layer of servers/soak.

from __future__ import annotations

import dataclasses
import struct
from typing import Optional

# --- ping-pong ---------------------------------------------------------------

PP_HEADER = 8
_PATTERN = bytes(i & 0xFF for i in range(256 + (1 << 20)))


def pp_body(body_size: int, packet_count: int) -> bytes:
    """The body of the message with packet_count (body_size <= 1 MiB)."""
    off = packet_count & 0xFF
    return _PATTERN[off:off + body_size]


def pp_message(body_size: int, packet_count: int) -> bytes:
    return (struct.pack("!II", body_size, packet_count) +
            pp_body(body_size, packet_count))


def pp_header(body_size: int, packet_count: int) -> bytes:
    """A bare header (for the oversized and truncated messages)."""
    return struct.pack("!II", body_size, packet_count)


# --- chat --------------------------------------------------------------------

CHAT_HEADER = 4
CHAT_MAX_MESSAGE = 64 * 1024  # the servers' default --max_message
_NORMAL_HEAD = 7  # b"N", sender, sequence
_HOSTILE = bytes((7 * i) & 0xFF for i in range(CHAT_MAX_MESSAGE))


def chat_frame(message: bytes) -> bytes:
    return struct.pack("!I", len(message)) + message


def chat_length(length: int) -> bytes:
    """A bare length header (for the oversized lengths)."""
    return struct.pack("!I", length)


def chat_normal(sender: int, seq: int, size: int) -> bytes:
    """Normal client `sender`'s message number seq, size bytes in all
    (at least 7)."""
    off = seq & 0xFF
    return (b"N" + struct.pack("!HI", sender, seq) +
            _PATTERN[off + _NORMAL_HEAD:off + size])


def chat_hostile(size: int) -> bytes:
    """A hostile client's message of size bytes (at least 1)."""
    return b"H" + _HOSTILE[1:size]


def chat_check(message: bytes) -> Optional[tuple[int, int]]:
    """(sender, sequence) of an intact normal message; (-1, -1) for an
    intact hostile message or a joining probe; None for a corrupt one."""
    kind = message[:1]
    if kind == b"J":
        return -1, -1
    if kind == b"H":
        return (-1, -1) if message == chat_hostile(len(message)) else None
    if kind != b"N" or len(message) < _NORMAL_HEAD:
        return None
    sender, seq = struct.unpack("!HI", message[1:_NORMAL_HEAD])
    if message != chat_normal(sender, seq, len(message)):
        return None
    return sender, seq


class FrameReader:
    """The chat messages of a byte stream, in order, as they complete."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out: list[bytes] = []
        pos = 0
        while len(self._buf) - pos >= CHAT_HEADER:
            (n,) = struct.unpack_from("!I", self._buf, pos)
            if len(self._buf) - pos < CHAT_HEADER + n:
                break
            out.append(bytes(self._buf[pos + CHAT_HEADER:
                                       pos + CHAT_HEADER + n]))
            pos += CHAT_HEADER + n
        del self._buf[:pos]
        return out


# --- HTTP --------------------------------------------------------------------

HTTP_BODY = b'{"ok":true}'


def http_get(n: int) -> bytes:
    return b"GET /collect?v=%d HTTP/1.1\r\nHost: soak\r\n\r\n" % n


@dataclasses.dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: dict[str, str]
    body: bytes


class HttpReader:
    """Whole HTTP/1.1 responses out of a byte stream (Content-Length
    bodies). Raises ValueError on bytes that are no response."""

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, data: bytes) -> list[HttpResponse]:
        self._buf += data
        out: list[HttpResponse] = []
        while True:
            end = self._buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buf) > 16384:
                    raise ValueError("no response head in %d bytes"
                                     % len(self._buf))
                return out
            if not self._buf.startswith(b"HTTP/1.1 "):
                raise ValueError("not a status line: %r" % self._buf[:80])
            lines = self._buf[:end].decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            headers = {}
            for line in lines[1:]:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            n = int(headers.get("content-length", "0"))
            if len(self._buf) < end + 4 + n:
                return out
            body = self._buf[end + 4:end + 4 + n]
            self._buf = self._buf[end + 4 + n:]
            out.append(HttpResponse(status, headers, body))

    def pending(self) -> int:
        return len(self._buf)


def http_ok_problem(r: HttpResponse) -> Optional[str]:
    """What is wrong with a reply to GET /collect; None when nothing."""
    if r.status != 200:
        return "status %d" % r.status
    if r.body != HTTP_BODY:
        return "body %r" % r.body[:80]
    if r.headers.get("content-type") != "application/json":
        return "content-type %r" % r.headers.get("content-type")
    if r.headers.get("connection", "").lower() == "close":
        return "Connection: close on a keep-alive request"
    return None
