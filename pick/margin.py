# -----------------------------------------------------------------------------
# pick/margin.py
# -----------------------------------------------------------------------------
#
# The words every answer uses: what a ratio's interval says against one
# stated margin m (docs/methods.md, "Words the intervals support"). The
# ratio is A over B, oriented so that > 1 means A is better; [lo, hi] is
# its interval. Six standings, defined by the interval alone (never by the
# point estimate):
#
#   ahead-beyond      lo > 1 + m                  "A ahead of B by more than m"
#   ahead             1 < lo <= 1 + m             "A ahead of B, by 2-20%"
#   equivalent        1/(1+m) <= lo, hi <= 1 + m  "equivalent within ±m"
#   not-told-apart    anything else               "not told apart: -5% to +8%"
#   behind, behind-beyond   the same as the first two, with B ahead of A
#   unknown           no interval (too few rounds)
#
# An interval both inside the band and above 1 is "ahead" (a direction is
# the stronger claim), as is one inside the band and below 1 ("behind").
# The band is symmetric on a log scale, [1/(1+m), 1+m]: at m = 5%, -4.8%
# to +5%. MARGIN is the one default margin: pick's --margin, the
# validation's and the side-by-sides' all start from it.
#
# At pick's bottom layer (standard library only): pick's modules and
# the validation (validation/) and the drivers' side-by-side summaries
# (servers/driver/side_by_side.py) import it as pick.margin.

from __future__ import annotations

import enum
import math
from typing import Final, Optional

# The default margin m: 5%.
MARGIN: Final = 0.05


class Standing(str, enum.Enum):
    AHEAD_BEYOND = "ahead-beyond"
    AHEAD = "ahead"
    EQUIVALENT = "equivalent"
    NOT_TOLD_APART = "not-told-apart"
    BEHIND = "behind"
    BEHIND_BEYOND = "behind-beyond"
    UNKNOWN = "unknown"

    def flipped(self) -> Standing:
        """The standing of B over A."""
        return _FLIP.get(self, self)

    def points(self) -> int:
        """The direction it claims: +1 (A better), -1 (B better), 0 (none:
        equivalent, not told apart, unknown)."""
        if self in (Standing.AHEAD_BEYOND, Standing.AHEAD):
            return 1
        if self in (Standing.BEHIND_BEYOND, Standing.BEHIND):
            return -1
        return 0


_FLIP = {Standing.AHEAD_BEYOND: Standing.BEHIND_BEYOND,
         Standing.AHEAD: Standing.BEHIND,
         Standing.BEHIND: Standing.AHEAD,
         Standing.BEHIND_BEYOND: Standing.AHEAD_BEYOND}


def _bounded(x: Optional[float]) -> bool:
    return x is not None and math.isfinite(x) and x > 0


def standing(lo: Optional[float], hi: Optional[float],
             m: float = MARGIN,
             eq: Optional[tuple[Optional[float], Optional[float]]] = None
             ) -> Standing:
    """The interval [lo, hi] of A over B against the margin m (the
    header's table); UNKNOWN when an end is missing, zero or infinite.
    `eq`: the interval that decides equivalence (TOST at level alpha reads
    the 1 - 2 alpha interval: Schuirmann), else [lo, hi] does."""
    if not m > 0:
        raise ValueError("the margin must be positive: %r" % m)
    if not (_bounded(lo) and _bounded(hi)):
        return Standing.UNKNOWN
    assert lo is not None and hi is not None
    if lo > 1 + m:
        return Standing.AHEAD_BEYOND
    if lo > 1:
        return Standing.AHEAD
    if hi < 1 / (1 + m):
        return Standing.BEHIND_BEYOND
    if hi < 1:
        return Standing.BEHIND
    elo, ehi = eq if eq and _bounded(eq[0]) and _bounded(eq[1]) else (lo, hi)
    assert elo is not None and ehi is not None
    if elo >= 1 / (1 + m) and ehi <= 1 + m:
        return Standing.EQUIVALENT
    return Standing.NOT_TOLD_APART


def conflict(x: Standing, y: Standing) -> bool:
    """Do two answers about the same pair point different ways? One says A
    is better and the other B; or one says A (or B) is ahead and the other
    that they are equivalent. "Not told apart" and "unknown" conflict with
    nothing: they claim nothing."""
    px, py = x.points(), y.points()
    if px * py < 0:
        return True
    eq = Standing.EQUIVALENT
    return (x == eq and py != 0) or (y == eq and px != 0)


def pct(x: float) -> str:
    """A ratio as a signed percentage: 1.083 -> '+8.3%', 0.95 -> '-5.0%'."""
    return "%+.1f%%" % (100 * (x - 1))


def by(lo: float, hi: float) -> str:
    """How much ahead an interval above 1 allows: 'by 2.0-20.1%'; an
    unbounded upper end: 'by more than 2.0%'."""
    if not math.isfinite(hi):
        return "by more than %.1f%%" % (100 * (lo - 1))
    a, b = "%.1f" % (100 * (lo - 1)), "%.1f" % (100 * (hi - 1))
    return "by %s%%" % a if a == b else "by %s-%s%%" % (a, b)


def words(a: str, b: str, lo: Optional[float], hi: Optional[float],
          m: float = MARGIN,
          eq: Optional[tuple[Optional[float], Optional[float]]] = None
          ) -> str:
    """The standing of A over B in words: 'a ahead of b by more than 5%
    (by 8.0-20.0%)', 'a ahead of b by 2.0-20.0%', 'a and b equivalent
    within ±5% (-3.1% to +2.0%)', 'a and b not told apart (-5.0% to
    +8.0%)', 'b ahead of a ...', 'a and b: no interval'."""
    s = standing(lo, hi, m, eq)
    band = "%g%%" % round(100 * m, 2)
    if s == Standing.EQUIVALENT and eq and eq[0] and eq[1]:
        return "%s and %s equivalent within ±%s (90%% interval %s to %s)" \
            % (a, b, band, pct(eq[0]), pct(eq[1]))
    if s == Standing.UNKNOWN:
        return "%s and %s: no interval" % (a, b)
    assert lo is not None and hi is not None
    if s.points() < 0:
        a, b, lo, hi = b, a, 1 / hi, 1 / lo
        s = s.flipped()
    if s == Standing.AHEAD_BEYOND:
        return "%s ahead of %s by more than %s (%s)" % (
            a, b, band, by(lo, hi))
    if s == Standing.AHEAD:
        return "%s ahead of %s %s" % (a, b, by(lo, hi))
    span = "%s to %s" % (pct(lo), pct(hi))
    if s == Standing.EQUIVALENT:
        return "%s and %s equivalent within ±%s (%s)" % (a, b, band, span)
    return "%s and %s not told apart (%s)" % (a, b, span)


def short(s: Standing, m: float = MARGIN) -> str:
    """A table cell: 'ahead by > 5%', 'ahead', 'equivalent ±5%', 'not told
    apart', 'behind', 'behind by > 5%', 'no interval'."""
    band = "%g%%" % round(100 * m, 2)
    return {Standing.AHEAD_BEYOND: "ahead by > " + band,
            Standing.AHEAD: "ahead",
            Standing.EQUIVALENT: "equivalent ±" + band,
            Standing.NOT_TOLD_APART: "not told apart",
            Standing.BEHIND: "behind",
            Standing.BEHIND_BEYOND: "behind by > " + band,
            Standing.UNKNOWN: "no interval"}[s]
