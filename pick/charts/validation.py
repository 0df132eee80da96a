# -----------------------------------------------------------------------------
# pick/charts/validation.py
# -----------------------------------------------------------------------------
#
# validation.png: per validation case, the micro-benchmark ratio beside the
# candidate's end-to-end ratio and the positive control's, each over the
# baseline (pingpong.json's "validation", as validation.py reads it).

from __future__ import annotations

import math
from typing import Any, Optional

from pick.charts.plotting import pyplot, save
from pick.shapes import ValidationRow


def _as_float(x: Any) -> float:
    """x as a float; NaN when it is not a number."""
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def validation_chart(entries: list[ValidationRow], out_dir: str
                     ) -> Optional[str]:
    plt = pyplot()
    import numpy as np
    rows = []
    for e in entries:
        micro = _as_float(e.get("micro_ratio"))
        e2e = _as_float(e.get("e2e_ratio"))
        label = "%s%s\n%s vs %s" % (
            e.get("component"), " " + e["case"] if e.get("case") not in
            (None, "-") else "", e.get("winner", "?"), e.get("baseline", "?"))
        ctrl = e.get("control_e2e")
        control = _as_float(ctrl.get("ratio") if isinstance(ctrl, dict)
                            else None)
        rows.append((label, micro, e2e, control,
                     str(e.get("verdict", ""))))
    if not rows:
        return None
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(5, 2.4 * len(rows)), 4))
    ax.bar(x - 0.27, [r[1] for r in rows], 0.27, label="micro-benchmark "
           "ratio", color="#4c72b0")
    ax.bar(x, [r[2] for r in rows], 0.27, label="candidate end to end",
           color="#55a868")
    ax.bar(x + 0.27, [r[3] for r in rows], 0.27, label="positive control "
           "end to end", color="#c44e52")
    ax.axhline(1.0, color="0.3", linewidth=0.8, linestyle="--")
    for xi, r in zip(x, rows):
        top = max([v for v in r[1:4] if not math.isnan(v)] or [1.0])
        ax.text(xi, top * 1.02, r[4][:28], ha="center", va="bottom",
                fontsize=7)
    ax.set_xticks(x)
    ax.set_xticklabels([r[0] for r in rows], fontsize=8)
    ax.set_ylabel("over the baseline (> 1: better)")
    ax.set_title("Does the choice matter end to end? (candidate vs baseline)",
                 fontsize=11)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return save(fig, out_dir, "validation.png")
