# -----------------------------------------------------------------------------
# bench/pick/tables.py
# -----------------------------------------------------------------------------
#
# The recommendation table (one row per family and workload class: winner,
# margins, whether the margin is above the noise), shared by pick's output
# (plain text, text_table()) and REPORT.md (Markdown, report.py), and the
# plain-text table that --compare and --repro print too.

from __future__ import annotations

from typing import Any, Sequence

import results as R
from spec import FAMILY_SPECS
from stats import fmt_ratio

HEADER = ["family", "workload class", "winner", "margin over runner-up",
          "margin over baseline", "above noise?"]


def noise_cell(res: dict[str, Any]) -> str:
    """The "above noise?" column for one class's decision."""
    n = res.get("noise")
    if n == "above":
        extra = []
        if res.get("p_max") is not None:
            extra.append("U-test p<=%.3f" % res["p_max"])
        if res.get("cv") is not None:
            extra.append("CV %.1f%%" % (100 * res["cv"]))
        return "yes" + (" (%s)" % ", ".join(extra) if extra else "")
    if n == "within":
        return "no: tie with %s" % res.get("runner_up")
    if n == "mixed":
        return "partly: " + res["verdict"].replace("larger than the noise "
                                                   "in ", "")
    if n == "unknown":
        return "unknown (1 repetition)"
    if n == "drifted":
        return "host drifted: rerun"
    return res.get("verdict") or "-"


def recommendation_rows(picked: dict[str, Any]) -> list[list[str]]:
    """The recommendation's rows (HEADER's columns) from winners.pick_all()."""
    rows = []
    for family in R.FAMILIES:
        fam = picked["families"][family]
        title = FAMILY_SPECS[family].title
        if fam["missing"]:
            rows.append([title, "-", "not measured (results/%s.json missing)"
                         % family, "-", "-", "-"])
            continue
        for res in fam["classes"]:
            if res.get("noise") == "drifted":
                detail = res["verdict"][len("host drifted: rerun "):]
                rows.append([title, res["cls"], "host drifted: rerun", "-",
                             "-", detail])
                continue
            if res.get("winner") is None:
                rows.append([title, res["cls"], res["verdict"], "-", "-", "-"])
                continue
            vs_base = fmt_ratio(res.get("margin_over_baseline"))
            if res["baseline"] is None:
                vs_base = "- (no baseline)"
            elif res["winner"] == res["baseline"]:
                vs_base = "(is the baseline)"
            elif res.get("margin_over_baseline") is not None:
                vs_base += " " + res["baseline"]
            else:
                vs_base = "- (%s not run)" % res["baseline"]
            runner = fmt_ratio(res.get("margin_over_runner_up"))
            if res.get("runner_up"):
                runner += " " + res["runner_up"]
            else:
                runner = "- (only one)"
            rows.append([title, res["cls"], res["winner"], runner, vs_base,
                         noise_cell(res)])
    return rows


def text_table(rows: Sequence[Sequence[Any]],
               head: Sequence[str] = HEADER) -> str:
    """Columns padded to their widest cell, a dashed rule under the head."""
    widths = [max(len(str(r[i])) for r in [head, *rows])
              for i in range(len(head))]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(head, widths))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return "\n".join(ln.rstrip() for ln in lines)
