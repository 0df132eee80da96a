#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/pingpong/sweep_smoke_test.sh
# -----------------------------------------------------------------------------
#
# Runs the whole ping-pong sweep for a moment (--profile=smoke) and checks what
# it promises: exit 0, an echo table with ratios, a header table, the libevent
# read-cap note, then the validation verdicts (no winners file here: the
# defaults), and JSON with a clean record for every point and the validation.
set -euo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/pingpong"
bench/pingpong/sweep --profile=smoke --out="$out.json" \
  --winners="$out-no-winners.json" --validate_seconds=0.2 >"$out.txt" 2>&1 ||
  { cat "$out.txt"; echo "FAIL: sweep exited non-zero"; exit 1; }
cat "$out.txt"
grep -q "^echo, 4096-byte blocks, server threads 1" "$out.txt" ||
  { echo "FAIL: no echo table"; exit 1; }
grep -q "libevent/asio" "$out.txt" || { echo "FAIL: no ratio column"; exit 1; }
grep -q "^header, " "$out.txt" || { echo "FAIL: no header table"; exit 1; }
grep -q "4096 bytes per read call" "$out.txt" ||
  { echo "FAIL: no libevent read-cap note"; exit 1; }
grep -q "^validation verdicts (winners from defaults" "$out.txt" ||
  { echo "FAIL: no validation table"; exit 1; }
tail -n 30 "$out.txt" | grep -q "^verdict: logger: async-queue-bounded-mpmc against sync" ||
  { echo "FAIL: the output does not end with the validation verdicts"; exit 1; }
/usr/bin/python3 - "$out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
recs = d["echo"] + d["header"]
assert d["echo"] and d["header"], "no records"
bad = [r for r in recs if not r["ok"]]
assert not bad, "unclean points: %s" % bad
assert {r["server"] for r in recs} == {"serverkit", "asio", "libevent"}, recs
v = d["validation"]
assert [r["component"] for r in v["rows"]] == \
    ["task_queue", "buffer", "buffer", "logger"], v["rows"]
for r in v["rows"]:
    assert r["origin"] == "default" and r["e2e_ratio"], r
    assert all(x["ok"] for x in r["records"]), r["records"]
print("sweep smoke: %d points, %d validation cases, OK" % (len(recs),
                                                           len(v["rows"])))
PY
