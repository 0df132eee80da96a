#!/usr/bin/env bash
# bench/sweep.sh end to end on the queue sweep's smoke profile: run as 2
# processes (--part=1/2, --part=2/2), merged by pick --merge into one file
# whose every repetition keeps its process; the same one process at a time
# (--part=K) then --merge, as make bench does; then bad arguments.
set -euo pipefail
bin="$(pwd)/$1"
sweep="$(pwd)/$2"
# $3 is pick/__main__.py: the package's parent goes on PYTHONPATH.
pick_root="$(dirname "$(dirname "$(pwd)/$3")")"
tmp="${TEST_TMPDIR:-$(mktemp -d)}/sweep"
mkdir -p "$tmp"
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }

PROFILE=smoke PROCESSES=2 SWEEP_BIN="$bin" PICK_ROOT="$pick_root" \
  "$sweep" queues "$tmp/queues.json" -- --benchmark_filter='queues/(floor/|(latency|throughput)/(mutex|bounded-mpmc)(/producers:1/consumers:1)?$)' \
  >"$tmp/log.txt" 2>&1 || { cat "$tmp/log.txt"; fail "sweep.sh exited non-zero"; }
grep -q "^\[sweep queues: process 1 of 2, profile smoke\]" "$tmp/log.txt" || fail "no process 1 line"
grep -q "^\[sweep queues: process 2 of 2, profile smoke\]" "$tmp/log.txt" || fail "no process 2 line"
grep -q "^part 2 of 2: 0 s of rounds, at least 1 a unit, in this process" "$tmp/log.txt" || { cat "$tmp/log.txt"; fail "no part line"; }
grep -q "^merged 2 process(es) of queues, 2 repetitions, into $tmp/queues.json" "$tmp/log.txt" ||
  { cat "$tmp/log.txt"; fail "no merge line"; }
[[ -f "$tmp/parts/queues-1.json" && -f "$tmp/parts/queues-2.json" ]] || fail "parts not kept"
/usr/bin/python3 - "$tmp/queues.json" <<'PY' || fail "merged file"
import json, sys
doc = json.load(open(sys.argv[1]))
sk = doc["context"]["serverkit"]
assert sk["processes"] == 2 and sk["repetitions"] == 2, sk
assert "part" not in sk
assert [p["process"] for p in sk["floor"]["parts"]] == [1, 2]
runs = {}
for b in doc["benchmarks"]:
    assert b["run_type"] == "iteration", b["name"]
    runs.setdefault(b["run_name"], []).append(b["process"])
assert len(runs) == 5, sorted(runs)   # floor, 2 latencies, 2 throughputs
for name, procs in runs.items():
    # The floor row runs once a round of each unit (latency, throughput).
    want = [1, 1, 2, 2] if "/floor/" in name else [1, 2]
    assert sorted(procs) == want, (name, procs)
assert all(b["round"] == 1 for b in doc["benchmarks"]), "round stamps"
PY

# One process at a time (--part=K), then --merge: the same merged file.
filter='queues/(floor/|latency/mutex/)'
for k in 2 1; do
  PROFILE=smoke PROCESSES=2 SWEEP_BIN="$bin" PICK_ROOT="$pick_root" \
    "$sweep" --part=$k queues "$tmp/rr.json" -- --benchmark_filter="$filter" >"$tmp/rr.txt" 2>&1 ||
    { cat "$tmp/rr.txt"; fail "--part=$k exited non-zero"; }
  [[ ! -f "$tmp/rr.json" ]] || fail "--part=$k wrote the merged file"
done
PROFILE=smoke PROCESSES=2 PICK_ROOT="$pick_root" "$sweep" --merge queues "$tmp/rr.json" >"$tmp/rr.txt" 2>&1 ||
  { cat "$tmp/rr.txt"; fail "--merge exited non-zero"; }
/usr/bin/python3 - "$tmp/rr.json" <<'PY' || fail "merged --part files"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["context"]["serverkit"]["processes"] == 2
assert sorted({b["process"] for b in doc["benchmarks"]}) == [1, 2]
PY
# One process (PROCESSES=1) the same way: --part=1 writes the part, --merge
# copies it; nothing stale survives.
rm -f "$tmp/one.json"
echo stale >"$tmp/parts/queues-1.json"
PROFILE=smoke PROCESSES=1 SWEEP_BIN="$bin" "$sweep" --part=1 queues "$tmp/one.json" \
  -- --benchmark_filter="$filter" >"$tmp/rr.txt" 2>&1 || { cat "$tmp/rr.txt"; fail "--part=1 of 1"; }
[[ ! -f "$tmp/one.json" ]] || fail "--part=1 of 1 wrote the merged file"
PROFILE=smoke PROCESSES=1 "$sweep" --merge queues "$tmp/one.json" >"$tmp/rr.txt" 2>&1 ||
  { cat "$tmp/rr.txt"; fail "--merge of 1"; }
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["benchmarks"]' \
  "$tmp/one.json" || fail "--merge of 1 did not copy the fresh part"

for bad in "--part=3 queues" "--part=0 queues" "--merge queues $tmp/x.json -- --flag"; do
  set +e
  PROFILE=smoke PROCESSES=2 SWEEP_BIN="$bin" "$sweep" $bad >"$tmp/bad.txt" 2>&1
  rc=$?
  set -e
  [[ $rc -eq 2 ]] || { cat "$tmp/bad.txt"; fail "'$bad': exit $rc, want 2"; }
done

# Bad arguments: exit 2 and a reason.
for args in "" "nosuch" "queues out.json extra"; do
  set +e
  PROFILE=smoke SWEEP_BIN="$bin" "$sweep" $args >"$tmp/bad.txt" 2>&1
  rc=$?
  set -e
  [[ $rc -eq 2 ]] || { cat "$tmp/bad.txt"; fail "'$args': exit $rc, want 2"; }
  grep -q "^sweep: " "$tmp/bad.txt" || fail "'$args': no reason"
done
for env in PROCESSES=0 PROCESSES=x PROFILE=fast; do
  set +e
  env "$env" SWEEP_BIN="$bin" "$sweep" queues >"$tmp/bad.txt" 2>&1
  rc=$?
  set -e
  [[ $rc -eq 2 ]] || { cat "$tmp/bad.txt"; fail "$env: exit $rc, want 2"; }
done
# A failing process stops the sweep with exit 1 and no merged file.
set +e
PROFILE=smoke PROCESSES=2 SWEEP_BIN=/bin/false "$sweep" queues "$tmp/f.json" >"$tmp/bad.txt" 2>&1
rc=$?
set -e
[[ $rc -eq 1 && ! -f "$tmp/f.json" ]] || { cat "$tmp/bad.txt"; fail "failed process: exit $rc"; }
grep -q "process 1 of 2 FAILED" "$tmp/bad.txt" || fail "no FAILED line"
echo "sweep.sh: 2 processes merged, bad arguments refused, OK"
