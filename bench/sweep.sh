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
#   bench/sweep.sh --part=K FAMILY [OUT.json] [-- flags]   process K only
#   bench/sweep.sh --merge FAMILY [OUT.json]                join parts 1..N
#   env: PROFILE=default|full|smoke  PROCESSES=N  BAZEL=bazel  SWEEP_BIN=path
#
# Each process runs the family in paired rounds (bench/harness/rounds.h):
# every implementation of a benchmark group once a round, back to back in a
# fresh random order, so the per-round ratios that bench:pick decides from
# cancel any host state that lasts longer than a round. A sweep may still
# run as N processes (PROCESSES=N; each `--part=K/N` gets 1/N of the time
# budget and of the minimum rounds): `pick --merge` joins their files and
# pairs rounds within each process. `make bench` and `make bench-repro
# FAMILY=all` run process 1 of every family, then process 2, and so on
# (--part=K), and merge at the end (--merge).
#
# PROCESSES defaults to 1 (bench/processes.sh). OUT defaults to
# results/<family>.json under the current directory; the parts are kept beside it in parts/<family>-<K>.json.
# SWEEP_BIN runs that binary instead of `$BAZEL run -c opt //bench:FAMILY`
# (the test does). Exit status: 0; 1 when a process or the merge failed; 2 on
# bad arguments.
set -uo pipefail

PROFILE="${PROFILE:-default}"
BAZEL="${BAZEL:-bazel}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The folder that holds the package pick (`python -m pick --merge`).
PICK_ROOT="${PICK_ROOT:-$(dirname "$here")}"

usage() {
  echo "sweep: usage: bench/sweep.sh queues|threadpool|logger|buffer [OUT.json]" \
    "[-- sweep flags]  (env PROFILE, PROCESSES, BAZEL)" >&2
  exit 2
}

only_part=""
merge_only=0
case "${1:-}" in
  --part=*) only_part="${1#--part=}"; shift ;;
  --merge) merge_only=1; shift ;;
esac

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
source "$here/processes.sh"
n=$(sweep_processes "$PROFILE" sweep) || exit 2

if [[ -n "$only_part" ]] && ! { [[ "$only_part" =~ ^[0-9]+$ ]] && (( only_part >= 1 && only_part <= n )); }; then
  echo "sweep: --part=$only_part: want a number from 1 to PROCESSES ($n)" >&2
  exit 2
fi
if (( merge_only )) && (( ${#extra[@]} > 0 )); then
  echo "sweep: --merge takes no sweep flags" >&2
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

if (( n == 1 )) && (( ! merge_only )) && [[ -z "$only_part" ]]; then
  run_one "--benchmark_out=$out" --benchmark_out_format=json
  exit $?
fi

run_part() {  # run_part K: process K of n into parts/FAMILY-K.json
  local k=$1 part="$outdir/parts/$family-$1.json" rc
  rm -f "$part"
  echo "[sweep $family: process $k of $n, profile $PROFILE]"
  run_one "--part=$k/$n" "--benchmark_out=$part" --benchmark_out_format=json
  rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "[sweep $family: process $k of $n FAILED (exit $rc)]" >&2
    return 1
  fi
}

merge() {
  local parts=() k
  for ((k = 1; k <= n; k++)); do parts+=("$outdir/parts/$family-$k.json"); done
  if (( n == 1 )); then
    cp "${parts[0]}" "$out" || return 1
    echo "[sweep $family: one process, copied to $out]"
    return 0
  fi
  echo "[sweep $family: merging $n processes into $out]"
  PYTHONPATH="$PICK_ROOT${PYTHONPATH:+:$PYTHONPATH}" \
    /usr/bin/python3 -m pick --merge "$out" "${parts[@]}"
}

if [[ -n "$only_part" ]]; then
  run_part "$only_part" || exit 1
  exit 0
fi
if (( ! merge_only )); then
  for ((k = 1; k <= n; k++)); do run_part "$k" || exit 1; done
fi
merge || exit 1
