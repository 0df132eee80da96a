#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/loadgen/serial_mode_test.py
# -----------------------------------------------------------------------------
#
# serial_mode_test.py LOADGEN STALL_ECHO_SERVER
#
# --mode=serial (one request in flight per connection, wrk2's method)
# against a one-thread echo server that stalls S = 100 ms on every
# N = 1000th message, on C = 1 connection at R = 1000 requests/s, 0.5 s
# warm-up then D = 2 s measured. On one connection the server's numbering
# is the request's: messages 700 and 1700 stall, K = 2 in the window.
#
# The expectation in serial mode. The stalled request's reply comes S after
# it was sent, so the R * S = 100 requests that come due meanwhile are held
# (not sent) and go one after another behind each reply once the stall
# ends, each within a round trip: a stalled reply delays the next send.
# - `held` counts them: about K * R * S = 200 (a few more come due while
#   the backlog drains, more when a busy machine delays any reply past
#   the gap); asserted at least 0.9 x that.
# - The server never reads two requests at once (most_per_read == 1).
# - Latency is charged from the intended time: the request due at
#   t0 + x waits until about t0 + S, so R * S/2 + 1 = 51 per stall are at
#   or above S/2 (102 in all, asserted at least 65% of it: a busy machine,
#   pausing the server or the generator over S/2, only adds), as in
#   pipelined mode.
# - The uncorrected figure (reply - actual send) is long only for the
#   stalled requests themselves: K of them, asserted at least K and under
#   a quarter of the corrected count.
# - The hold is the server's wait, not the generator's: the send lag is
#   measured from max(intended, previous reply), and its p99 stays under
#   S/4 (from the intended time, the tenth of requests held would put it
#   near S).
#
# The same run with --mode=pipelined is the contrast: nothing is held, the
# backlog reaches the server in one piece (most_per_read >= 10), and the
# corrected count has the same floor. A run the generator voids (it
# was paused, on a busy machine) is run again, up to twice.

from __future__ import annotations

import sys
from typing import Any

from servers.loadgen import harness

R = 1000
S_MS = 100
N = 1000
OFFSET = 700
C = 1
D = 2.0
WARMUP = 0.5
K = 2


def run(loadgen: str, server_path: str, mode: str
        ) -> tuple[dict[str, Any], int]:
    """One run in `mode`: the generator's JSON and the server's
    most_per_read. A void run (the generator was paused: a busy machine)
    is run again, twice at most."""
    r, lines = harness.run_against_stall_server(
        loadgen, server_path,
        ["--size=64", "--stall_every=%d" % N, "--stall_ms=%d" % S_MS,
         "--stall_offset=%d" % OFFSET],
        ["--protocol=echo", "--mode=" + mode, "--rate=%d" % R,
         "--connections=%d" % C, "--duration=%g" % D,
         "--warmup=%g" % WARMUP, "--size=64", "--max_lag_us=20000",
         "--count_above_us=%d" % (S_MS * 1000 // 2)])
    assert r.rc == 0, "loadgen exited %d" % r.rc
    assert r.result is not None and r.result["ok"], r.result
    assert r.result["mode"] == mode, r.result
    stalled = [int(line.split()[3]) for line in lines
               if line.startswith("stall ")]
    inside = [m for m in stalled if WARMUP * R <= m < (WARMUP + D) * R]
    assert len(inside) == K, "stalls in the window: %s" % stalled
    last = lines[-1].split()
    assert last[0] == "messages" and last[4] == "most_per_read", last
    return r.result, int(last[5])


def main() -> None:
    loadgen, server_path = sys.argv[1], sys.argv[2]
    serial, serial_most = run(loadgen, server_path, "serial")
    piped, piped_most = run(loadgen, server_path, "pipelined")

    per_stall = R * S_MS / 1000 / 2 + 1
    expected = K * per_stall
    held = serial["held"]
    corrected = serial["above_us"]["latency"]
    uncorrected = serial["above_us"]["uncorrected"]
    print("serial: held %d (expected about %d), most per read %d, at or "
          "above %d ms: corrected %d (expected %d), uncorrected %d "
          "(expected %d); send lag p99 %.0f us"
          % (held, K * R * S_MS / 1000, serial_most, S_MS // 2, corrected,
             expected, uncorrected, K, serial["lag_us"]["p99"]))
    print("pipelined: held %d, most per read %d, corrected %d"
          % (piped["held"], piped_most, piped["above_us"]["latency"]))

    # A stalled reply delays the next send ...
    assert serial_most == 1, "two requests in flight on the connection"
    hold = K * R * S_MS / 1000
    # At least those due in the stalls; more when a busy machine delays any
    # reply past the 1 ms gap.
    assert held >= 0.9 * hold, "held %d" % held
    # ... and the wait is charged from the intended time, not the send.
    # A busy machine only adds (any pause over S/2 of the server or the
    # generator), so the bound that can fail is the lower one.
    assert corrected >= 0.65 * expected, corrected
    assert K <= uncorrected and 4 * uncorrected < corrected, uncorrected
    assert serial["latency_us"]["max"] >= 0.9 * S_MS * 1000, serial
    # Counted from the intended time, the 10% held would put p99 near S.
    assert serial["lag_us"]["p99"] < S_MS * 1000 / 4, serial["lag_us"]
    for r in (serial, piped):
        assert r["sent"] == r["completed"] == r["scheduled"], r
        assert abs(r["scheduled"] - D * R) <= C, r
    # Pipelined: nothing waits for a reply; the backlog arrives at once.
    assert piped["held"] == 0, piped
    assert piped_most >= 10, piped_most
    assert piped["above_us"]["latency"] >= 0.65 * expected, piped
    print("PASS")


if __name__ == "__main__":
    main()
