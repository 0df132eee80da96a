#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/bench_smoke_test.py
# -----------------------------------------------------------------------------
#
# bench.py end to end: --profile=smoke into a temporary file (every
# server, nginx and nginx-log included, driven by the real wrk; the JSON has
# the keys REPORT.md reads and every point ran clean, the pool route's
# GET /work too, its table saying nginx is not comparable), then a run
# interrupted with SIGINT after a few seconds (status 130, "interrupted":
# true, the points so far). The smoke run's latency at set rates has a run
# per server and rate, each clean with its figures or void with its
# reason (a loaded machine may make the generator lag), never failed,
# and the floor's runs beside them.
# After each, no process the driver started is left. nginx and wrk are
# required: without them the test fails and says how to install them.

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The driver as a module, from the root its packages live under.
BENCH = [sys.executable, "-P", "-m", "servers.http.bench"]
NEEDED = {"/usr/sbin/nginx": "nginx-light", "/usr/bin/wrk": "wrk"}
SERVERS = {"serverkit", "serverkit-uring", "serverkit-log", "nginx",
           "nginx-log", "beast", "evhttp"}
CONTEXT_KEYS = {"profile", "cores", "kernel", "loadavg_at_start", "pin",
                "seconds_per_point", "repetitions", "wrk_threads",
                "nginx_version", "body", "servers"}
POINT_KEYS = {"server", "access_log", "threads", "connections",
              "wrk_threads", "seconds", "repetition", "ok", "requests",
              "requests_per_s", "latency_ms", "non_2xx", "socket_errors",
              "server_cpu_s", "server_cpu_us_per_request", "client_cpu_util",
              "client_bound", "other_cpu_s"}


def leftovers(marker: str) -> list[str]:
    """Command lines of live processes that mention marker."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            out.append("%s: %s" % (pid, cmd))
    return out


def run_bench(args: list[str], tmp: str, interrupt_after: float = 0.0
              ) -> tuple[int, str]:
    env = dict(os.environ, TMPDIR=tmp,  # the driver's point directories
               PYTHONPATH=ROOT)
    p = subprocess.Popen(BENCH + args, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    if interrupt_after:
        time.sleep(interrupt_after)
        p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=120)
    print(out)
    return p.returncode, out


def check_json(path: str, interrupted: bool) -> dict[str, Any]:
    with open(path) as f:
        data: dict[str, Any] = json.load(f)
    assert CONTEXT_KEYS <= set(data["context"]), data["context"]
    assert data["interrupted"] is interrupted, data["interrupted"]
    assert isinstance(data["elapsed_s"], float)
    assert isinstance(data["notes"], list)
    assert data["context"]["body"] == '{"ok":true}'
    for p in data["points"]:
        assert set(p) - {"error", "loops"} == POINT_KEYS, p
        if p["server"].startswith("serverkit"):  # a stop line per loop
            loops = p.get("loops", [])
            assert len(loops) == p["threads"], p
            # wrk counts the replies that came within its run, we all.
            assert sum(x["replies"] for x in loops) >= p["requests"], p
            assert all(0 < x["max_open"] <= x["connections"] and
                       x["busy_polls"] > 0 for x in loops), p
        assert ("error" in p) == (not p["ok"]), p
    return data


LATENCY_SERVERS = ["serverkit", "serverkit-uring", "nginx", "beast",
                   "evhttp"]


def check_latency(data: dict[str, Any], text: str) -> None:
    lat = data["latency"]
    assert lat["servers"] == LATENCY_SERVERS, lat["servers"]
    assert lat["reference"] == "nginx" and lat["rounds"] == 1, lat
    capacity: dict[str, float] = lat["capacity"]
    slowest = min(capacity, key=lambda s: capacity[s])
    assert lat["slowest"] == slowest, lat
    assert lat["fractions"] == [0.75, 0.9], lat["fractions"]  # the profile's
    assert lat["rates"] == [round(f * lat["capacity"][slowest], 1)
                            for f in lat["fractions"]], lat["rates"]
    pts = lat["points"]
    # Every (server, rate) once, and again after each void attempt (at most
    # two retries): the last attempt is clean unless all three were void.
    by: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for p in pts:
        by.setdefault((p["server"], p["fraction"]), []).append(p)
    assert sorted(by) == sorted((s, f) for s in LATENCY_SERVERS + ["floor"]
                                for f in lat["fractions"]), sorted(by)
    for runs in by.values():
        assert [p["attempt"] for p in runs] == list(range(len(runs))), runs
        assert all(p["void"] for p in runs[:-1]) and len(runs) <= 3, runs
    for p in pts:
        if p["void"]:
            assert p["void_reason"] and not p["ok"], p
        else:
            assert p["ok"] and not p["error"], p
            assert 0 < p["p50_us"] <= p["p99_us"] <= p["max_us"], p
            assert p["completed"] > 0 and p["unanswered"] == 0, p
    assert len(lat["summary"]) == len(by)
    assert len(lat["paired"]) == len(lat["fractions"]) * (
        len(LATENCY_SERVERS) - 1)
    assert all(r["b"] == "nginx" and r["every"]["n"] <= 1
               for r in lat["paired"]), lat["paired"]
    assert "latency at set rates" in text and "void runs" in text


def main() -> int:
    missing = ["%s (apt-get install %s; tools/install_deps.sh installs it)"
               % (path, pkg) for path, pkg in NEEDED.items()
               if not os.access(path, os.X_OK)]
    if missing:
        print("FAIL: the HTTP benchmark needs " + ", ".join(missing))
        return 1
    tmp = tempfile.mkdtemp(prefix="http_smoke.",
                           dir=os.environ.get("TEST_TMPDIR"))
    out = os.path.join(tmp, "http.json")
    rc, text = run_bench(["--profile=smoke", "--out=" + out], tmp)
    if rc == 1:  # a point failed: say so, and try once more
        print("NOTE: a point failed; running the smoke profile again")
        rc, text = run_bench(["--profile=smoke", "--out=" + out], tmp)
    assert rc == 0, "http_bench exited %d" % rc
    data = check_json(out, interrupted=False)
    assert {p["server"] for p in data["points"]} == SERVERS
    for p in data["points"]:
        assert p["ok"] and p["requests"] > 0, p
    check_latency(data, text)
    assert "vs nginx" in text and "results: " + out in text
    pool = data["pool_route"]["points"]  # GET /work with --pool=mutex first
    assert pool and pool[0]["server"] == "serverkit-pool-mutex", pool
    assert all(p["ok"] and p["requests"] > 0 for p in pool), pool
    assert "nginx: not comparable (no pool handler)" in text
    left = leftovers(tmp)
    assert not left, "processes left: %s" % left
    print("ok   smoke profile")

    out2 = os.path.join(tmp, "interrupted.json")
    rc, text = run_bench(["--profile=smoke", "--seconds=2",
                          "--out=" + out2], tmp, interrupt_after=3.0)
    assert rc == 130, "interrupted http_bench exited %d" % rc
    data = check_json(out2, interrupted=True)
    assert len(data["points"]) < len(SERVERS), len(data["points"])
    time.sleep(0.5)
    left = leftovers(tmp)
    assert not left, "processes left after SIGINT: %s" % left
    print("ok   interrupted run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
