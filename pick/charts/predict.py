# -----------------------------------------------------------------------------
# pick/charts/predict.py
# -----------------------------------------------------------------------------
#
# The load map's chart (draw.py draws it with the others):
#
#   loadmap.png  the candidate's predicted ratio over the baseline against
#                sessions, with its interval, one line per component, one
#                panel per (block, loops); the ±m band shaded, oversubscribed
#                panels titled so
#
# prediction.py reads the load map; nothing is drawn without one.

from __future__ import annotations

from typing import Any, Optional

from pick import prediction as P
from pick.charts.plotting import pyplot, save, style


def _series(comp: dict[str, Any], block: int, loops: int
            ) -> list[tuple[int, P.Interval]]:
    out = []
    for p in P.points(comp):
        iv = P.interval(p.get("predicted"))
        if (p["block"], p["loops"]) == (block, loops) and iv is not None \
                and iv.est > 0 and iv.low > 0 and iv.high > 0:
            out.append((p["sessions"], iv))
    return out


def loadmap_chart(pp: Any, out_dir: str) -> Optional[str]:
    plt = pyplot()
    lm = P.loadmap(pp)
    comps = P.components(lm) if lm is not None else []
    panels = sorted({(p["block"], p["loops"]) for _, c in comps
                     for p in P.points(c)
                     if P.interval(p.get("predicted")) is not None})
    if lm is None or not panels:
        return None
    m = P.margin(lm)
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
                p.get("oversubscribed") is True for p in P.points(c)
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
                            name, P.text(c.get("candidate"), "?"),
                            P.text(c.get("baseline"), "?")),
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
