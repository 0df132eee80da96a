# -----------------------------------------------------------------------------
# pick/charts/endtoend.py
# -----------------------------------------------------------------------------
#
# validation.png: per validation case, the micro-benchmark ratio beside the
# candidate's end-to-end ratio and the positive control's, each over the
# baseline (pingpong.json's "validation", as read/validation_rows.py reads it).

from __future__ import annotations

import math
from typing import Any, Optional

from pick.charts.plotting import pyplot, save, style
from pick.records import ValidationRow
from pick.read import predictions


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
        micro = _as_float(e.micro_ratio)
        e2e = _as_float(e.e2e_ratio)
        label = "%s%s\n%s vs %s" % (
            e.component, " " + e.case if e.case != "-" else "",
            e.winner or "?", e.baseline or "?")
        ctrl = e.control_e2e
        control = _as_float(ctrl.get("ratio") if isinstance(ctrl, dict)
                            else None)
        rows.append((label, micro, e2e, control, e.verdict or ""))
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


# The load map's chart (draw.py draws it with the others):
#
#   loadmap.png  the candidate's predicted ratio over the baseline against
#                sessions, with its interval, one line per component, one
#                panel per (block, loops); the ±m band shaded, oversubscribed
#                panels titled so
#
# read/predictions.py reads the load map; nothing is drawn without one.

def _series(comp: dict[str, Any], block: int, loops: int
            ) -> list[tuple[int, predictions.Interval]]:
    out = []
    for p in predictions.points(comp):
        iv = predictions.interval(p.get("predicted"))
        if (p["block"], p["loops"]) == (block, loops) and iv is not None \
                and iv.est > 0 and iv.low > 0 and iv.high > 0:
            out.append((p["sessions"], iv))
    return out


def loadmap_chart(pp: Any, out_dir: str) -> Optional[str]:
    plt = pyplot()
    lm = predictions.loadmap(pp)
    comps = predictions.components(lm) if lm is not None else []
    panels = sorted({(p["block"], p["loops"]) for _, c in comps
                     for p in predictions.points(c)
                     if predictions.interval(p.get("predicted")) is not None})
    if lm is None or not panels:
        return None
    m = predictions.margin(lm)
    cols = min(len(panels), 4)
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows),
                             sharey=True, squeeze=False)
    for k, (block, loops) in enumerate(panels):
        ax = axes[k // cols][k % cols]
        ax.axhspan(1 / (1 + m), 1 + m, color="0.9", zorder=0,
                   label="equivalent ±%g%%" % round(100 * m, 2))
        ax.axhline(1.0, color="0.3", linewidth=0.8, linestyle="--")
        over = False
        sessions: set[int] = set()
        for i, (name, c) in enumerate(comps):
            pts = _series(c, block, loops)
            over = over or any(
                p.get("oversubscribed") is True for p in predictions.points(c)
                if (p["block"], p["loops"]) == (block, loops))
            if not pts:
                continue
            xs = [s for s, _ in pts]
            sessions.update(xs)
            ys = [iv.est for _, iv in pts]
            err = [[max(iv.est - iv.low, 0.0) for _, iv in pts],
                   [max(iv.high - iv.est, 0.0) for _, iv in pts]]
            ax.errorbar(xs, ys, yerr=err, capsize=3, linewidth=1.4,
                        label="%s: %s vs %s" % (
                            name, predictions.text(c.get("candidate"), "?"),
                            predictions.text(c.get("baseline"), "?")),
                        **style(2 * i))  # tab20's pairs: distinct hues
        ax.set_xscale("log")
        ax.set_xticks(sorted(sessions), [str(s) for s in sorted(sessions)])
        ax.minorticks_off()
        ax.set_xlabel("sessions")
        # Block 0: no message size (the pool's HTTP points).
        ax.set_title("%s, %d loop%s%s" % (
            "%d-byte blocks" % block if block else "HTTP, no blocks",
            loops, "" if loops == 1 else "s",
            " (oversubscribed)" if over else ""), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    for k in range(len(panels), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    for r in range(rows):
        axes[r][0].set_ylabel("predicted over the baseline (> 1: better)")
    axes[0][min(len(panels), cols) - 1].legend(fontsize=7)
    fig.suptitle("Predicted effect against load (candidate vs baseline, "
                 "%s cores)" % lm.get("cores", "?"), fontsize=11)
    fig.tight_layout()
    return save(fig, out_dir, "loadmap.png")
