# -----------------------------------------------------------------------------
# servers/driver/tables.py
# -----------------------------------------------------------------------------
#
# What the three side-by-side drivers' tables share (the ping-pong sweep's,
# the chat and the HTTP benchmark's); each workload's tables.py keeps its
# own columns, marks and record keys:
#
#   group(records, key)   records by key(record), in first-seen order: the
#                         side-by-side rows (a point, then its servers)
#   median(xs)            the median, None without values
#   fmt(x, spec)          a figure in a format spec, "-" without one
#   ratio(a, b)           a over b, None where either is missing or zero
#   fmt_ratio(x)          a ratio as "1.23x", "-" without one
#   aligned(rows, left)   rows of cells as lines, each column padded to its
#                         widest cell (right-justified, the first `left`
#                         columns left-justified), two spaces apart
#   Paired                a workload's paired summary: its metrics, which
#                         are better lower, how a record names its point
#                         and reads a metric; compare() gives
#                         side_by_side.SideBySide rows for (A, B) pairs,
#                         lines() prints them with side_by_side's
#                         summary_lines
#
# Standard library only, and servers.driver.side_by_side.

from __future__ import annotations

import dataclasses
import statistics
from typing import Callable, Hashable, Iterable, Optional, Sequence, TypeVar

from servers.driver import side_by_side

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")


def group(records: Iterable[R], key: Callable[[R], K]) -> dict[K, list[R]]:
    """The records by key(record), keys and records in first-seen order."""
    out: dict[K, list[R]] = {}
    for r in records:
        out.setdefault(key(r), []).append(r)
    return out


def median(xs: Iterable[float]) -> Optional[float]:
    """The median of xs; None when there is none."""
    vals = list(xs)
    return statistics.median(vals) if vals else None


def fmt(x: Optional[float], spec: str) -> str:
    """x in the format spec (".3f", ",.0f"); "-" for None."""
    return "-" if x is None else format(x, spec)


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    """a / b; None where either is missing or zero."""
    if not a or not b:
        return None
    return a / b


def fmt_ratio(x: Optional[float]) -> str:
    """A ratio as "1.23x"; "-" for None."""
    return "-" if x is None else "%.2fx" % x


def aligned(rows: Sequence[Sequence[str]], left: int = 0) -> list[str]:
    """One line per row: each column padded to its widest cell, the first
    `left` columns on the left, the rest on the right, two spaces apart.
    Every row has the first row's cell count."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i < left else c.rjust(w)
                      for i, (c, w) in enumerate(zip(r, widths)))
            for r in rows]


@dataclasses.dataclass(frozen=True)
class Paired:
    """A workload's paired summary: (record key, label) per metric, the
    keys where a lower figure is better, the point that pairs two
    records (the same point and repetition: runs made back to back), the
    reading of a metric from a record; the text's intro and the name of
    the points without a load generator at its ceiling."""

    metrics: tuple[tuple[str, str], ...]
    lower_better: frozenset[str]
    point: Callable[[side_by_side.Record], Hashable]
    value: Callable[[side_by_side.Record, str], Optional[float]]
    intro: str = ""
    bound: str = "server-bound"

    def compare(self, records: Sequence[side_by_side.Record],
                pairs: Iterable[tuple[str, str]],
                margin: float = side_by_side.MARGIN
                ) -> list[side_by_side.SideBySide]:
        """A over B for each metric, then each (A, B) in `pairs`, read
        against `margin`."""
        pairs = list(pairs)
        return [side_by_side.compare(records, a, b, key, self.point,
                                     self.value,
                                     lower_better=key in self.lower_better,
                                     margin=margin)
                for key, _ in self.metrics for a, b in pairs]

    def labels(self) -> dict[str, str]:
        return dict(self.metrics)

    def lines(self, rows: Sequence[side_by_side.SideBySide]) -> list[str]:
        """The rows as side_by_side.summary_lines prints them."""
        return side_by_side.summary_lines(rows, self.labels(), self.intro,
                                          self.bound)
