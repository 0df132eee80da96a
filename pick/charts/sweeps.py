# -----------------------------------------------------------------------------
# pick/charts/sweeps.py
# -----------------------------------------------------------------------------
#
# The report's charts of the micro-benchmark sweeps (draw.py draws them
# all, with the ping-pong ones, into PNG files next to REPORT.md):
#
#   queues_throughput.png  throughput vs thread count per queue (1:N, N:1, N:N)
#   latency.png            p50 / p99 / p99.9 per queue and per logger (the
#                          queue panel with the floor's p50 as a line)
#   buffer_ratios.png      buffer throughput / the baseline the sweep's rule
#                          names (linear), by kept fraction (Burger), by
#                          block size (fd_echo), by message size
#
# Each returns the file's name, or None when the data has nothing to draw.

from __future__ import annotations

import math
import statistics
from typing import Any, Optional

from pick.read import sweeps
from pick.charts.plotting import oversub_shade, pyplot, save, style
from pick import records

# (implementation, p50, p99, p99.9) in ns
LatencyRow = tuple[str, float, float, float]
# impl -> {x: [ratio to the baseline]}
Series = dict[str, dict[Any, list[float]]]


def queues_throughput(fr: sweeps.FamilyResults, out_dir: str
                      ) -> Optional[str]:
    plt = pyplot()
    # panel -> impl -> [(n, value, threads)]
    series: dict[str, dict[str, list[tuple[Any, float, Any]]]] = {}
    for (scenario, params), per in fr.cells.items():
        if scenario != "throughput":
            continue
        d: dict[str, Any] = dict(params)
        p, c = d.get("producers"), d.get("consumers")
        if p is None or c is None:
            continue
        shapes = []
        if p == 1:
            shapes.append(("1 producer : N consumers", c))
        if c == 1:
            shapes.append(("N producers : 1 consumer", p))
        if p == c:
            shapes.append(("N producers : N consumers", p))
        for panel, n in shapes:
            for impl, cell in per.items():
                v = cell.median("items_per_second")
                if cell.error or math.isnan(v):
                    continue
                series.setdefault(panel, {}).setdefault(impl, []).append(
                    (n, v, p + c))
    if not series:
        return None
    order = ["1 producer : N consumers", "N producers : 1 consumer",
             "N producers : N consumers"]
    panels = [o for o in order if o in series]
    impls = sorted({i for s in series.values() for i in s})
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5),
                             sharey=True, squeeze=False)
    cores = fr.cores()
    for ax, panel in zip(axes[0], panels):
        for i, impl in enumerate(impls):
            pts = sorted(series[panel].get(impl, []))
            if not pts:
                continue
            ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts],
                    label=impl, linewidth=1.4, markersize=5, **style(i))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ns = sorted({x for s in series[panel].values() for x, _, _ in s})
        ax.set_xticks(ns)
        ax.set_xticklabels([str(n) for n in ns])
        ax.set_xlabel("N (threads: %s)" % (
            "N + 1" if "N consumers" in panel and "1 producer" in panel or
            "1 consumer" in panel else "2N"))
        ax.set_title(panel, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if len(ns) > 1:
            ax.set_xlim(min(ns) / 1.2, max(ns) * 1.2)
        if cores:
            # threads = N + 1 (one side single) or 2N.
            both = "N producers : N consumers" == panel
            oversub_shade(ax, cores, (lambda t: t / 2 + 0.5) if both else
                          (lambda t: t - 1 + 0.5))
    axes[0][0].set_ylabel("items/s (median)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        hs, ls = ax.get_legend_handles_labels()
        for hh, ll in zip(hs, ls):
            if ll not in labels:
                handles.append(hh)
                labels.append(ll)
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5),
               fontsize=8)
    fig.suptitle("Queue throughput vs thread count (%s profile, %s cores; "
                 "grey: more threads than cores)" % (fr.profile(), cores),
                 fontsize=11)
    fig.tight_layout()
    return save(fig, out_dir, "queues_throughput.png")


