# -----------------------------------------------------------------------------
# pick/markdown.py
# -----------------------------------------------------------------------------
#
# The Markdown pieces REPORT.md is written with (report.py and its sections,
# report_details.py, report_pingpong.py and report_servers.py): a table, how
# numbers, nanoseconds and coefficients of variation are printed in it, and
# the end-to-end drivers' paired summaries as a table.

from __future__ import annotations

import math
from typing import Any, Optional, Sequence


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


def paired_table(entries: Sequence[Any],
                 metrics: Sequence[tuple[str, str]]) -> Optional[str]:
    """A driver's paired summary ("paired" in pingpong.json and chat.json:
    a, b, metric, and the statistics at every clean point and at the
    server-bound ones) as one table, metric by metric; None without
    entries."""
    rows = [["%s/%s" % (e["a"], e["b"]), label, paired_cell(e["every"]),
             paired_cell(e["server_bound"])]
            for key, label in metrics for e in entries
            if e.get("metric") == key]
    if not rows:
        return None
    return md_table(["A/B", "metric", "every clean point",
                     "server-bound points"], rows)


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
