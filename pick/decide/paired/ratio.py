# -----------------------------------------------------------------------------
# pick/decide/paired/ratio.py
# -----------------------------------------------------------------------------
#
# PairedRatio: one paired answer, whichever test gave it. A's ratio over B
# from paired rounds (> 1: A better), its interval, p and count, and how
# they were had ("method"):
#
#   sign          the median per-round ratio, the sign test's interval and
#                 exact p (sign.py: the sweeps' rounds in one process)
#   process       the mean over fresh processes of each one's median log
#                 ratio, its t interval over the processes, their
#                 between-process share of the variance and the rounds'
#                 lag-1 autocorrelation (process.py: the confirmation)
#   signed-rank   the Hodges-Lehmann ratio, the exact Wilcoxon signed-rank
#                 interval and p, and the MDE (signed_rank.py: the
#                 end-to-end validation and the servers' side by side)
#
# Every test returns it and every reporter reads it: standing() and
# words() against a margin (margin.py), as_dict() for winners.json's
# PairedStats ("lo"/"hi", null where there is no interval), as_json() for
# the validation rows ("low"/"high": an unbounded lower end is 0, an
# unbounded upper end null). lo and hi are None where the test gives no
# end; low and high read them as 0 and inf.
#
# Standard library and pick's bottom layers (margin, decisions).

from __future__ import annotations

import dataclasses
import math
from typing import Optional, Union

from pick.records import PairedStats
from pick.margin import Standing, standing, words

METHODS = ("sign", "process", "signed-rank")


def _end(x: Optional[float]) -> Optional[float]:
    """An interval end, None where it is unbounded (0, inf or nan)."""
    return x if x is not None and math.isfinite(x) and x > 0 else None


@dataclasses.dataclass(frozen=True)
class PairedRatio:
    """A's paired ratio over B: the count of rounds (or log ratios) used,
    the estimate, the interval (None where unbounded or below the test's
    fewest rounds), its coverage (>= 1 - alpha), p, the method (METHODS),
    and what the methods add: processes, between-process share, lag-1
    autocorrelation, each process's ratio, the 1 - 2 alpha interval that
    decides equivalence (TOST) and the minimum detectable effect."""

    n: int
    ratio: float
    lo: Optional[float]
    hi: Optional[float]
    coverage: Optional[float] = None
    p: Optional[float] = None
    method: str = "sign"
    processes: int = 1
    between_share: Optional[float] = None
    lag1: Optional[float] = None
    per_process: tuple[float, ...] = ()
    eq_lo: Optional[float] = None
    eq_hi: Optional[float] = None
    # relative, at the spread's upper 95% bound (signed-rank); inf where
    # there are too few rounds for a test at all
    mde: Optional[float] = None

    @property
    def low(self) -> float:
        """The lower end, 0 where unbounded."""
        return self.lo if self.lo is not None else 0.0

    @property
    def high(self) -> float:
        """The upper end, inf where unbounded."""
        return self.hi if self.hi is not None else math.inf

    def with_ends(self, low: float, high: float) -> PairedRatio:
        """The same answer with another interval (the validation's, carried
        for dependence between rounds); 0 and inf for unbounded ends."""
        return dataclasses.replace(self, lo=_end(low), hi=_end(high))

    def covers(self, x: float) -> bool:
        return self.low <= x <= self.high

    def inverted(self) -> PairedRatio:
        """B over A."""
        return dataclasses.replace(
            self, ratio=1 / self.ratio if self.ratio else math.nan,
            lo=1 / self.hi if self.hi else None,
            hi=1 / self.lo if self.lo else None,
            eq_lo=1 / self.eq_hi if self.eq_hi else None,
            eq_hi=1 / self.eq_lo if self.eq_lo else None,
            per_process=tuple(1 / x for x in self.per_process))

    def disagree(self) -> bool:
        """Some process puts A ahead and another puts B ahead."""
        return any(x > 1 for x in self.per_process) and \
            any(x < 1 for x in self.per_process)

    def disagreement(self, a: str, b: str) -> str:
        """'the processes disagree: 3 of 4 put a ahead (1.12x, 1.09x,
        1.15x), 1 puts b ahead (1.03x)'."""
        ahead = [x for x in self.per_process if x > 1]
        behind = [x for x in self.per_process if x < 1]
        return "the processes disagree: %d of %d put %s ahead (%s), %d " \
            "put%s %s ahead (%s)" % (
                len(ahead), len(self.per_process), a,
                ", ".join("%.2fx" % x for x in ahead), len(behind),
                "s" if len(behind) == 1 else "", b,
                ", ".join("%.2fx" % (1 / x) for x in behind))

    def standing(self, margin: float) -> Standing:
        """What the interval says of A against B at the margin
        (margin.standing(): ahead by more than it, ahead, equivalent
        within it, not told apart, or behind); UNKNOWN without one."""
        return standing(self.lo, self.hi, margin, (self.eq_lo, self.eq_hi))

    def words(self, a: str, b: str, margin: float) -> str:
        """The standing in words (margin.words())."""
        return words(a, b, self.lo, self.hi, margin,
                     (self.eq_lo, self.eq_hi))

    @classmethod
    def from_dict(cls, d: PairedStats) -> PairedRatio:
        """as_dict()'s inverse (a file from before the processes reads as
        one process's sign test)."""
        return cls(n=d["n"], ratio=d["ratio"], lo=d["lo"], hi=d["hi"],
                   coverage=d.get("coverage"), p=d.get("p"),
                   method=d.get("method", "sign"),
                   processes=d.get("processes", 1),
                   between_share=d.get("between_share"),
                   lag1=d.get("lag1"),
                   per_process=tuple(d.get("per_process") or ()),
                   eq_lo=d.get("eq_lo"), eq_hi=d.get("eq_hi"))

    def as_dict(self) -> PairedStats:
        """winners.json's form (PairedStats)."""
        return PairedStats(n=self.n, ratio=self.ratio, lo=self.lo,
                           hi=self.hi, coverage=self.coverage, p=self.p,
                           method=self.method, processes=self.processes,
                           between_share=self.between_share, lag1=self.lag1,
                           per_process=list(self.per_process),
                           eq_lo=self.eq_lo, eq_hi=self.eq_hi)

    def as_json(self) -> dict[str, Union[float, int, None]]:
        """The validation rows' form: ratio, low, high, p, n, mde; an
        unbounded lower end as 0, anything else not finite as null."""
        def num(x: Optional[float]) -> Optional[float]:
            return x if x is not None and math.isfinite(x) else None
        return {"ratio": num(self.ratio), "low": self.low,
                "high": num(self.high), "p": num(self.p), "n": self.n,
                "mde": num(self.mde)}
