#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# validation/pingpong_smoke_test.sh
# -----------------------------------------------------------------------------
#
# Runs the whole ping-pong sweep for a moment (--profile=smoke) and checks what
# it promises: exit 0, an echo table with ratios, a header table, the libevent
# read-cap note, the latency at set rates, then the validation verdicts (no winners file here: the
# defaults), and JSON with a clean record for every point and the validation
# (pingpong_test.py --smoke).
set -euo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/pingpong"
validation/pingpong --profile=smoke --out="$out.json" \
  --winners="$out-no-winners.json" --validate_seconds=0.2 >"$out.txt" 2>&1 ||
  { cat "$out.txt"; echo "FAIL: sweep exited non-zero"; exit 1; }
cat "$out.txt"
grep -q "^echo, 4096-byte blocks, server threads 1" "$out.txt" ||
  { echo "FAIL: no echo table"; exit 1; }
grep -q "libevent/asio" "$out.txt" || { echo "FAIL: no ratio column"; exit 1; }
grep -q "^header, " "$out.txt" || { echo "FAIL: no header table"; exit 1; }
grep -q "4096 bytes per read call" "$out.txt" ||
  { echo "FAIL: no libevent read-cap note"; exit 1; }
grep -q "^latency at set rates (messages/s), open loop" "$out.txt" ||
  { echo "FAIL: no latency table"; exit 1; }
grep -q "^validation verdicts (candidates from defaults" "$out.txt" ||
  { echo "FAIL: no validation table"; exit 1; }
tail -n 30 "$out.txt" | grep -q "^verdict: logger (default pair, not a micro pick): async-queue-bounded-mpmc against sync" ||
  { echo "FAIL: the output does not end with the validation verdicts"; exit 1; }
# The runfiles root on the path for the packages, as //build:python3.sh
# puts it.
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 -P -m validation.pingpong_test --smoke "$out.json"
