#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/loadgen/void_test.py
# -----------------------------------------------------------------------------
#
# void_test.py LOADGEN STALL_ECHO_SERVER
#
# A point the generator cannot keep is void, says so on stdout and in the
# JSON ("void": true, a "void_reason"), and exits 3:
#   - a rate no generator keeps on one connection (50,000,000/s, 1-byte
#     echo messages so the server keeps up, not the buffers): most of the
#     scheduled requests were never sent;
#   - a lag bound no timer wake-up meets (--max_lag_us=1 at 1000/s, one
#     request per wake-up);
#   - a generator stopped (SIGSTOP) for P = 300 ms in serial mode. The
#     requests due meanwhile queue behind each connection's first late
#     send; each is released from the previous reply less that request's
#     own lag, so the pause shows as send lag (about R * P = 600 of 4000
#     late, p99 far over --max_lag_us=20000) rather than as the server's
#     latency. (Before, only the first request per connection after the
#     pause was late: the rest went behind fresh replies, and the pause
#     passed for the server's latency, p99 280 ms, not void.)
# A kept schedule against the same server is not void (exit 0), with a
# loose lag bound so a busy machine does not void it (and run again if a
# pause of the machine does all the same).

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from servers.loadgen import harness

PAUSE_S = 0.3


def expect_void(run: harness.Run, reason: str) -> None:
    assert run.rc == harness.VOID_EXIT, "exit status %d, not %d" % (
        run.rc, harness.VOID_EXIT)
    r = run.result
    assert r is not None
    assert r["void"] is True and r["ok"] is False, r
    assert reason in r["void_reason"], r["void_reason"]
    assert "VOID: " + r["void_reason"] in run.stdout, run.stdout


def run_paused(loadgen: str, *flags: str) -> harness.Run:
    """The generator stopped for PAUSE_S a second into its run."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "result.json")
        p = subprocess.Popen([loadgen, *flags, "--json=" + out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        time.sleep(1.0)
        p.send_signal(signal.SIGSTOP)
        time.sleep(PAUSE_S)
        p.send_signal(signal.SIGCONT)
        stdout, stderr = p.communicate(timeout=60)
        with open(out) as f:
            result = json.load(f)
    print("$ loadgen %s (stopped %g s)" % (" ".join(flags), PAUSE_S))
    print(stdout + stderr, end="", flush=True)
    return harness.Run(p.returncode, stdout, stderr, result)


def main() -> None:
    loadgen, server_path = sys.argv[1], sys.argv[2]
    server, port = harness.start_stall_server(server_path, "--size=1")
    common = ["--protocol=echo", "--port=%d" % port, "--size=1",
              "--warmup=0.2"]

    run = harness.run_loadgen(loadgen, "--protocol=echo", "--port=%d" % port,
                              "--size=1", "--warmup=0", "--rate=50000000",
                              "--connections=1", "--duration=0.5")
    expect_void(run, "scheduled requests were never sent")
    r = run.result
    assert r is not None and r["unsent"] > r["sent"], r

    run = harness.run_loadgen(loadgen, *common, "--rate=1000",
                              "--connections=1", "--duration=0.5",
                              "--max_lag_us=1")
    expect_void(run, "exceeds --max_lag_us=1:")

    paused = run_paused(loadgen, *common, "--mode=serial", "--rate=2000",
                        "--connections=4", "--duration=2",
                        "--max_lag_us=20000")
    expect_void(paused, "send lag p99")
    r = paused.result
    assert r is not None and set(r["read_lag_us"]) == {"p50", "p99", "max"}
    assert r["lag_us"]["max"] >= 0.8e6 * PAUSE_S, r

    run = harness.run_loadgen(loadgen, *common, "--rate=1000",
                              "--connections=2", "--duration=0.5",
                              "--max_lag_us=50000", attempts=3)
    assert run.rc == 0 and run.result is not None, run.rc
    assert run.result["void"] is False and run.result["void_reason"] == ""
    harness.stop_stall_server(server)
    print("PASS")


if __name__ == "__main__":
    main()
