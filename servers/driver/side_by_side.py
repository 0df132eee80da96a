# -----------------------------------------------------------------------------
# servers/driver/side_by_side.py
# -----------------------------------------------------------------------------
#
# Two servers from a side-by-side driver's records (the ping-pong sweep, the
# chat and the HTTP benchmarks), in the paired statistics of
# pick/decide/paired.py, and the order they run in:
#
#   williams(t)           the orders of a Williams design for t servers
#   order(items, k)       items in the design's order for block k (the k-th
#                         set of back-to-back runs, counted from 0)
#   log_ratios(records, a, b, point, value, server_bound)
#                         log(A / B) at each point (the same point and
#                         repetition: runs made back to back) where both ran
#                         clean; the d that
#                         pick.decide.paired.rank_paired() takes
#   compare(records, a, b, metric, point, value, lower_better, margin)
#                         -> SideBySide: A over B on one metric, at every
#                         clean point and at the server-bound ones
#   summary_lines(rows, labels, intro, bound)
#                         SideBySide rows as text, a line each, then what
#                         each interval says against the margin (the chat
#                         and HTTP drivers; the sweep prints its own tables)
#   margin_arg(text)      the drivers' --margin flag
#
# What an interval says: pick/margin.py's standing of A over B against one
# margin m (default pick.margin.MARGIN, 5%), with the ratio turned so that
# > 1 means A is better: as it is for throughput, inverted for CPU per unit,
# latency and round time (lower_better). "ahead by more than m", "ahead",
# "equivalent within ±m", "not told apart", or "no interval" (too few
# ratios); never from the point estimate alone.
#
# The order: one server after another, each block of runs in the next
# order of a Williams design (a Latin square in which each server comes
# right after every other equally often; for an odd count a square and its
# mirror, 2t orders), so that whatever a run leaves behind (a warm cache, a
# busy core, a socket in TIME_WAIT) falls on every server alike; the orders
# cycle, so no order repeats before all have run.
#
# Records are dicts with "server", "ok" and "client_bound". Standard library
# only, pick.decide.paired and pick.margin.

from __future__ import annotations

import argparse
import dataclasses
import math
from typing import (Any, Callable, Hashable, Mapping, Optional, Sequence,
                    TypeVar)

from pick.decide import paired
from pick.margin import MARGIN as MARGIN, Standing as Standing
from pick.margin import standing as standing_of, words as margin_words

Record = Mapping[str, Any]
T = TypeVar("T")


# --- the order ---------------------------------------------------------------

