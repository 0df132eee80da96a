# -----------------------------------------------------------------------------
# pick/markdown.py
# -----------------------------------------------------------------------------
#
# The Markdown pieces REPORT.md is written with (report/document.py and its
# sections: families.py, pingpong.py, servers.py, ...): a table, how
# numbers, nanoseconds and coefficients of variation are printed in it, and
# the end-to-end drivers' paired summaries as a table, each interval with
# what it says against the driver's margin (pick/margin.py's words).

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from pick.margin import MARGIN, Standing, standing, words


def md_table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    esc = [[str(c).replace("|", "\\|") for c in r] for r in rows]
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in esc]
    return "\n".join(out)


def num(x: Optional[float], unit: str = "") -> str:
    """Three significant digits, k / M / G above a thousand (not for times
    or percentages)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    a = abs(x)
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div and unit not in ("ns", "ms", "%", "us"):
            return "%.3g%s" % (x / div, suffix)
    return "%.3g" % x


def cv(c: Optional[float]) -> str:
    return "-" if c is None else "%.1f%%" % (100 * c)


def ns(x: Optional[float]) -> str:
    """Nanoseconds, whole above 100 (1500, not 1.5e+03)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return "%.0f" % x if abs(x) >= 100 else "%.3g" % x


# How a paired table's standing reads, for the sections' introductions.
STANDING_HOW = (
    "Each standing reads the interval against the run's margin m, with "
    "less CPU or time and more throughput as ahead: ahead by more than m "
    "(the interval's lower end beyond 1+m), ahead (above 1, with what the "
    "interval allows), equivalent within ±m (inside [1/(1+m), 1+m]), or "
    "not told apart; the interval covers this run's noise, one process.")


def paired_table(entries: Sequence[Any],
                 metrics: Sequence[tuple[str, str]]) -> Optional[str]:
    """A driver's paired summary ("paired" in pingpong.json, chat.json and
    http.json: a, b, metric, better, margin, and the statistics at every
    clean point and at the server-bound ones) as one table, metric by
    metric, each side followed by its standing; None without entries."""
    chosen = [(label, e) for key, label in metrics for e in entries
              if e.get("metric") == key]
    if not chosen:
        return None
    rows = [["%s/%s" % (e["a"], e["b"]), label, paired_cell(e["every"]),
             standing_cell(e, "every"), paired_cell(e["server_bound"]),
             standing_cell(e, "server_bound")] for label, e in chosen]
    margins = {_margin(e) for _, e in chosen}
    head = "standing" if len(margins) != 1 else \
        "standing at ±%g%%" % round(100 * margins.pop(), 2)
    return md_table(["A/B", "metric", "every clean point", head,
                     "server-bound points", head], rows)


def _margin(e: Any) -> float:
    m = e.get("margin")
    return float(m) if isinstance(m, (int, float)) and m > 0 else MARGIN


def inverse(x: Optional[float]) -> Optional[float]:
    """1 / x; None for None or x <= 0 (an unbounded end)."""
    return None if x is None or x <= 0 else 1.0 / x


def standing_cell(e: Any, side: str) -> str:
    """What e[side]'s interval says of A against B at e's margin, in
    pick.margin's words, turned so that ahead is better ("better":
    "lower" inverts it): 'serverkit ahead of asio by 2.0-6.1%'; 'no
    interval'; '-' for an entry written without "better"."""
    d = e.get(side)
    better = e.get("better")
    if not d or better not in ("lower", "higher"):
        return "-"
    if d.get("n", 0) < 6:   # as paired_cell: no interval below 6 ratios
        return "no interval"
    lo, hi = d.get("low"), d.get("high")
    if better == "lower":
        lo, hi = inverse(hi), inverse(lo)
    m = _margin(e)
    if standing(lo, hi, m) == Standing.UNKNOWN:
        return "no interval"
    return words(e["a"], e["b"], lo, hi, m)


def paired_cell(d: Any) -> str:
    """'0.97x [0.94, 1.00], p 0.061, n 48'; no interval below 6 ratios."""
    if not d or d.get("ratio") is None:
        return "-"
    if d.get("low") is None or d.get("high") is None or d.get("n", 0) < 6:
        return "%.2fx (n %d, no interval)" % (d["ratio"], d.get("n", 0))
    p = d.get("p")
    return "%.2fx [%.2f, %.2f], p %s, n %d" % (
        d["ratio"], d["low"], d["high"],
        "-" if p is None else "< 0.0001" if p < 0.0001 else "%.2g" % p,
        d["n"])
