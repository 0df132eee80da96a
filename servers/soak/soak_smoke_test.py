#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/soak/soak_smoke_test.py
# -----------------------------------------------------------------------------
#
# soak_smoke_test.py pingpong=PATH chat=PATH http=PATH
#
# The soak end to end on the real servers (Bazel's data deps), short:
#   1. 30 s, a sample every 0.5 s, the first 30% the warm-up (a short run
#      still holds the servers' first growth): it passes, prints the table,
#      and the
#      JSON has every server's samples (over 30 each), three passing
#      trends, replies checked, and connections of every hostile kind;
#   2. the planted leak: 12 s with the ping-pong server replaced by
#      leaky_server.py, which leaks memory and descriptors: the soak
#      fails, naming the stand-in's RSS and descriptors as leaks, and its
#      replies were checked. (Chat's and HTTP's verdicts over 12 s are not
#      asserted: the window is too short to leave their first growth out.)
# After each, no server it started is still running.

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The soak as a module, from the root its packages live under; the leaky
# server, standard library only, as a script.
SOAK = [sys.executable, "-P", "-m", "servers.soak.soak"]
LEAKY = os.path.join(HERE, "leaky_server.py")
NAMES = ["pingpong", "chat", "http"]
KINDS = {"never-reading", "half-close", "slow", "malformed", "churn"}


def soak(paths: dict[str, str], seconds: float, warmup: float, out: str
         ) -> tuple[int, str, dict[str, Any]]:
    argv = SOAK + ["--minutes=%g" % (seconds / 60.0), "--interval=0.5",
                   "--warmup=%g" % warmup, "--progress=10", "--out=" + out]
    argv += ["--%s=%s" % kv for kv in sorted(paths.items())]
    print("$ " + " ".join(argv), flush=True)
    # The logs a failed soak keeps go under this test's temporary folder.
    env = dict(os.environ, TMPDIR=os.path.dirname(out), PYTHONPATH=ROOT)
    p = subprocess.run(argv, stdout=subprocess.PIPE, env=env,
                       stderr=subprocess.STDOUT, text=True, timeout=240)
    print(p.stdout, flush=True)
    with open(out) as f:
        doc: dict[str, Any] = json.load(f)
    for s in doc["servers"]:
        assert not os.path.exists("/proc/%d" % s["pid"]) or _zombie(
            s["pid"]), "%s server %d still runs" % (s["name"], s["pid"])
    return p.returncode, p.stdout, doc


def _zombie(pid: int) -> bool:
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def check_clean(paths: dict[str, str], tmp: str) -> None:
    rc, text, doc = soak(paths, 30.0, 0.3, os.path.join(tmp, "soak.json"))
    assert rc == 0, "the soak failed (status %d)" % rc
    assert "slope/min" in text and "PASSED" in text, "no table"
    assert doc["passed"] and not doc["failures"], doc["failures"]
    assert [s["name"] for s in doc["servers"]] == NAMES
    for s in doc["servers"]:
        assert len(s["samples"]) > 30, (s["name"], len(s["samples"]))
        assert set(s["samples"][0]) == {"t", "rss_kib", "fds", "threads"}
        series = [t["series"] for t in s["trends"]]
        assert series == ["rss_kib", "fds", "threads"], series
        assert all(t["verdict"] == "pass" for t in s["trends"]), s["trends"]
        assert s["checked"] > 100, (s["name"], s["checked"])
        assert set(s["hostile"]) == KINDS, (s["name"], s["hostile"])
        assert s["problem"] is None, s["problem"]
    print("PASS clean: %s" % ", ".join(
        "%s %d replies, %d hostile" % (s["name"], s["checked"],
                                       sum(s["hostile"].values()))
        for s in doc["servers"]), flush=True)


def check_planted_leak(paths: dict[str, str], tmp: str) -> None:
    leaky = dict(paths, pingpong=LEAKY)
    rc, text, doc = soak(leaky, 12.0, 0.2, os.path.join(tmp, "leak.json"))
    assert rc == 1, "the soak passed a leaking server (status %d)" % rc
    assert not doc["passed"]
    by = {s["name"]: s for s in doc["servers"]}
    verdicts = {t["series"]: t["verdict"] for t in by["pingpong"]["trends"]}
    assert verdicts["rss_kib"] == "leak", verdicts
    assert verdicts["fds"] == "leak", verdicts
    assert by["pingpong"]["checked"] > 0
    assert not any("client" in f for f in doc["failures"]), doc["failures"]
    assert "FAIL: the pingpong server's rss_kib: leak" in text
    print("PASS planted leak: %s" % "; ".join(doc["failures"]), flush=True)


def main(argv: list[str]) -> int:
    paths = dict(a.split("=", 1) for a in argv if "=" in a)
    if sorted(paths) != sorted(NAMES):
        print("usage: soak_smoke_test.py pingpong=PATH chat=PATH http=PATH",
              file=sys.stderr)
        return 2
    paths = {k: os.path.abspath(v) for k, v in paths.items()}
    failures = 0
    with tempfile.TemporaryDirectory(prefix="soak-smoke-") as tmp:
        for check in (check_clean, check_planted_leak):
            try:
                check(paths, tmp)
            except (AssertionError, OSError, ValueError,
                    subprocess.TimeoutExpired) as e:
                failures += 1
                print("FAIL %s: %s" % (check.__name__, e), flush=True)
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
