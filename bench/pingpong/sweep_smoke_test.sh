#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/pingpong/sweep_smoke_test.sh
# -----------------------------------------------------------------------------
#
# Runs the whole ping-pong sweep for a moment (--profile=smoke) and checks what
# it promises: exit 0, an echo table with ratios, a header table, the libevent
# read-cap note, and JSON with a clean record for every point.
set -euo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/pingpong"
bench/pingpong/sweep --profile=smoke --out="$out.json" >"$out.txt" 2>&1 ||
  { cat "$out.txt"; echo "FAIL: sweep exited non-zero"; exit 1; }
cat "$out.txt"
grep -q "^echo, 4096-byte blocks, server threads 1" "$out.txt" ||
  { echo "FAIL: no echo table"; exit 1; }
grep -q "libevent/asio" "$out.txt" || { echo "FAIL: no ratio column"; exit 1; }
grep -q "^header, " "$out.txt" || { echo "FAIL: no header table"; exit 1; }
grep -q "4096 bytes per read call" "$out.txt" ||
  { echo "FAIL: no libevent read-cap note"; exit 1; }
/usr/bin/python3 - "$out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
recs = d["echo"] + d["header"]
assert d["echo"] and d["header"], "no records"
bad = [r for r in recs if not r["ok"]]
assert not bad, "unclean points: %s" % bad
assert {r["server"] for r in recs} == {"serverkit", "asio", "libevent"}, recs
print("sweep smoke: %d points, OK" % len(recs))
PY
