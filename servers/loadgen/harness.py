# -----------------------------------------------------------------------------
# servers/loadgen/harness.py
# -----------------------------------------------------------------------------
#
# What the loadgen tests share: servers started in their own process group
# (killed at exit, and by the kernel if the test dies), the stall echo
# server's port and stall lines, one generator run with its JSON, and
# in-process servers for behaviours a real server rarely shows (HTTP
# responses of every kind, a peer that never answers).

from __future__ import annotations

import atexit
import ctypes
import json
import os
import selectors
import signal
import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

_libc = ctypes.CDLL(None, use_errno=True)
_live: list[subprocess.Popen[str]] = []
T = TypeVar("T")
PR_SET_PDEATHSIG = 1


def _kill_all() -> None:
    for p in _live:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=10)


atexit.register(_kill_all)


def start_stall_server(path: str, *flags: str
                       ) -> tuple[subprocess.Popen[str], int]:
    """Starts stall_echo_server; returns it and the port it listens on."""
    p = subprocess.Popen(
        [path, *flags], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True, start_new_session=True,
        preexec_fn=lambda: _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL))
    _live.append(p)
    assert p.stdout is not None
    line = p.stdout.readline()
    if not line.startswith("port "):
        raise AssertionError("stall_echo_server said %r" % line)
    return p, int(line.split()[1])


def stop_stall_server(p: subprocess.Popen[str]) -> list[str]:
    """Stops it with SIGTERM; returns the lines it printed after the port."""
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=10)
    return out.splitlines()


@dataclass
class Run:
    rc: int
    stdout: str
    stderr: str
    result: dict[str, Any] | None = field(default=None)


# loadgen's exit status for a void run: the generator was paused and could
# not keep its schedule (as on a busy machine), so it measured nothing.
VOID_EXIT = 3


def _again_if_void(attempts: int, once: Callable[[], tuple[Run, T]]
                   ) -> tuple[Run, T]:
    """once() until its run is not void, `attempts` times at most; the
    last one's result."""
    for attempt in range(attempts):
        run, extra = once()
        if run.rc != VOID_EXIT:
            break
        print("attempt %d of %d was void" % (attempt + 1, attempts))
    return run, extra


def run_loadgen(path: str, *flags: str, timeout: float = 60,
                attempts: int = 1) -> Run:
    """Runs the generator with --json; returns its status, output, JSON.
    A void run is run again, `attempts` times in all, for a test that
    expects a kept schedule."""
    return _again_if_void(
        attempts, lambda: (_run_loadgen_once(path, flags, timeout), None))[0]


def _run_loadgen_once(path: str, flags: tuple[str, ...],
                      timeout: float) -> Run:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "result.json")
        p = subprocess.run([path, *flags, "--json=" + out],
                           capture_output=True, text=True, timeout=timeout)
        result = None
        if os.path.exists(out):
            with open(out) as f:
                result = json.load(f)
    print("$ loadgen " + " ".join(flags))
    print(p.stdout + p.stderr, end="", flush=True)
    return Run(p.returncode, p.stdout, p.stderr, result)


def run_against_stall_server(loadgen: str, server_path: str,
                             server_flags: list[str], loadgen_flags: list[str],
                             attempts: int = 3) -> tuple[Run, list[str]]:
    """One generator run against a fresh stall_echo_server; returns the run
    and the server's stall lines. A void run is run again, as in
    run_loadgen, each time against a fresh server (its stalls are numbered
    from the first message)."""
    def once() -> tuple[Run, list[str]]:
        server, port = start_stall_server(server_path, *server_flags)
        run = _run_loadgen_once(loadgen, ("--port=%d" % port, *loadgen_flags),
                                60)
        lines = stop_stall_server(server)
        print("\n".join(lines))
        return run, lines
    return _again_if_void(attempts, once)


class ToyServer:
    """A one-thread server in this process on 127.0.0.1.

    `on_data(conn_id, data)` returns the bytes to send back, or None to close
    the connection. Connections are numbered from 0 in accept order.
    """

    def __init__(self, on_data: Callable[[int, bytes], bytes | None]
                 ) -> None:
        self._on_data = on_data
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._listener.setblocking(False)
        self.port: int = self._listener.getsockname()[1]
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._listener, selectors.EVENT_READ)
        self._stop = False
        self._accepted = 0
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop:
            for key, _ in self._sel.select(timeout=0.05):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                if sock is self._listener:
                    try:
                        c, _ = sock.accept()
                    except BlockingIOError:
                        continue
                    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    self._sel.register(c, selectors.EVENT_READ,
                                       self._accepted)
                    self._accepted += 1
                    continue
                try:
                    data = sock.recv(65536)
                except ConnectionError:
                    data = b""
                reply = self._on_data(key.data, data) if data else None
                if reply is None:
                    self._sel.unregister(sock)
                    sock.close()
                elif reply:
                    sock.setblocking(True)
                    sock.sendall(reply)

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=5)
        for key in list(self._sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