def williams(t: int) -> list[list[int]]:
    """The orders of a Williams design for 0 .. t-1: rows of a Latin
    square whose first row is 0, 1, t-1, 2, t-2, ... and row i that row
    plus i (mod t). For even t each i comes right before each j != i
    once; for odd t the square alone does not balance, so each row is
    followed by its mirror (2t orders, each pair twice)."""
    if t < 0:
        raise ValueError("williams(%d)" % t)
    first = [0]
    for j in range(1, t):
        first.append((j + 1) // 2 if j % 2 else t - j // 2)
    square = [[(x + i) % t for x in first] for i in range(t)]
    if t % 2 == 0 or t == 1:
        return square
    return [row for r in square for row in (r, r[::-1])]


def order(items: Sequence[T], k: int) -> list[T]:
    """`items` in the Williams design's order for block k (the orders
    cycle: k and k + len(orders) get the same one)."""
    orders = williams(len(items))
    if not orders:
        return []
    return [items[i] for i in orders[k % len(orders)]]


# --- the paired ratios -------------------------------------------------------

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


def _inverse(x: float) -> float:
    """1 / x, with 0 and inf (an unbounded end) swapped."""
    if x == 0.0:
        return math.inf
    return 0.0 if math.isinf(x) else 1.0 / x


@dataclasses.dataclass(frozen=True)
class SideBySide:
    """Server A over server B on one metric of a side-by-side driver: at
    every point where both ran clean, and at the server-bound ones. The
    ratios are A / B of the metric as measured; lower_better says that a
    ratio below 1 is A's advantage (CPU per unit, latency)."""

    a: str
    b: str
    metric: str
    every: paired.PairedRatio
    server_bound: paired.PairedRatio
    lower_better: bool = False
    margin: float = MARGIN

    def oriented(self, side: paired.PairedRatio) -> tuple[float, float]:
        """side's interval turned so that > 1 means A is better."""
        if self.lower_better:
            return _inverse(side.high), _inverse(side.low)
        return side.low, side.high

    def standing(self, side: paired.PairedRatio) -> Standing:
        """What side's interval says of A against B at the margin; UNKNOWN
        below pick.decide.paired.min_rounds() nonzero ratios, where
        fmt_paired prints no interval either."""
        if side.n < paired.min_rounds():
            return Standing.UNKNOWN
        return standing_of(*self.oriented(side), self.margin)

    def words(self, side: paired.PairedRatio, label: str) -> str:
        """margin.words in `label`: 'serverkit ahead of asio by 2.0-6.1%
        in CPU us/request'; 'serverkit and asio in p99 latency: no
        interval (n 3)'."""
        if self.standing(side) == Standing.UNKNOWN:
            return "%s and %s in %s: no interval (n %d)" % (
                self.a, self.b, label, side.n)
        return "%s in %s" % (margin_words(self.a, self.b,
                                          *self.oriented(side), self.margin),
                             label)

    def _side_json(self, side: paired.PairedRatio) -> dict[str, Any]:
        return dict(side.as_json(), standing=self.standing(side).value)

    def as_json(self) -> dict[str, Any]:
        """The JSON's "paired" entry (an unbounded end null): each side's
        statistics with its "standing" (pick.margin.Standing's value),
        the "margin" and which way is "better" ("lower" or "higher")."""
        return dict(a=self.a, b=self.b, metric=self.metric,
                    better="lower" if self.lower_better else "higher",
                    margin=self.margin,
                    every=self._side_json(self.every),
                    server_bound=self._side_json(self.server_bound))


def compare(records: Sequence[Record], a: str, b: str, metric: str,
            point: Callable[[Record], Hashable],
            value: Callable[[Record, str], Optional[float]], *,
            lower_better: bool, margin: float = MARGIN) -> SideBySide:
    """A over B on `metric` (value(record, metric)), paired by `point`;
    lower_better when a lower figure is better."""
    every, bound = (paired.rank_paired(log_ratios(records, a, b, point,
                                                  lambda r: value(r, metric),
                                                  sb))
                    for sb in (False, True))
    return SideBySide(a, b, metric, every, bound, lower_better, margin)


# --- the text ----------------------------------------------------------------

def words_lines(rows: Sequence[SideBySide], labels: Mapping[str, str],
                bound: str) -> list[str]:
    """What each row's intervals say, a line per row and side (one where
    both say the same), after a blank line and a head naming the margin;
    nothing without rows."""
    if not rows:
        return []
    ms = sorted({r.margin for r in rows})
    head = "against a margin of %s (ahead: less CPU or time, more " \
        "throughput):" % ", ".join("±%g%%" % round(100 * m, 2) for m in ms)
    out = ["", head]
    for r in rows:
        every = r.words(r.every, labels[r.metric])
        bounded = r.words(r.server_bound, labels[r.metric])
        if every == bounded:
            out.append("  %s (every clean point, and %s)" % (every, bound))
        else:
            out += ["  %s (every clean point)" % every,
                    "  %s (%s)" % (bounded, bound)]
    return out


def summary_lines(rows: Sequence[SideBySide], labels: Mapping[str, str],
                  intro: str, bound: str) -> list[str]:
    """The rows a line each, after a blank line and `intro`: the metric's
    label, A/B, then every clean point and the `bound` ones; then what
    they say against the margin (words_lines); nothing without rows."""
    if not rows:
        return []
    names = ["%s/%s" % (r.a, r.b) for r in rows]
    lw = max(len(labels[r.metric]) for r in rows)
    nw = max(len(n) for n in names)
    return ["", intro] + ["  %-*s  %-*s  every: %s; %s: %s" % (
        lw, labels[r.metric], nw, n, paired.fmt_rank_paired(r.every), bound,
        paired.fmt_rank_paired(r.server_bound))
        for r, n in zip(rows, names)] + \
        words_lines(rows, labels, bound)


def margin_arg(text: str) -> float:
    """--margin's value: a fraction above 0 and below 1 (0.05 is 5%)."""
    try:
        m = float(text)
    except ValueError:
        m = math.nan
    if not 0.0 < m < 1.0:
        raise argparse.ArgumentTypeError(
            "--margin takes a fraction above 0 and below 1, such as 0.05 "
            "for 5%%: %r" % text)
    return m
