# -----------------------------------------------------------------------------
# servers/pingpong/side_by_side.py
# -----------------------------------------------------------------------------
#
# Two servers from a side-by-side driver's records (the ping-pong sweep, the
# chat and the HTTP benchmarks), in the paired statistics of
# validate_paired.py:
#
#   log_ratios(records, a, b, point, value, server_bound)
#                         log(A / B) at each point (the same point and
#                         repetition: runs made back to back) where both ran
#                         clean; the d that validate_paired.paired() takes
#   compare(records, a, b, metric, point, value) -> SideBySide
#                         A over B on one metric, at every clean point and at
#                         the server-bound ones
#   summary_lines(rows, labels, intro, bound)
#                         SideBySide rows as text, a line each (the chat and
#                         HTTP drivers; the sweep prints its own tables)
#
# Records are dicts with "server", "ok" and "client_bound". Standard library
# only, and validate_paired.

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Hashable, Mapping, Optional, Sequence

import validate_paired as VP

Record = Mapping[str, Any]


def log_ratios(records: Sequence[Record], a: str, b: str,
               point: Callable[[Record], Hashable],
               value: Callable[[Record], Optional[float]],
               server_bound: bool) -> list[float]:
    """log(value(A) / value(B)) at each point(r) (the same point and
    repetition: runs made back to back) where both "server"s ran "ok" with
    a positive value, in the points' order; with server_bound, only where
    neither was "client_bound"."""
    at: dict[Any, dict[str, Record]] = {}
    for r in records:
        if r["server"] in (a, b):
            at.setdefault(point(r), {})[r["server"]] = r
    out = []
    for k in sorted(at):
        ra, rb = at[k].get(a), at[k].get(b)
        if ra is None or rb is None or not (ra.get("ok") and rb.get("ok")):
            continue
        if server_bound and (ra.get("client_bound") or
                             rb.get("client_bound")):
            continue
        va, vb = value(ra), value(rb)
        if va is not None and vb is not None and va > 0 and vb > 0:
            out.append(math.log(va / vb))
    return out


@dataclasses.dataclass(frozen=True)
class SideBySide:
    """Server A over server B on one metric of a side-by-side driver: at
    every point where both ran clean, and at the server-bound ones."""

    a: str
    b: str
    metric: str
    every: VP.Paired
    server_bound: VP.Paired

    def as_json(self) -> dict[str, Any]:
        """The JSON's "paired" entry (an unbounded end null)."""
        return dict(a=self.a, b=self.b, metric=self.metric,
                    every=self.every.as_json(),
                    server_bound=self.server_bound.as_json())


def compare(records: Sequence[Record], a: str, b: str, metric: str,
            point: Callable[[Record], Hashable],
            value: Callable[[Record, str], Optional[float]]) -> SideBySide:
    """A over B on `metric` (value(record, metric)), paired by `point`."""
    return SideBySide(a, b, metric, *(
        VP.paired(log_ratios(records, a, b, point,
                             lambda r: value(r, metric), bound))
        for bound in (False, True)))


def summary_lines(rows: Sequence[SideBySide], labels: Mapping[str, str],
                  intro: str, bound: str) -> list[str]:
    """The rows a line each, after a blank line and `intro`: the metric's
    label, A/B, then every clean point and the `bound` ones; nothing
    without rows."""
    if not rows:
        return []
    names = ["%s/%s" % (r.a, r.b) for r in rows]
    lw = max(len(labels[r.metric]) for r in rows)
    nw = max(len(n) for n in names)
    return ["", intro] + ["  %-*s  %-*s  every: %s; %s: %s" % (
        lw, labels[r.metric], nw, n, VP.fmt_paired(r.every), bound,
        VP.fmt_paired(r.server_bound)) for r, n in zip(rows, names)]
