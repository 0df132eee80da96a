#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/charts.py
# -----------------------------------------------------------------------------
#
# The report's charts, drawn with matplotlib (plotting.py) into PNG files
# next to REPORT.md:
#
#   queues_throughput.png  throughput vs thread count per queue (1:N, N:1, N:N)
#   latency.png            p50 / p99 / p99.9 per queue and per logger
#   buffer_ratios.png      buffer throughput / the baseline the sweep's rule
#                          names (those three: charts_micro.py)
#   pingpong.png           ping-pong MiB/s by sessions: ours, Asio, libevent
#   validation.png         micro-benchmark ratio vs end-to-end ratio per
#                          case, with the positive control's (when
#                          pingpong.json has "validation")
#   chat.png, http.png     the chat broadcast and HTTP workloads
#                          (charts_servers.py)
#   loadmap.png            the candidate's predicted effect against load,
#                          per component (charts_predict.py; when the
#                          validation wrote a load map)
#   http_latency.png,      p99 against the offered rate per server, open
#   pingpong_latency.png   loop (charts_latency.py; when http.json or
#                          pingpong.json has "latency")
#
# cli.py calls draw_all(); on its own, as a module of the package (from
# bench/, or with bench/ on PYTHONPATH):
#   /usr/bin/python3 -m pick.charts --results=results [--out=DIR]
# Without matplotlib it stops with exit status 3 and says what to install.

import argparse
import math
import os
import statistics
import sys
from typing import Any, Optional

from pick import results as R
from pick.charts_micro import buffer_ratios, latency, queues_throughput
from pick.charts_latency import latency_chart
from pick.charts_predict import loadmap_chart
from pick.charts_servers import chat_chart, http_chart
from pick.plotting import ChartsUnavailable, pyplot, save, style
from pick.validation import validation_summary
from pick.shapes import PingpongDoc, ValidationRow


SERVER_STYLES = {
    "serverkit": dict(color="black", marker="o"),
    "asio": dict(color="#dd8452", marker="s", linestyle="--"),
    "libevent": dict(color="#55a868", marker="^", linestyle="--"),
}


def pingpong_chart(pp: Optional[PingpongDoc], out_dir: str
                   ) -> Optional[str]:
    plt = pyplot()
    echo = [r for r in (pp or {}).get("echo", []) if r.get("ok") and
            r.get("mib_per_s")]
    if not echo:
        return None
    combos = sorted({(r["server_threads"], r["blocksize"]) for r in echo})
    servers: list[str] = []
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
            look = dict(SERVER_STYLES.get(s) or style(i + 3))
            pts: dict[int, list[float]] = {}
            for r in echo:
                if (r["server"], r["server_threads"], r["blocksize"]) == \
                        (s, t, b):
                    pts.setdefault(r["sessions"], []).append(r["mib_per_s"])
            if not pts:
                continue
            xs = sorted(pts)
            ax.plot(xs, [statistics.median(pts[x]) for x in xs], label=s,
                    linewidth=1.6, **look)
        ax.set_xscale("log")
        ax.set_xlabel("sessions")
        ax.set_title("%d thread%s, %d KiB blocks" % (t, "" if t == 1 else "s",
                                                     b // 1024), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("MiB/s (echo, median)")
    axes[0][-1].legend(fontsize=8)
    ctx = (pp or {}).get("context", {})
    fig.suptitle("Ping-pong echo throughput (%s profile, %s cores)" % (
        ctx.get("profile", "?"), ctx.get("cores", "?")), fontsize=11)
    fig.tight_layout()
    return save(fig, out_dir, "pingpong.png")


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


def draw_all(loaded: dict[str, R.FamilyResults],
             pingpong: Optional[PingpongDoc], picked: Any,
             out_dir: str, servers: R.ServerRuns = R.ServerRuns()
             ) -> list[tuple[str, str]]:
    """Draws every chart the data allows; returns [(title, file)].
    Raises ChartsUnavailable without matplotlib."""
    pyplot()
    out: list[tuple[str, str]] = []

    def add(title: str, name: Optional[str]) -> None:
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
    add("Chat broadcast: time until all K clients have a message",
        chat_chart(servers.chat, out_dir))
    add("HTTP requests/s under wrk, with nginx, Beast and evhttp",
        http_chart(servers.http, out_dir))
    add("HTTP p99 latency at set rates (open loop)",
        latency_chart(servers.http, out_dir, "http"))
    add("Ping-pong p99 latency at set rates (open loop)",
        latency_chart(pingpong, out_dir, "pingpong"))
    add("Micro-benchmark vs end-to-end",
        validation_chart(validation_summary(pingpong)[1], out_dir))
    add("Predicted effect against load (the validation's load map)",
        loadmap_chart(pingpong, out_dir))
    return out


def main(argv: list[str]) -> int:
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
                                out, R.load_server_runs(args.results)):
        print("%s: %s" % (title, os.path.join(out, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
