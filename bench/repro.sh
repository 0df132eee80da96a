#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/repro.sh
# -----------------------------------------------------------------------------
#
# `make bench-repro FAMILY=queues` (threadpool, logger, buffer, or all): runs a
# family's sweep twice, back to back (each as 3 processes merged into one
# file, as make bench runs it: bench/sweep.sh), then asks bench:pick whether
# the two runs agree (`pick --repro`). Per workload class it prints each run's winner and
# whether the runs agree; a contradiction is run 1 saying X beats Y above the
# noise while run 2 says Y beats X above the noise, or the two runs naming
# different winners both above the noise.
#
#   FAMILY=queues PROFILE=default BAZEL=bazel bench/repro.sh
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

# One family: two sweeps, then pick --repro. Prints its verdict's exit code.
repro_one() {
  local family=$1 run start rc
  for run in 1 2; do
    echo
    echo "[bench-repro $family: run $run of 2, profile $PROFILE] log: $dir/$family-$run.log"
    start=$(date +%s)
    PROFILE="$PROFILE" BAZEL="$BAZEL" bench/sweep.sh "$family" \
      "$dir/$family-$run.json" 2>&1 | tee "$dir/$family-$run.log"
    rc=${PIPESTATUS[0]}
    if [[ $rc -ne 0 ]]; then
      echo "[bench-repro $family: run $run FAILED (exit $rc)]" >&2
      return 1
    fi
    echo "[bench-repro $family: run $run done in $(mmss $(($(date +%s) - start)))]"
  done
  echo
  echo "[bench-repro $family: comparing the two runs] $dir/$family.txt"
  $BAZEL run -c opt --noshow_progress --ui_event_filters=-info //bench:pick -- \
    --repro "$dir/$family-1.json" "$dir/$family-2.json" 2>&1 | tee "$dir/$family.txt"
  return "${PIPESTATUS[0]}"
}

status=0
summary=()
for family in "${chosen[@]}"; do
  repro_one "$family"
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
