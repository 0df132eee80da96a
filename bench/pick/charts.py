#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pick/charts.py
# -----------------------------------------------------------------------------
#
# The report's charts, drawn with matplotlib (Debian's python3-matplotlib,
# importable under /usr/bin/python3) into PNG files next to REPORT.md:
#
#   queues_throughput.png  throughput vs thread count per queue (1:N, N:1, N:N)
#   latency.png            p50 / p99 / p99.9 per queue and per logger (the
#                          queue panel with the floor's p50 as a line)
#   buffer_ratios.png      buffer throughput / the baseline the sweep's rule
#                          names (linear), by kept fraction (Burger), by
#                          block size (fd_echo), by message size
#   pingpong.png           ping-pong MiB/s by sessions: ours, Asio, libevent
#   validation.png         micro-benchmark ratio vs end-to-end ratio per
#                          component (when pingpong.json has "validation")
#
# pick.py calls draw_all(); on its own:
#   /usr/bin/python3 bench/pick/charts.py --results=results [--out=DIR]
# Without matplotlib it stops with exit status 3 and says what to install.

import argparse
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import results as R  # noqa: E402

INSTALL_HINT = ("install Debian's python3-matplotlib (`apt-get install "
                "python3-matplotlib`, or `make deps`) and run under "
                "/usr/bin/python3, which is where Debian's matplotlib imports")


class ChartsUnavailable(Exception):
    pass


_plt = None


def pyplot():
    global _plt
    if _plt is None:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except Exception as e:  # ImportError, or a broken install
            raise ChartsUnavailable(
                "matplotlib is not importable under %s (%s: %s); %s" % (
                    sys.executable, type(e).__name__, e, INSTALL_HINT))
        _plt = plt
    return _plt


def _style(i):
    plt = pyplot()
    colors = plt.get_cmap("tab20").colors
    markers = "os^vD<>ph*"
    return dict(color=colors[i % len(colors)],
                marker=markers[i % len(markers)])


def _save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    pyplot().close(fig)
    return name


def _oversub_shade(ax, cores, x_of_threads):
    """Shades the x range where threads exceed the cores."""
    if not cores:
        return
    lo, hi = ax.get_xlim()
    x0 = x_of_threads(cores)
    if x0 < hi:
        ax.axvspan(max(x0, lo), hi, color="0.9", zorder=0)
        ax.text(hi, ax.get_ylim()[1], " oversubscribed ", ha="right",
                va="top", fontsize=7, color="0.4")


def queues_throughput(fr, out_dir):
    plt = pyplot()
    series = {}  # panel -> impl -> [(n, value, oversub)]
    for (scenario, params), per in fr.cells.items():
        if scenario != "throughput":
            continue
        d = dict(params)
        p, c = d.get("producers"), d.get("consumers")
        if p is None or c is None:
            continue
        panels = []
        if p == 1:
            panels.append(("1 producer : N consumers", c))
        if c == 1:
            panels.append(("N producers : 1 consumer", p))
        if p == c:
            panels.append(("N producers : N consumers", p))
        for panel, n in panels:
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
                    label=impl, linewidth=1.4, markersize=5, **_style(i))
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
            _oversub_shade(ax, cores, (lambda t: t / 2 + 0.5) if both else
                           (lambda t: t - 1 + 0.5))
    axes[0][0].set_ylabel("items/s (median)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        h, l = ax.get_legend_handles_labels()
        for hh, ll in zip(h, l):
            if ll not in labels:
                handles.append(hh)
                labels.append(ll)
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5),
               fontsize=8)
    fig.suptitle("Queue throughput vs thread count (%s profile, %s cores; "
                 "grey: more threads than cores)" % (fr.profile(), cores),
                 fontsize=11)
    fig.tight_layout()
    return _save(fig, out_dir, "queues_throughput.png")


