# -----------------------------------------------------------------------------
# servers/http/loops.py
# -----------------------------------------------------------------------------
#
# Our HTTP server's per-loop stop lines, read back: how evenly its loops
# shared the connections and the replies, and how many replies one wake-up
# of a loop served (server.cc, PrintLoops).

from __future__ import annotations

import dataclasses
import re


@dataclasses.dataclass(frozen=True)
class LoopShare:
    """One loop of ours, from its stop line: the connections it was given
    (at most max_open at once), the replies it wrote, and its wake-ups that
    had work (busy_polls)."""
    connections: int
    max_open: int
    replies: int
    busy_polls: int


LOOP_LINE = re.compile(r"server: loop \d+: connections (\d+) \(at most "
                       r"(\d+) open\), replies (\d+), busy polls (\d+)")


def loop_shares(log_text: str) -> list[LoopShare]:
    """Our server's per-loop lines, in loop order; [] for the others."""
    return [LoopShare(*(int(g) for g in m.groups()))
            for m in LOOP_LINE.finditer(log_text)]
