#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/sweep.sh
# -----------------------------------------------------------------------------
#
# One family's sweep, run as several processes and merged into one result
# file: `make bench`, `make bench-<family>` and `make bench-repro` all run
# their sweeps through it.
#
#   bench/sweep.sh FAMILY [OUT.json] [-- extra sweep flags]
#   env: PROFILE=default|full|smoke  PROCESSES=N  BAZEL=bazel  SWEEP_BIN=path
#
# Why processes: on this project's 2-core VM the same implementation ran at
# 30M items/s in some processes and 50M in others, steadily within each
# process; a whole sweep in one process lets that decide a ranking, and the
# next run reverses it. Run as N processes (each `--part=K/N`, with
# ceil(9 / N) of the profile's repetitions), every process lands where it
# lands, `pick --merge` joins their files (each repetition keeps its
# process), and pick counts X ahead of Y only when every process agrees.
#
# PROCESSES defaults to 3 (1 for the smoke profile, which runs 1
# repetition). OUT defaults to results/<family>.json under the current
# directory; the parts are kept beside it in parts/<family>-<K>.json.
# SWEEP_BIN runs that binary instead of `$BAZEL run -c opt //bench:FAMILY`
# (the test does). Exit status: 0; 1 when a process or the merge failed; 2 on
# bad arguments.
set -uo pipefail

PROFILE="${PROFILE:-default}"
BAZEL="${BAZEL:-bazel}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PICK_PY="${PICK_PY:-$here/pick/pick.py}"

usage() {
  echo "sweep: usage: bench/sweep.sh queues|threadpool|logger|buffer [OUT.json]" \
    "[-- sweep flags]  (env PROFILE, PROCESSES, BAZEL)" >&2
  exit 2
}

family="${1:-}"
case "$family" in queues|threadpool|logger|buffer) ;; *)
  [[ -n "$family" ]] && echo "sweep: unknown family '$family'" >&2
  usage ;;
esac
shift
out="$PWD/results/$family.json"
if [[ $# -gt 0 && "$1" != "--" ]]; then
  out="$1"
  shift
fi
if [[ $# -gt 0 ]]; then
  [[ "$1" == "--" ]] || usage
  shift
fi
extra=("$@")

case "$PROFILE" in smoke|default|full) ;; *)
  echo "sweep: PROFILE must be smoke, default or full (got '$PROFILE')" >&2
  exit 2 ;;
esac
if [[ "$PROFILE" == smoke ]]; then n="${PROCESSES:-1}"; else n="${PROCESSES:-3}"; fi
if ! [[ "$n" =~ ^[0-9]+$ ]] || (( n < 1 || n > 64 )); then
  echo "sweep: PROCESSES must be a whole number from 1 to 64 (got '$n')" >&2
  exit 2
fi

outdir="$(dirname "$out")"
mkdir -p "$outdir/parts" || exit 1

run_one() {  # run_one FLAGS...: the sweep binary with the profile's flags
  if [[ -n "${SWEEP_BIN:-}" ]]; then
    "$SWEEP_BIN" "--profile=$PROFILE" "$@" "${extra[@]}"
  else
    $BAZEL run -c opt "//bench:$family" -- "--profile=$PROFILE" "$@" "${extra[@]}"
  fi
}

if (( n == 1 )); then
  run_one "--benchmark_out=$out" --benchmark_out_format=json
  exit $?
fi

parts=()
for ((k = 1; k <= n; k++)); do
  part="$outdir/parts/$family-$k.json"
  rm -f "$part"
  echo "[sweep $family: process $k of $n, profile $PROFILE]"
  run_one "--part=$k/$n" "--benchmark_out=$part" --benchmark_out_format=json
  rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "[sweep $family: process $k of $n FAILED (exit $rc)]" >&2
    exit 1
  fi
  parts+=("$part")
done
echo "[sweep $family: merging $n processes into $out]"
/usr/bin/python3 "$PICK_PY" --merge "$out" "${parts[@]}" || exit 1
