#!/usr/bin/env bash
# Runs one sweep binary with --profile=smoke and checks what it promises:
# exit 0, a ranking table per scenario, and Google Benchmark's JSON on disk.
set -euo pipefail
bin="$1"
family="$2"
out="${TEST_TMPDIR:-$(mktemp -d)}/smoke"
"$bin" --profile=smoke --benchmark_out="$out.json" --benchmark_out_format=json \
  >"$out.txt" 2>&1 || { cat "$out.txt"; echo "FAIL: $family sweep exited non-zero"; exit 1; }
grep -q "^Ranking: $family/" "$out.txt" || { cat "$out.txt"; echo "FAIL: no ranking table"; exit 1; }
if grep -q "ERROR" "$out.txt"; then cat "$out.txt"; echo "FAIL: a run reported an error"; exit 1; fi
grep -q "\"name\": \"$family/" "$out.json" || { echo "FAIL: JSON has no $family/ runs"; exit 1; }
echo "$family smoke: $(grep -c "^Ranking: " "$out.txt") ranking tables, OK"
