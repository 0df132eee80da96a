#!/usr/bin/env bash
# whatif for a moment against both example servers, as a user would run it
# from a workspace of their own (@serverkit//validation:whatif): kv_server
# with its components chosen by {policy} under kv_load.py at a set rate
# (the logger and the pool: every run clean, the operations counted from
# the library's stop line, the controls sized, the exchange rate given);
# probe_echo_server with its "log" probe site under echo_client.py (the
# passes per request counted, the exchange rate given). No micro results
# here: whatif must say why there is no prediction.
#
#   whatif_smoke_test.sh WHATIF KV_SERVER PROBE_ECHO_SERVER
set -euo pipefail
whatif=$1 kv=$2 probe=$3
here=$(dirname "$0")
tmp="${TEST_TMPDIR:-$(mktemp -d)}/whatif"
mkdir -p "$tmp/results"
fail() { echo "FAIL: $*"; exit 1; }
py=/usr/bin/python3

"$whatif" --server="$kv --port={port} --log_file=/dev/null {policy}" \
  --rate=400 --load="$py $here/kv_load.py {port} --rate={rate} --seconds={seconds}" \
  --components=logger,thread_pool --baseline=logger:sync,thread_pool:mutex \
  --candidate=logger:async-double-buffer,thread_pool:work-stealing \
  --profile=smoke --rounds=2 --seconds=0.5 --pin=no \
  --results="$tmp/results" --out="$tmp/kv" >"$tmp/kv.txt" 2>&1 ||
  { cat "$tmp/kv.txt"; fail "whatif on kv_server exited non-zero"; }
cat "$tmp/kv.txt"
grep -q "^## Your server at 400 requests/s (your load command)" "$tmp/kv/WHATIF.md" ||
  fail "kv: no section"
$py - "$tmp/kv/whatif.json" <<'PY' || fail "kv: whatif.json"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert [r["component"] for r in rows] == ["logger", "thread_pool"], rows
for r in rows:
    assert len(r["rounds"]) == 2, r["component"]
    for rnd in r["rounds"]:
        for side in ("baseline", "winner", "control", "control2"):
            assert rnd[side] and rnd[side]["ops"] > 0, (r["component"], side)
    assert r["control_ns"] > 0, r["component"]
    assert r["rates"]["exchange_rate"]["est"] == r["rates"]["exchange_rate"]["est"]
    assert "no micro cost" in r["model_note"], r["model_note"]
# kv_load sends a log line per request: one per request, from the stop line.
assert abs(rows[0]["rates"]["ops_per_unit"]["est"] - 1.0) < 0.01, rows[0]["rates"]
print("kv: ok")
PY

"$whatif" --server="$probe --port={port} --log_file=/dev/null" \
  --load="$py $here/echo_client.py {port} 4 150" --probe=log:logger \
  --profile=smoke --rounds=2 --pin=no \
  --results="$tmp/results" --out="$tmp/probe" >"$tmp/probe.txt" 2>&1 ||
  { cat "$tmp/probe.txt"; fail "whatif --probe exited non-zero"; }
cat "$tmp/probe.txt"
$py - "$tmp/probe/whatif.json" <<'PY' || fail "probe: whatif.json"
import json, sys
p = json.load(open(sys.argv[1]))["probe"]
# One log call per request at the "log" site.
assert abs(p["passes_per_unit"]["est"] - 1.0) < 0.01, p
assert "exchange_rate" in p and "no micro costs" in p["why"], p
print("probe: ok")
PY
echo "PASS"
