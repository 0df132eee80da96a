#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/repro.sh
# -----------------------------------------------------------------------------
#
# `make bench-repro FAMILY=queues` (threadpool, logger, buffer, or all): runs a
# family's sweep twice, back to back, as make bench runs it (bench/sweep.sh;
# with PROCESSES=N and FAMILY=all, process 1 of every family, then process 2
# of every family, ...), then asks bench:pick whether the two runs agree
# (`pick --repro`). Per workload class it prints each run's rounds and the
# leading pair's median paired ratio with its interval, and whether the runs
# agree; a contradiction is two confident runs whose intervals exclude each
# other's median, and "confident in one run, a tie in the other" is counted
# as a half-disagreement.
#
#   FAMILY=queues PROFILE=default PROCESSES=1 BAZEL=bazel bench/repro.sh
#
# Writes results/repro/<family>-1.json, -2.json, their logs, and the verdict
# results/repro/<family>.txt. A run whose host drifted (its floor moved) is
# compared all the same, and the verdict says so. Exit status: 0 when the
# runs agree; 1 on a contradiction (or a sweep that failed); 2 on bad
# arguments.
set -uo pipefail

FAMILY="${FAMILY:-}"
PROFILE="${PROFILE:-default}"
BAZEL="${BAZEL:-bazel}"
families=(queues threadpool logger buffer)

usage() {
  echo "bench-repro: usage: make bench-repro FAMILY=queues|threadpool|logger|buffer|all" \
    "[PROFILE=default|full|smoke]" >&2
  exit 2
}

case "$PROFILE" in smoke|default|full) ;; *)
  echo "bench-repro: PROFILE must be smoke, default or full (got '$PROFILE')" >&2
  exit 2 ;;
esac
if [[ "$FAMILY" == all ]]; then
  chosen=("${families[@]}")
elif [[ " ${families[*]} " == *" $FAMILY "* && -n "$FAMILY" ]]; then
  chosen=("$FAMILY")
else
  [[ -n "$FAMILY" ]] && echo "bench-repro: unknown FAMILY '$FAMILY'" >&2
  usage
fi

dir="$PWD/results/repro"
mkdir -p "$dir" || exit 1
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

source "$(dirname "${BASH_SOURCE[0]}")/processes.sh"
procs=$(sweep_processes "$PROFILE" bench-repro) || exit 2
export PROFILE BAZEL PROCESSES="$procs"

# One run of the chosen families, as make bench runs them: process 1 of
# every family, then process 2 of every family, ..., then each family's
# processes merged into $dir/<family>-RUN.json (logs in <family>-RUN.log).
# Returns 1 when a sweep failed.
run_sweeps() {
  local run=$1 k family start
  start=$(date +%s)
  for family in "${chosen[@]}"; do : >"$dir/$family-$run.log"; done
  for ((k = 1; k <= procs; k++)); do
    for family in "${chosen[@]}"; do
      echo
      echo "[bench-repro run $run of 2: $family, process $k of $procs, profile $PROFILE]" \
        "log: $dir/$family-$run.log"
      bench/sweep.sh "--part=$k" "$family" "$dir/$family-$run.json" 2>&1 |
        tee -a "$dir/$family-$run.log"
      if [[ ${PIPESTATUS[0]} -ne 0 ]]; then
        echo "[bench-repro run $run: $family process $k FAILED]" >&2
        return 1
      fi
    done
  done
  for family in "${chosen[@]}"; do
    bench/sweep.sh --merge "$family" "$dir/$family-$run.json" 2>&1 |
      tee -a "$dir/$family-$run.log"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || return 1
  done
  echo "[bench-repro run $run of 2 done in $(mmss $(($(date +%s) - start)))]"
}

# One family's verdict: pick --repro on its two runs. Returns its exit code.
compare_one() {
  local family=$1
  echo
  echo "[bench-repro $family: comparing the two runs] $dir/$family.txt"
  $BAZEL run -c opt --noshow_progress --ui_event_filters=-info //bench:pick -- \
    --repro "$dir/$family-1.json" "$dir/$family-2.json" 2>&1 | tee "$dir/$family.txt"
  return "${PIPESTATUS[0]}"
}

for run in 1 2; do
  if ! run_sweeps "$run"; then
    echo "bench-repro: a sweep failed in run $run; nothing to compare" >&2
    exit 1
  fi
done

status=0
summary=()
for family in "${chosen[@]}"; do
  compare_one "$family"
  rc=$?
  case $rc in
    0) summary+=("$family: the two runs agree") ;;
    *) summary+=("$family: CONTRADICTION or failure (exit $rc), see $dir/$family.txt")
       status=1 ;;
  esac
done
echo
for line in "${summary[@]}"; do echo "bench-repro: $line"; done
exit "$status"