def _percentile_panel(ax, rows, title, floor=None):
    """rows: [(impl, p50, p99, p999)] sorted best first; floor: a p50 (ns)
    drawn as a line."""
    import numpy as np
    y = np.arange(len(rows))
    h = 0.27
    for k, (label, color) in enumerate((("p50", "#4c72b0"),
                                        ("p99", "#dd8452"),
                                        ("p99.9", "#c44e52"))):
        vals = [r[1 + k] for r in rows]
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


def _latency_rows(fr, group):
    rows = []
    for impl, cell in fr.cells[group].items():
        if cell.error:
            continue
        p50 = cell.median("p50_ns")
        if math.isnan(p50):
            continue
        rows.append((impl, p50, cell.median("p99_ns"), cell.median("p999_ns")))
    return sorted(rows, key=lambda r: r[1])


def latency(loaded, out_dir):
    plt = pyplot()
    panels = []
    q = loaded.get("queues")
    if q:
        floor = q.floor_summary()["reference_p50_ns"]
        for g in q.groups("latency"):
            rows = _latency_rows(q, g)
            if rows:
                panels.append(("queues: round trip, two threads", rows,
                               floor))
    lg = loaded.get("logger")
    if lg:
        groups = lg.groups("latency-file")
        callers = sorted({dict(p).get("callers") for _, p in groups
                          if dict(p).get("callers") is not None})
        for n in (callers[:1] + callers[-1:] if len(callers) > 1
                  else callers):
            cand = [g for g in groups if dict(g[1]).get("callers") == n]
            g = min(cand, key=lambda g: dict(g[1]).get("bytes", 0))
            rows = _latency_rows(lg, g)
            if rows:
                panels.append(("loggers: per call, %s" % R.params_str(g[1]),
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
    return _save(fig, out_dir, "latency.png")


def buffer_ratios(fr, out_dir, baseline=None):
    """Each scenario's bytes/s over its baseline: `baseline`, else the one
    the file's rule for the scenario names."""
    plt = pyplot()
    specs = [("burger", "kept_pct", "kept fraction of the 64 KiB block (%)",
              "Burger: append / retrieve / prepend"),
             ("fd_echo", "bytes", "bytes per read_fd / write_fd",
              "fd_echo: socketpair echo"),
             ("framed", "msg", "message size (bytes)",
              "framed: length-prefixed messages")]
    panels = []
    bases = []
    for scenario, key, xlabel, title in specs:
        rule = fr.rule(scenario)
        base_name = baseline or (rule and rule["baseline"])
        if not base_name:
            continue
        series = {}
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
                    linewidth=1.6, **_style(i))
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
    return _save(fig, out_dir, "buffer_ratios.png")


SERVER_STYLES = {
    "serverkit": dict(color="black", marker="o"),
    "asio": dict(color="#dd8452", marker="s", linestyle="--"),
    "libevent": dict(color="#55a868", marker="^", linestyle="--"),
}


def pingpong_chart(pp, out_dir):
    plt = pyplot()
    echo = [r for r in (pp or {}).get("echo", []) if r.get("ok") and
            r.get("mib_per_s")]
    if not echo:
        return None
    combos = sorted({(r["server_threads"], r["blocksize"]) for r in echo})
    servers = []
    for r in echo:
        if r["server"] not in servers:
            servers.append(r["server"])
    # Ours first, then the peers, then validation variants.
    servers.sort(key=lambda s: (s not in ("serverkit",),
                                s not in ("asio", "libevent"), s))
    fig, axes = plt.subplots(1, len(combos), figsize=(4.4 * len(combos), 4),
                             sharey=True, squeeze=False)
    for ax, (t, b) in zip(axes[0], combos):
        for i, s in enumerate(servers):
            style = dict(SERVER_STYLES.get(s) or _style(i + 3))
            pts = {}
            for r in echo:
                if (r["server"], r["server_threads"], r["blocksize"]) == \
                        (s, t, b):
                    pts.setdefault(r["sessions"], []).append(r["mib_per_s"])
            if not pts:
                continue
            xs = sorted(pts)
            ax.plot(xs, [statistics.median(pts[x]) for x in xs], label=s,
                    linewidth=1.6, **style)
        ax.set_xscale("log")
        ax.set_xlabel("sessions")
        ax.set_title("%d thread%s, %d KiB blocks" % (t, "" if t == 1 else "s",
                                                     b // 1024), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("MiB/s (echo, median)")
    axes[0][-1].legend(fontsize=8)
    ctx = pp.get("context", {})
    fig.suptitle("Ping-pong echo throughput (%s profile, %s cores)" % (
        ctx.get("profile", "?"), ctx.get("cores", "?")), fontsize=11)
    fig.tight_layout()
    return _save(fig, out_dir, "pingpong.png")


def validation_chart(entries, out_dir):
    plt = pyplot()
    import numpy as np
    rows = []
    for e in entries:
        try:
            micro = float(e.get("micro_ratio"))
        except (TypeError, ValueError):
            micro = float("nan")
        try:
            e2e = float(e.get("e2e_ratio"))
        except (TypeError, ValueError):
            e2e = float("nan")
        label = "%s%s\n%s vs %s" % (
            e.get("component"), " " + e["case"] if e.get("case") not in
            (None, "-") else "", e.get("winner", "?"), e.get("baseline", "?"))
        rows.append((label, micro, e2e, str(e.get("verdict", ""))))
    if not rows:
        return None
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(5, 2.2 * len(rows)), 4))
    ax.bar(x - 0.2, [r[1] for r in rows], 0.4, label="micro-benchmark ratio",
           color="#4c72b0")
    ax.bar(x + 0.2, [r[2] for r in rows], 0.4, label="end-to-end ratio "
           "(ping-pong)", color="#55a868")
    ax.axhline(1.0, color="0.3", linewidth=0.8, linestyle="--")
    for xi, r in zip(x, rows):
        top = max([v for v in r[1:3] if not math.isnan(v)] or [1.0])
        ax.text(xi, top * 1.02, r[3][:28], ha="center", va="bottom",
                fontsize=7)
    ax.set_xticks(x)
    ax.set_xticklabels([r[0] for r in rows], fontsize=8)
    ax.set_ylabel("winner / baseline (> 1: winner better)")
    ax.set_title("Did the micro-benchmark winners hold end to end?",
                 fontsize=11)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return _save(fig, out_dir, "validation.png")


def draw_all(loaded, pingpong, picked, out_dir):
    """Draws every chart the data allows; returns [(title, file)].
    Raises ChartsUnavailable without matplotlib."""
    pyplot()
    from pick import validation_entries
    out = []

    def add(title, name):
        if name:
            out.append((title, name))
    if "queues" in loaded:
        add("Queue throughput vs thread count",
            queues_throughput(loaded["queues"], out_dir))
    add("Latency percentiles: queues and loggers", latency(loaded, out_dir))
    if "buffer" in loaded:
        add("Buffer ratios by kept fraction, block and message size",
            buffer_ratios(loaded["buffer"], out_dir))
    add("Ping-pong MiB/s by sessions, with Asio and libevent",
        pingpong_chart(pingpong, out_dir))
    add("Micro-benchmark vs end-to-end",
        validation_chart(validation_entries(pingpong), out_dir))
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog="charts")
    ap.add_argument("--results", default="results")
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    try:
        pyplot()
    except ChartsUnavailable as e:
        print("charts: %s" % e, file=sys.stderr)
        return 3
    loaded, problems = R.load_dir(args.results)
    for p in problems:
        print("charts: skipped " + p, file=sys.stderr)
    out = args.out or args.results
    os.makedirs(out, exist_ok=True)
    for title, name in draw_all(loaded, R.load_pingpong(args.results), None,
                                out):
        print("%s: %s" % (title, os.path.join(out, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
