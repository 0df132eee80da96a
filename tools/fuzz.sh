#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# tools/fuzz.sh
# -----------------------------------------------------------------------------
#
# Builds every fuzz target (build/fuzz/fuzz.bzl: Bazel targets tagged
# fuzz_target) with clang 14, libFuzzer, ASan and UBSan (.bazelrc's
# --config=fuzz, in an output base of its own beside the gcc one), runs each
# for N seconds from its seed corpus and regression inputs, then runs each
# planted-bug mutant (tagged fuzz_mutant) and insists that the target's
# oracle catches it.
#
#   tools/fuzz.sh [--seconds=N] [--mutant_seconds=M] [--jobs=J]
#                 [--only=REGEX] [--no_mutants] [--out=DIR]
#
#   --seconds         each target's run (default 60)
#   --mutant_seconds  how long a mutant may survive (default 30): a mutant
#                     that outlives it fails the run
#   --jobs            targets run at once (default 1; each is one process)
#   --only            only the targets whose label matches REGEX
#   --out             logs, new corpus inputs, crashes and summary.tsv
#                     (default results/fuzz)
#
# Prints one line per target: execs, execs per second, coverage (libFuzzer's
# "cov", edges reached, and "ft", features), the corpus size, and the result.
# A crash leaves its input under OUT/<target>/crashes/; keep it as a
# regression input by copying it into <package>/fuzz/<target>/regressions/,
# which `make test` replays (the target's _replay test). Exits 1 when a
# target crashed or a mutant survived, 2 on a usage or build error.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=60
mutant_seconds=30
jobs=1
only=
mutants=1
out=results/fuzz
for arg in "$@"; do
  case "$arg" in
    --seconds=*) seconds=${arg#*=} ;;
    --mutant_seconds=*) mutant_seconds=${arg#*=} ;;
    --jobs=*) jobs=${arg#*=} ;;
    --only=*) only=${arg#*=} ;;
    --no_mutants) mutants=0 ;;
    --out=*) out=${arg#*=} ;;
    -h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
for v in "$seconds" "$mutant_seconds" "$jobs"; do
  if ! [[ "$v" =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz: '$v' is not a positive whole number (see --help)" >&2
    exit 2
  fi
done

BAZEL=${BAZEL:-bazel}
main_base=$("$BAZEL" info output_base 2>/dev/null) || {
  echo "fuzz: '$BAZEL info output_base' failed" >&2
  exit 2
}
fuzz_bazel=("$BAZEL" "--output_base=${main_base}-fuzz")

# The main server queries: the fuzz server would walk into the main one's
# convenience symlink (bazel-<dir>) under //... in a fresh checkout.
query() {
  "$BAZEL" query --noshow_progress "attr(tags, '\\b$1\\b', //...)" 2>/dev/null |
    { if [ -n "$only" ]; then grep -E -- "$only" || true; else cat; fi; }
}
mapfile -t targets < <(query fuzz_target)
mapfile -t mutant_targets < <(if [ "$mutants" -eq 1 ]; then query fuzz_mutant; fi)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz target found${only:+ matching '$only'}" >&2
  exit 2
fi

echo "== fuzz: building ${#targets[@]} targets and ${#mutant_targets[@]} mutants" \
  "(clang 14, libFuzzer, ASan, UBSan)"
if ! "${fuzz_bazel[@]}" build --config=fuzz "${targets[@]}" "${mutant_targets[@]}"; then
  echo "fuzz: the build failed" >&2
  exit 2
fi
bin=$("${fuzz_bazel[@]}" info --config=fuzz bazel-bin 2>/dev/null)

# Only a folder this script made (or an empty one) is cleared.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -f "$out/summary.tsv" ]; then
  echo "fuzz: $out holds files this script did not write; choose another --out" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out"
summary="$out/summary.tsv"
printf 'target\tkind\tseconds\texecs\texecs_per_s\tcov\tft\tcorpus\tresult\n' > "$summary"

# The package folder and name of a label //pkg:name.
pkg_of() { local l=${1#//}; echo "${l%%:*}"; }
name_of() { echo "${1##*:}"; }

# One libFuzzer run: LABEL KIND(target|mutant) SECONDS. Writes its log and
# one summary row (a file per run, gathered at the end).
run_one() {
  local label=$1 kind=$2 secs=$3 pkg name dir work log dict=() rc
  pkg=$(pkg_of "$label")
  name=$(name_of "$label")
  # x_fuzz_mutant and x_fuzz_mutant_<bug> (fuzz.bzl) share x_fuzz's corpus.
  dir="$pkg/fuzz/${name%_mutant*}"
  work="$out/$name"
  log="$work/log.txt"
  mkdir -p "$work/corpus" "$work/crashes"
  for sub in seeds regressions; do
    if [ -d "$dir/$sub" ]; then cp -r "$dir/$sub/." "$work/corpus/"; fi
  done
  if [ -f "$dir.dict" ]; then dict=("-dict=$dir.dict"); fi
  # A mutant runs with a fixed seed, so the time it takes to be caught
  # barely varies between runs of one build.
  local seed=()
  if [ "$kind" = mutant ]; then seed=(-seed=1); fi
  # -timeout: one input over 10 s is a hang, reported as a crash.
  "$bin/$pkg/$name" -max_total_time="$secs" -print_final_stats=1 \
    -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/crashes/" \
    "${seed[@]}" "${dict[@]}" "$work/corpus" > "$log" 2>&1
  rc=$?
  local execs eps cov ft corpus result
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | tail -1 | awk '{print $2}')
  eps=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | tail -1 | awk '{print $2}')
  cov=$(grep -oE ' cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  ft=$(grep -oE ' ft: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  corpus=$(find "$work/corpus" -type f | wc -l)
  if [ "$kind" = target ]; then
    if [ "$rc" -eq 0 ]; then result=ok; else result="CRASH (exit $rc; $work/crashes/)"; fi
  elif [ "$rc" -ne 0 ] && grep -q '^serverkit-fuzz: oracle failed' "$log"; then
    result="caught: $(grep -m1 '^serverkit-fuzz: oracle failed' "$log" | cut -c1-120)"
  elif [ "$rc" -ne 0 ]; then
    result="MUTANT CRASHED WITHOUT THE ORACLE (exit $rc; $log)"
  else
    result="MUTANT SURVIVED ${secs} s"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$kind" "$secs" \
    "${execs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$result" \
    > "$work/row.tsv"
  printf '%-44s %-6s execs %-10s %7s/s  cov %-5s ft %-6s corpus %-5s %s\n' \
    "$label" "$kind" "${execs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" \
    "$corpus" "$result"
}

# Runs "label kind secs" lines, at most $jobs at once.
run_all() {
  local line running=0
  while read -r line; do
    # shellcheck disable=SC2086
    run_one $line &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  done
  wait
}

echo "== fuzz: ${#targets[@]} targets, ${seconds} s each, $jobs at a time" \
  "(logs under $out/)"
for t in "${targets[@]}"; do echo "$t target $seconds"; done | run_all
if [ ${#mutant_targets[@]} -gt 0 ]; then
  echo "== fuzz: ${#mutant_targets[@]} planted-bug mutants, each must be" \
    "caught by its oracle within ${mutant_seconds} s"
  for t in "${mutant_targets[@]}"; do echo "$t mutant $mutant_seconds"; done | run_all
fi

status=0
for t in "${targets[@]}" "${mutant_targets[@]}"; do
  row="$out/$(name_of "$t")/row.tsv"
  if [ ! -f "$row" ]; then
    echo "fuzz: $t left no result" >&2
    status=1
    continue
  fi
  cat "$row" >> "$summary"
  case "$(cut -f9 "$row")" in ok | caught:*) ;; *) status=1 ;; esac
done
echo "== fuzz: summary in $summary"
if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED: a target crashed or a mutant was not caught (see above)" >&2
  exit 1
fi
if [ ${#mutant_targets[@]} -gt 0 ]; then
  echo "fuzz: every target ran clean and every mutant was caught"
else
  echo "fuzz: every target ran clean (no mutant run)"
fi
