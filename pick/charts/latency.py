# -----------------------------------------------------------------------------
# pick/charts/latency.py
# -----------------------------------------------------------------------------
#
# The charts of latency at set rates (draw.py draws them with the
# others), from the "latency" block of results/http.json and
# results/pingpong.json (read/latency_rates.py reads it):
#
#   http_latency.png      p99 against the offered rate, one line per server:
#   pingpong_latency.png  the median over the ok rounds, the bars spanning
#                         their min to max; log y axis. A void round (the
#                         generator fell behind its schedule) is an "x" at
#                         the top of the panel, over its rate.
#
# (latency.png is the micro-benchmarks' queue and logger percentiles.)
# Nothing is drawn without an ok round.

from __future__ import annotations

import statistics
from typing import Any, Optional

from pick.read import latency_rates
from pick.report.tables import num
from pick.charts.plotting import pyplot, save, style
from pick.read.predictions import mapping, number, text

Series = dict[float, list[float]]


def _series(lat: dict[str, Any]
            ) -> tuple[dict[str, Series], dict[str, set[float]]]:
    """Per server, the p99s of the ok rounds by rate, and the rates of its
    void rounds."""
    ok: dict[str, Series] = {}
    void: dict[str, set[float]] = {}
    for p in latency_rates.rows(lat, "points"):
        server, rate = text(p.get("server")), number(p.get("rate"))
        if not server or rate is None or rate <= 0:
            continue
        if latency_rates.is_void(p):
            void.setdefault(server, set()).add(rate)
            continue
        v = latency_rates.p99(p)
        if v is not None:
            ok.setdefault(server, {}).setdefault(rate, []).append(v)
    return ok, void


def latency_chart(doc: Any, out_dir: str, workload: Optional[str] = None
                  ) -> Optional[str]:
    """Draws doc["latency"] (doc: http.json or pingpong.json) into
    L.chart_name(workload) in out_dir (the workload by default the block's
    "workload"); returns the file's name, or None when no round was ok or
    the workload is neither http nor pingpong."""
    lat = latency_rates.block(doc)
    if lat is None:
        return None
    workload = workload or text(lat.get("workload"))
    if workload not in latency_rates.WORKLOADS:
        return None
    ok, void = _series(lat)
    if not ok:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    marked = False
    floor = text(mapping(lat.get("floor")).get("server"))
    for i, s in enumerate(latency_rates.servers(lat)):
        look = style(2 * i)  # tab20's pairs: distinct hues
        pts = ok.get(s, {})
        xs = sorted(pts)
        if xs:
            mid = [statistics.median(pts[x]) for x in xs]
            err = [[m - min(pts[x]) for x, m in zip(xs, mid)],
                   [max(pts[x]) - m for x, m in zip(xs, mid)]]
            if s == floor:  # the machine's own: grey, dashed
                look["color"] = "grey"
            ax.errorbar(xs, mid, yerr=err, capsize=3, linewidth=1.5,
                        label=s + (" (answers at once)" if s == floor
                                   else ""),
                        linestyle="--" if s == floor else "-", **look)
        if void.get(s):
            # At the top of the panel (axes coordinates for y).
            ax.plot(sorted(void[s]), [0.97] * len(void[s]), linestyle="",
                    marker="x", markersize=8, color=look["color"],
                    transform=ax.get_xaxis_transform(), clip_on=False,
                    label=None if xs else "%s (void)" % s)
            marked = True
    ax.set_yscale("log")
    plain = plt.FuncFormatter(lambda v, _: "%g" % v)
    ax.yaxis.set_major_formatter(plain)
    if ax.get_ylim()[1] < 10 * ax.get_ylim()[0]:  # within a decade
        ax.yaxis.set_minor_formatter(plain)
    cols = [(f, r) for f,
            r in latency_rates.fractions(lat) if r is not None and r > 0]
    if cols:
        ax.set_xticks([r for _, r in cols],
                      ["%s\n%s" % (latency_rates.pct(f), num(r)) for f,
                       r in cols])
    ax.set_xlabel("offered load (%s; %% of %s's capacity)" % (
        latency_rates.unit(lat, workload), text(lat.get("slowest"),
                                                "the slowest")))
    ax.set_ylabel("p99 latency, µs (median, min-max of ok rounds)")
    ax.set_title("%s: p99 at set rates (open loop, %s connections%s)" % (
        latency_rates.TITLES[workload], _whole(lat.get("connections")),
        "; x: void" if marked else ""), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out_dir, latency_rates.chart_name(workload))


def _whole(x: Any) -> str:
    v = number(x)
    return "?" if v is None else "%g" % v
