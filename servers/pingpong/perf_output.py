# -----------------------------------------------------------------------------
# servers/pingpong/perf_output.py
# -----------------------------------------------------------------------------
#
# The arithmetic of msgcost.py (the cost of one echoed block, per server):
# reading `perf stat -x,` output (counts of syscall tracepoints and the
# task clock), reading `perf report --stdio` output (where the samples
# went), and dividing both by the blocks echoed in the same window.
#
#   counts, secs = parse_stat(text)     ({"read": 120, ...}, 1.5)
#   top = parse_report(text)             [Symbol(percent, dso, name), ...]
#   cost = per_block(counts, blocks)     a BlockCost
#   split = where(top)                   {"kernel": 61.2, "ours": 20.1, ...}
#
# A block is one `blocksize` chunk the client sent and got back, so the
# figures are per block echoed, whatever the reads and writes were split
# into. Standard library only, no I/O:
# msgcost_test.py runs it on fixture files (testdata/msgcost/).

from __future__ import annotations

import dataclasses
import re
from typing import Optional

# The syscalls counted, by tracepoint name (syscalls:sys_enter_<name>), and
# the column each is added to. eventfd wake-ups are writes too: the echo
# server posts nothing across threads, so there are none here.
SYSCALL_COLUMNS: dict[str, str] = {
    "read": "read",
    "readv": "read",
    "recvfrom": "read",
    "recvmsg": "read",
    "write": "write",
    "writev": "write",
    "sendto": "write",
    "sendmsg": "write",
    "epoll_wait": "wait",
    "epoll_pwait": "wait",
    "io_uring_enter": "wait",
    "epoll_ctl": "epoll_ctl",
}
COLUMNS = ("read", "write", "wait", "epoll_ctl")


def tracepoints() -> list[str]:
    """perf's event names for every counted syscall."""
    return ["syscalls:sys_enter_" + name for name in SYSCALL_COLUMNS]


@dataclasses.dataclass(frozen=True)
class Symbol:
    percent: float
    dso: str
    name: str


@dataclasses.dataclass(frozen=True)
class BlockCost:
    """Per block echoed: system calls by column, all of them, and the
    server's CPU time in ns (task clock)."""
    syscalls: dict[str, float]
    total_syscalls: float
    cpu_ns: float


class ParseError(ValueError):
    pass


def parse_stat(text: str, intervals: bool = False
               ) -> tuple[dict[str, float], Optional[float]]:
    """`perf stat -x,` output, plain or (intervals) with -I, one line per
    interval and event with a timestamp first: ({event: count summed over
    the intervals}, the seconds counted, from the last timestamp, or None
    without -I).
    Tracepoints by syscall name ("read"), task-clock in ns. An event perf
    could not count raises ParseError naming it."""
    counts: dict[str, float] = {}
    seconds: Optional[float] = None
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if intervals:
            try:
                seconds = max(seconds or 0.0, float(fields[0]))
            except ValueError as e:
                raise ParseError("bad interval line %r" % line) from e
            fields = fields[1:]
        if len(fields) < 3:
            continue
        value, unit, event = fields[0], fields[1], fields[2]
        if value.startswith("<not"):
            raise ParseError("perf could not count %s (%s)" % (event, value))
        try:
            count = float(value)
        except ValueError as e:
            raise ParseError("bad count %r for %s" % (value, event)) from e
        if event == "task-clock" and unit == "msec":
            count *= 1e6
        name = event.removeprefix("syscalls:sys_enter_")
        counts[name] = counts.get(name, 0.0) + count
    if "task-clock" not in counts:
        raise ParseError("no task-clock line in perf stat output")
    return counts, seconds


_REPORT_LINE = re.compile(
    r"^\s*([0-9.]+)%\s+(\S+)\s+\[([.k])\]\s+(.*?)\s*(?:-\s+-\s*)?$")


def parse_report(text: str) -> list[Symbol]:
    """`perf report --stdio --no-children --sort dso,symbol` lines, best
    first: (percent, dso, symbol); comments and blank lines skipped."""
    out = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = _REPORT_LINE.match(line)
        if m:
            out.append(Symbol(float(m.group(1)), m.group(2),
                              m.group(4).strip()))
    return out


def short_name(symbol: str, width: int = 60) -> str:
    """A C++ symbol without its template arguments and parameter lists,
    cut to width: readable in a table."""
    out, depth = [], 0
    for ch in symbol:
        if ch in "<(":
            if depth == 0:
                out.append("<>" if ch == "<" else "()")
            depth += 1
        elif ch in ">)":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    s = "".join(out).replace("()()", "()")
    return s if len(s) <= width else s[:width - 3] + "..."


def where(symbols: list[Symbol], binary: str) -> dict[str, float]:
    """Share of the samples (percent) in the kernel, in the server's own
    binary, in libc, in libstdc++/libgcc, and elsewhere."""
    split = {"kernel": 0.0, "ours": 0.0, "libc": 0.0, "libstdc++": 0.0,
             "other": 0.0}
    for s in symbols:
        if s.dso.startswith("[kernel") or s.dso == "[unknown]":
            key = "kernel"
        elif s.dso == binary:
            key = "ours"
        elif s.dso.startswith("libc.so") or s.dso.startswith("ld-linux"):
            key = "libc"
        elif s.dso.startswith("libstdc++") or s.dso.startswith("libgcc"):
            key = "libstdc++"
        else:
            key = "other"
        split[key] += s.percent
    return {k: round(v, 1) for k, v in split.items()}


def per_block(counts: dict[str, float], blocks: float) -> Optional[BlockCost]:
    """Per block echoed; None when no block was."""
    if blocks <= 0:
        return None
    cols = {c: 0.0 for c in COLUMNS}
    for name, col in SYSCALL_COLUMNS.items():
        cols[col] += counts.get(name, 0.0)
    per = {c: round(v / blocks, 3) for c, v in cols.items()}
    return BlockCost(per, round(sum(cols.values()) / blocks, 3),
                     round(counts["task-clock"] / blocks, 1))
