#!/usr/bin/env bash
# probe_benchmark for a moment: every benchmark runs and reports a time.
set -euo pipefail
out=$("$1" --benchmark_min_time=0.01 --benchmark_format=json)
for name in BM_EmptyLoop BM_ProbeOff BM_ProbeCounting; do
  grep -q "\"name\": \"$name\"" <<<"$out" || {
    echo "probe_benchmark: no $name in its output" >&2
    exit 1
  }
done
echo "probe_benchmark: 3 benchmarks ran"
