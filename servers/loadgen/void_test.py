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
#     request per wake-up).
# A kept schedule against the same server is not void (exit 0), with a
# loose lag bound so a busy machine does not void it.

from __future__ import annotations

import sys

from servers.loadgen import harness


def expect_void(run: harness.Run, reason: str) -> None:
    assert run.rc == 3, "exit status %d, not 3" % run.rc
    r = run.result
    assert r is not None
    assert r["void"] is True and r["ok"] is False, r
    assert reason in r["void_reason"], r["void_reason"]
    assert "VOID: " + r["void_reason"] in run.stdout, run.stdout


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

    run = harness.run_loadgen(loadgen, *common, "--rate=1000",
                              "--connections=2", "--duration=0.5",
                              "--max_lag_us=50000")
    assert run.rc == 0 and run.result is not None, run.rc
    assert run.result["void"] is False and run.result["void_reason"] == ""
    harness.stop_stall_server(server)
    print("PASS")


if __name__ == "__main__":
    main()
