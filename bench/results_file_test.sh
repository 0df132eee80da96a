#!/usr/bin/env bash
# A sweep's front door, on the queue sweep: --help lists the sweep's own
# flags with their defaults before Google Benchmark's; a listing run
# (--benchmark_list_tests=true) prints each name once, measures nothing and
# leaves the results file as it was; a run that matches nothing, and one
# stopped by a signal (SIGTERM: a background job here ignores SIGINT), leave
# it as it was too; a run that measured replaces it
# with its results, and no partial file is left behind.
set -euo pipefail
bin="$(pwd)/$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}/results_file"
mkdir -p "$tmp"
out="$tmp/queues.json"
fail() { echo "FAIL: $*"; exit 1; }
old='{"sentinel": "an earlier sweep"}'
reset() { printf '%s\n' "$old" >"$out"; }
unchanged() {
  [[ "$(cat "$out")" == "$old" ]] || fail "$1 changed $out: $(head -c 200 "$out")"
  [[ ! -e "$out.partial" ]] || fail "$1 left $out.partial"
}

"$bin" --help >"$tmp/help.txt" 2>&1 || fail "--help exited non-zero"
for flag in --profile= --rounds= --round_budget_s= --round_target= \
  --min_rounds= --max_rounds= --part= --benchmark_out= --benchmark_filter=; do
  grep -q -- "$flag" "$tmp/help.txt" || { cat "$tmp/help.txt"; fail "--help lacks $flag"; }
done
grep -q "shared" "$tmp/help.txt" || fail "--help does not say the budget is shared"
grep -q "default: 0 / [0-9]* / [0-9]*" "$tmp/help.txt" || fail "--help lacks the budget's defaults"
grep -q "^Google Benchmark's flags:" "$tmp/help.txt" || fail "no Google Benchmark flags"

reset
"$bin" --benchmark_list_tests=true --benchmark_out="$out" \
  --benchmark_filter='queues/latency/' >"$tmp/list.txt" 2>&1 ||
  { cat "$tmp/list.txt"; fail "listing exited non-zero"; }
unchanged "a listing run"
grep -q "^queues/latency/mutex" "$tmp/list.txt" || { cat "$tmp/list.txt"; fail "no names listed"; }
[[ -z "$(sort "$tmp/list.txt" | uniq -d)" ]] || fail "a name listed twice: $(sort "$tmp/list.txt" | uniq -d | head -3)"
! grep -qi "floor\|round" "$tmp/list.txt" || { cat "$tmp/list.txt"; fail "the listing measured"; }

reset
if "$bin" --profile=smoke --benchmark_out="$out" \
  --benchmark_filter='^matches-nothing$' >"$tmp/none.txt" 2>&1; then
  fail "a run that matched nothing exited 0"
fi
unchanged "a run that matched nothing"

reset
"$bin" --profile=default --benchmark_out="$out" \
  --benchmark_filter='queues/(floor/|latency/)' >"$tmp/stopped.txt" 2>&1 &
pid=$!
sleep 2
kill -0 "$pid" 2>/dev/null || fail "the run to stop ended within 2 s"
kill -TERM "$pid"
if wait "$pid"; then fail "a run stopped by SIGTERM exited 0"; fi
[[ "$(cat "$out")" == "$old" ]] || fail "a stopped run changed $out"

reset
"$bin" --profile=smoke --benchmark_out="$out" \
  --benchmark_filter='queues/(floor/|latency/mutex/)' >"$tmp/run.txt" 2>&1 ||
  { cat "$tmp/run.txt"; fail "a smoke run exited non-zero"; }
[[ ! -e "$out.partial" ]] || fail "a finished run left $out.partial"
/usr/bin/python3 - "$out" <<'PY' || fail "the results file"
import json, sys
doc = json.load(open(sys.argv[1]))
assert "serverkit" in doc["context"], doc["context"].keys()
assert any(b["name"].startswith("queues/latency/mutex") for b in doc["benchmarks"])
PY
echo "ok: --help, a listing, no match, a stopped run and a finished run"
