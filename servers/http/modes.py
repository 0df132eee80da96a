# -----------------------------------------------------------------------------
# servers/http/modes.py
# -----------------------------------------------------------------------------
#
# Our HTTP server's p99 against nginx's under both of the generator's
# modes, in one interleaved run: serial (one request in flight per
# connection, as HTTP clients send; the driver's default) and pipelined.
# Each round runs, per rate, both modes x both servers in a fresh random
# order, every server started fresh, pinned as the driver pins (server on
# the upper half of the cores, the generator on the lower half), through
# latency_point.run_point, under SCHED_FIFO as the sweeps run
# (--sched, latency_point.sched_of). The per-round ratio ours/nginx cancels
# the host's state that round; the table gives its median and each side's
# median p99.
#
#   PYTHONPATH=. /usr/bin/python3 -m servers.http.modes \
#       --server=bazel-out/k8-opt/bin/servers/http/server \
#       --loadgen=bazel-out/k8-opt/bin/servers/loadgen/loadgen \
#       --rates=5000,20000 --rounds=5 --seconds=2 [--json=out.json]
#
# Layer 3 of servers/http: run, nginx and latency below it.

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
from typing import Any, Optional, Sequence

from servers.driver import latency_point
from servers.driver import latency_sweep
from servers.driver import procs
from servers.http import latency as http_latency
from servers.http import nginx as http_nginx
from servers.http import run as http_run

MODES = ("serial", "pipelined")
SERVERS = ("serverkit", "nginx")


def parse(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--server", required=True, help="our HTTP server")
    ap.add_argument("--loadgen", required=True)
    ap.add_argument("--nginx", default=http_nginx.NGINX)
    ap.add_argument("--rates", default="5000,20000",
                    help="requests/s, comma-separated")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--connections", type=int,
                    default=http_latency.CONNECTIONS)
    ap.add_argument("--threads", type=int, default=1,
                    help="server threads / nginx workers")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sched", default="auto", choices=latency_point.SCHED,
                    help="as the drivers' --latency_sched (default auto)")
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        ap.error("--rounds >= 1 and --seconds > 0")
    try:
        args.fifo, args.sched_note = latency_point.sched_of(args.sched)
    except ValueError as e:
        ap.error("--sched=fifo: %s" % e)
    return args


def settings(args: argparse.Namespace, mode: str) -> latency_point.Settings:
    return latency_point.Settings(
        workload="http", unit="requests/s", reference="nginx",
        protocol="http", connections=args.connections, rounds=args.rounds,
        seconds=args.seconds, warmup_s=0.5, capacity_source="set rates",
        path=http_run.PATH, max_lag_us=1000, mode=mode, fifo=args.fifo,
        sched_note=args.sched_note)


def table(points: Sequence[dict[str, Any]], rates: Sequence[float]
          ) -> list[str]:
    """Per mode and rate: each server's median p99 over its clean rounds,
    and the median of the per-round ratios ours/nginx with their range."""
    out = ["%-9s %9s %14s %14s %10s  %s" % (
        "mode", "rate/s", "ours p99 us", "nginx p99 us", "ratio",
        "per-round ratios (ours/nginx)")]
    for mode in MODES:
        for rate in rates:
            mine = [p for p in points if p["mode"] == mode
                    and p["rate"] == rate and p["ok"]]
            p99 = {s: {p["round"]: p["p99_us"] for p in mine
                       if p["server"] == s} for s in SERVERS}
            rounds = sorted(set(p99["serverkit"]) & set(p99["nginx"]))
            ratios = [p99["serverkit"][r] / p99["nginx"][r] for r in rounds]

            def med(xs: list[float]) -> str:
                return "%.0f" % statistics.median(xs) if xs else "-"
            out.append("%-9s %9.0f %14s %14s %10s  %s" % (
                mode, rate, med(list(p99["serverkit"].values())),
                med(list(p99["nginx"].values())),
                "%.2f" % statistics.median(ratios) if ratios else "-",
                " ".join("%.2f" % x for x in ratios)))
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse(argv)
    rates = [float(x) for x in args.rates.split(",") if x]
    cores = sorted(os.sched_getaffinity(0))
    pin = http_run.pinning(args.threads, 1, cores)
    specs = {
        "serverkit": http_run.ServerSpec("serverkit", "binary", args.server,
                                         (), False),
        "nginx": http_run.ServerSpec("nginx", "nginx", args.nginx, (),
                                     False)}
    nginx = http_nginx.settings(args.threads, sorted(pin.server_cpus or ()))
    print("pin: %s; nginx: %s; %d connections, %g s a run; %s"
          % (pin.describe(), http_nginx.describe(nginx), args.connections,
             args.seconds, args.sched_note), flush=True)
    rng = random.Random(args.seed)
    points: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        def start(name: str, pointdir: str) -> Any:
            return http_run.start_server(specs[name], args.threads, pin,
                                         pointdir)
        started = latency_point.fifo_starter(start, args.fifo)
        i = 0
        for rnd in range(args.rounds):
            for rate in rates:
                runs = [(m, s) for m in MODES for s in SERVERS]
                rng.shuffle(runs)
                for mode, server in runs:
                    i += 1
                    # A void run (the generator lagged: the machine's
                    # doing) is run again at once, as the sweep does.
                    for attempt in range(latency_sweep.VOID_RETRIES + 1):
                        pt = latency_point.LatencyPoint(server, 0.0, rate,
                                                        rnd, attempt)
                        latency_point.run_point(
                            settings(args, mode), pt, started, args.loadgen,
                            set(pin.wrk_cpus or ()) or None,
                            os.path.join(tmp, "run-%03d-%d" % (i, attempt)),
                            set(pin.server_cpus or ()) or None)
                        points.append(dict(pt.to_json(), mode=mode,
                                           loadavg=os.getloadavg()[0]))
                        print("%-9s %s" % (mode, latency_point.progress(
                            i, args.rounds * len(rates) * 4, pt,
                            "requests/s")), flush=True)
                        if not pt.void:
                            break
    lines = table(points, rates)
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(pin=pin.describe(), nginx_settings=nginx,
                           sched=args.sched_note,
                           connections=args.connections,
                           seconds=args.seconds, rounds=args.rounds,
                           loadavg_at_end=os.getloadavg(), points=points,
                           table=lines), f, indent=1)
    procs.stop_all()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
