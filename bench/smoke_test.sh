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
# The vocabulary and the floor bench:pick reads from the context.
grep -q '"serverkit": {"schema": 1, "family": "'"$family"'"' "$out.json" ||
  { echo "FAIL: JSON context has no serverkit object for $family"; exit 1; }
grep -q '"rankings": \[{"scenario": ' "$out.json" || { echo "FAIL: no ranking rules in the JSON"; exit 1; }
grep -q "^floor before: " "$out.txt" || { cat "$out.txt"; echo "FAIL: no floor before the sweep"; exit 1; }
grep -q "^floor after: " "$out.txt" || { cat "$out.txt"; echo "FAIL: no floor after the sweep"; exit 1; }
grep -q "^Reference: $family/floor " "$out.txt" || { cat "$out.txt"; echo "FAIL: no floor row"; exit 1; }
/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out.json" ||
  { echo "FAIL: $out.json is not valid JSON"; exit 1; }
# Colour only on a terminal: this output is a file.
if grep -q $'\033\[' "$out.txt"; then echo "FAIL: ANSI escapes in redirected output"; exit 1; fi
echo "$family smoke: $(grep -c "^Ranking: " "$out.txt") ranking tables, OK"
