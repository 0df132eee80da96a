# -----------------------------------------------------------------------------
# pick/charts/draw.py
# -----------------------------------------------------------------------------
#
# The report's charts, drawn with matplotlib (plotting.py) into PNG files
# next to REPORT.md, each by the module named beside it:
#
#   queues_throughput.png  throughput vs thread count per queue (1:N, N:1,
#                          N:N; sweeps.py)
#   latency.png            p50 / p99 / p99.9 per queue and per logger (sweeps)
#   buffer_ratios.png      buffer throughput / the baseline the sweep's rule
#                          names (sweeps)
#   pingpong.png           ping-pong MiB/s by sessions: ours, Asio, libevent
#                          (pingpong.py)
#   validation.png         micro-benchmark ratio vs end-to-end ratio per
#                          case, with the positive control's
#                          (read/validation_rows.py;
#                          when pingpong.json has "validation")
#   chat.png, http.png     the chat broadcast and HTTP workloads (servers.py)
#   loadmap.png            the candidate's predicted effect against load,
#                          per component (predict.py; when the validation
#                          wrote a load map)
#   http_latency.png,      p99 against the offered rate per server, open
#   pingpong_latency.png   loop (latency.py; when http.json or pingpong.json
#                          has "latency")
#
# draw_all() draws them all; ChartFiles is its reporter (cli.py runs it);
# main() is `/usr/bin/python3 -m pick.charts --results=results [--out=DIR]`
# (__main__.py), from the workspace root. Without matplotlib that stops with
# exit status 3 and says what to install; pick writes the rest.

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from pick.read import sweeps
from pick.analysis import Analysis
from pick.charts.latency import latency_chart
from pick.charts.sweeps import buffer_ratios, latency, queues_throughput
from pick.charts.servers import pingpong_chart
from pick.charts.plotting import ChartsUnavailable, pyplot
from pick.charts.endtoend import loadmap_chart
from pick.charts.servers import chat_chart, http_chart
from pick.charts.endtoend import validation_chart
from pick.analysis import Reporter, Written
from pick.records import PingpongDoc
from pick.read.validation_rows import validation_summary


def draw_all(loaded: dict[str, sweeps.FamilyResults],
             pingpong: Optional[PingpongDoc], servers: sweeps.ServerRuns,
             out_dir: str) -> list[tuple[str, str]]:
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


class ChartFiles(Reporter):
    """Draws every chart into the output directory (unless the settings
    say not to); records the charts drawn, or why none could be."""

    def report(self, analysis: Analysis, written: Written) -> None:
        if not analysis.settings.charts:
            return
        try:
            written.charts = draw_all(analysis.loaded, analysis.pingpong,
                                      analysis.servers,
                                      analysis.settings.out_dir)
        except ChartsUnavailable as e:
            written.chart_error = str(e)


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
    loaded, problems = sweeps.load_dir(args.results)
    for p in problems:
        print("charts: skipped " + p, file=sys.stderr)
    out = args.out or args.results
    os.makedirs(out, exist_ok=True)
    for title, name in draw_all(loaded, sweeps.load_pingpong(args.results),
                                sweeps.load_server_runs(args.results), out):
        print("%s: %s" % (title, os.path.join(out, name)))
    return 0
