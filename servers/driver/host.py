# -----------------------------------------------------------------------------
# servers/driver/host.py
# -----------------------------------------------------------------------------
#
# What the host and the kernel did to a run, read before and after it: the
# time the hypervisor took each CPU from this guest (steal, /proc/stat, in
# the kernel's 10 ms ticks) and the machine's TCP retransmission timeouts
# (TcpExt TCPTimeouts in /proc/net/netstat; a lost segment or SYN on
# loopback waits 200 ms to 1 s for one). A latency run that is void or
# fails names them, so that a pause can be told from a server's stall.
#
# The bottom layer of servers/driver: standard library only.

from __future__ import annotations

import dataclasses
from typing import Optional

PROC_STAT = "/proc/stat"
PROC_NETSTAT = "/proc/net/netstat"
TICK_MS = 10  # USER_HZ is 100 on Linux: /proc/stat counts 10 ms ticks


@dataclasses.dataclass(frozen=True)
class Counters:
    """One reading: steal ms per CPU number (empty: unreadable) and the
    TCP retransmission timeouts so far (None: unreadable)."""
    steal_ms: dict[int, int]
    tcp_timeouts: Optional[int]


@dataclasses.dataclass(frozen=True)
class During:
    """Two readings' difference over the CPUs a run used: the most steal
    on one of them, and which (None: unreadable), and the timeouts."""
    steal_ms: Optional[int]
    steal_cpu: Optional[int]
    tcp_timeouts: Optional[int]

    def words(self) -> str:
        """'host steal 40 ms on cpu 1; 3 TCP retransmission timeouts', only
        what is not zero; '' when nothing happened or nothing was read."""
        parts = []
        if self.steal_ms:
            parts.append("host steal %d ms on cpu %s" % (
                self.steal_ms, self.steal_cpu))
        if self.tcp_timeouts:
            parts.append("%d TCP retransmission timeout%s" % (
                self.tcp_timeouts, "" if self.tcp_timeouts == 1 else "s"))
        return "; ".join(parts)


def steal_ms(stat_text: str) -> dict[int, int]:
    """Steal per CPU from /proc/stat's text: the 8th value of each cpuN
    line, in ms; a CPU whose line is short or not numbers is left out."""
    out = {}
    for line in stat_text.splitlines():
        f = line.split()
        if not f or not f[0].startswith("cpu") or not f[0][3:].isdigit():
            continue
        if len(f) > 8 and f[8].isdigit():
            out[int(f[0][3:])] = int(f[8]) * TICK_MS
    return out


def tcp_timeouts(netstat_text: str) -> Optional[int]:
    """TcpExt TCPTimeouts from /proc/net/netstat's text (pairs of a header
    line and a value line); None when it is not there."""
    lines = netstat_text.splitlines()
    for head, values in zip(lines[::2], lines[1::2]):
        names, nums = head.split(), values.split()
        if not names or names[0] != "TcpExt:" or len(names) != len(nums):
            continue
        for name, num in zip(names[1:], nums[1:]):
            if name == "TCPTimeouts" and num.isdigit():
                return int(num)
    return None


def _text(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def read(stat: str = PROC_STAT, netstat: str = PROC_NETSTAT) -> Counters:
    """The counters now; what cannot be read is empty or None."""
    return Counters(steal_ms(_text(stat)), tcp_timeouts(_text(netstat)))


def during(before: Counters, after: Counters,
           cpus: Optional[set[int]]) -> During:
    """after - before over `cpus` (None: every CPU read)."""
    common = set(before.steal_ms) & set(after.steal_ms)
    if cpus is not None:
        common &= cpus
    most, where = None, None
    for c in sorted(common):
        d = after.steal_ms[c] - before.steal_ms[c]
        if most is None or d > most:
            most, where = d, c
    t = None
    if before.tcp_timeouts is not None and after.tcp_timeouts is not None:
        t = after.tcp_timeouts - before.tcp_timeouts
    return During(most, where, t)