def _percentile_panel(ax: Any, rows: list[LatencyRow], title: str,
                      floor: Optional[float] = None) -> None:
    """rows: [(impl, p50, p99, p999)] sorted best first; floor: a p50 (ns)
    drawn as a line."""
    import numpy as np
    y = np.arange(len(rows))
    h = 0.27
    for k, (label, color) in enumerate((("p50", "#4c72b0"),
                                        ("p99", "#dd8452"),
                                        ("p99.9", "#c44e52"))):
        vals = [(r[1], r[2], r[3])[k] for r in rows]
        ax.barh(y + (k - 1) * h, [v if v and v > 0 else float("nan")
                                  for v in vals], h, label=label, color=color)
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("ns (log)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    if floor:
        ax.axvline(floor, color="0.3", linewidth=0.9, linestyle=":",
                   label="floor p50")


def _param(group: records.Group, name: str, default: Any = None) -> Any:
    """The group's parameter `name` (`default` when it has none)."""
    return dict(group[1]).get(name, default)


def _latency_rows(fr: sweeps.FamilyResults, group: records.Group
                  ) -> list[LatencyRow]:
    rows = []
    for impl, cell in fr.cells[group].items():
        if cell.error:
            continue
        p50 = cell.median("p50_ns")
        if math.isnan(p50):
            continue
        rows.append((impl, p50, cell.median("p99_ns"), cell.median("p999_ns")))
    return sorted(rows, key=lambda r: r[1])


def latency(loaded: dict[str, sweeps.FamilyResults], out_dir: str
            ) -> Optional[str]:
    plt = pyplot()
    panels: list[tuple[str, list[LatencyRow], Optional[float]]] = []
    q = loaded.get("queues")
    if q:
        floor = q.floor_summary().reference_p50_ns
        for g in q.groups("latency"):
            rows = _latency_rows(q, g)
            if rows:
                panels.append(("queues: round trip, two threads", rows,
                               floor))
    lg = loaded.get("logger")
    if lg:
        groups = lg.groups("latency-file")
        callers = sorted({_param(g, "callers") for g in groups
                          if _param(g, "callers") is not None})
        for n in (callers[:1] + callers[-1:] if len(callers) > 1
                  else callers):
            cand = [g for g in groups if _param(g, "callers") == n]
            g = min(cand, key=lambda g: float(_param(g, "bytes", 0)))
            rows = _latency_rows(lg, g)
            if rows:
                panels.append((
                    "loggers: per call, %s" % records.params_str(g[1]),
                    rows, None))
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels),
                             figsize=(5.2 * len(panels),
                                      max(3.5, 0.32 * max(len(p[1]) for p in
                                                          panels) + 1.5)),
                             squeeze=False)
    for ax, (title, rows, floor) in zip(axes[0], panels):
        _percentile_panel(ax, rows, title, floor)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", ncol=len(labels),
               fontsize=8)
    fig.suptitle("Latency percentiles (best p50 at the top)", fontsize=11,
                 x=0.4)
    fig.tight_layout()
    return save(fig, out_dir, "latency.png")


def buffer_ratios(fr: sweeps.FamilyResults, out_dir: str,
                  baseline: Optional[str] = None) -> Optional[str]:
    """Each scenario's bytes/s over its baseline: `baseline`, else the one
    the file's rule for the scenario names."""
    plt = pyplot()
    specs = [("burger", "kept_pct", "kept fraction of the 64 KiB block (%)",
              "Burger: append / retrieve / prepend"),
             ("fd_echo", "bytes", "bytes per read_fd / write_fd",
              "fd_echo: socketpair echo"),
             ("framed", "msg", "message size (bytes)",
              "framed: length-prefixed messages")]
    panels: list[tuple[str, str, str, str, Series]] = []
    bases: list[str] = []
    for scenario, key, xlabel, title in specs:
        rule = fr.rule(scenario)
        base_name = baseline or (rule.baseline if rule else None)
        if not base_name:
            continue
        series: Series = {}
        for g in fr.groups(scenario):
            per = fr.cells[g]
            base = per.get(base_name)
            if base is None or base.error:
                continue
            b = base.median("bytes_per_second")
            x = dict(g[1]).get(key)
            if x is None or not b or math.isnan(b):
                continue
            for impl, cell in per.items():
                v = cell.median("bytes_per_second")
                if cell.error or math.isnan(v):
                    continue
                series.setdefault(impl, {}).setdefault(x, []).append(v / b)
        if series:
            panels.append((scenario, key, xlabel, title, series))
            if base_name not in bases:
                bases.append(base_name)
    if not panels:
        return None
    baseline = " / ".join(bases)
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4),
                             squeeze=False)
    impls = sorted({i for p in panels for i in p[4]})
    for ax, (scenario, key, xlabel, title, series) in zip(axes[0], panels):
        for i, impl in enumerate(impls):
            if impl not in series:
                continue
            pts = sorted((x, statistics.median(v))
                         for x, v in series[impl].items())
            ax.plot([x for x, _ in pts], [y for _, y in pts], label=impl,
                    linewidth=1.6, **style(i))
        ax.axhline(1.0, color="0.3", linewidth=0.8, linestyle="--")
        if key != "kept_pct":
            ax.set_xscale("log", base=2)
        xs = sorted({x for s in series.values() for x in s})
        ax.set_xticks(xs)
        ax.set_xticklabels([str(x) for x in xs], fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("throughput / %s buffer" % baseline)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Buffers: bytes/s as a ratio to the %s buffer (%s profile)"
                 % (baseline, fr.profile()), fontsize=11)
    fig.tight_layout()
    return save(fig, out_dir, "buffer_ratios.png")
