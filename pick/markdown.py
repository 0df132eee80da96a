# -----------------------------------------------------------------------------
# pick/markdown.py
# -----------------------------------------------------------------------------
#
# The Markdown pieces REPORT.md is written with (report.py and its sections,
# report_details.py and report_pingpong.py): a table, and how numbers,
# nanoseconds and coefficients of variation are printed in it.

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
