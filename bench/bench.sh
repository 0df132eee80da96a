#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/bench.sh
# -----------------------------------------------------------------------------
#
# `make bench`'s chain, from the workspace root: the four sweeps in paired
# rounds, each within its time budget (one process each; with PROCESSES=N,
# process 1 of every family, then process 2 of every family, ..., then
# merged into one file per family; bench/sweep.sh), pick, the
# ping-pong sweep with its validation, the chat broadcast (servers/chat), HTTP
# under wrk (servers/http), and pick again so the report includes them all.
# Prints a progress line per step ([3/18] logger sweep ...),
# an up-front total estimate for the profile, and each step's elapsed time;
# ends by printing where results/REPORT.md is.
#
#   PROFILE=smoke|default|full BAZEL=bazel PICK_FLAGS='--producers=4' \
#     SNAPSHOT=1 bench/bench.sh
#
# A failed sweep stops the chain (nothing to pick from). A ping-pong, chat or
# HTTP run with unclean points, or charts that could not be drawn, do not:
# the report
# is still written and shows them; the exit status is then 1.
set -uo pipefail

PROFILE="${PROFILE:-default}"
BAZEL="${BAZEL:-bazel}"
PICK_FLAGS="${PICK_FLAGS:-}"
export PROFILE BAZEL  # bench/sweep.sh reads them

# Seconds per family sweep (all its processes) and per later step on this
# project's 2-core VM, bazel's start-up included and the first build not.
# The last entry is the confirmation. smoke: measured with `make
# bench-quick`; default: every step as `make bench` took it on
# 2026-11-28 (its fourth run: 30:38, the HTTP step 6:24 of which 1:37 was
# retrying void latency runs, now capped at a quarter of the sweep's
# plan; a sweep ends within one round of its time budget; the ping-pong
# step is its sweep plus the validation's budget and its load map's); full:
# extrapolated from the default's rounds (at least 10 rounds of the full
# sizes; not measured end to end).
case "$PROFILE" in
  smoke)   est=(1 1 1 1 5 28 1 22 3 3) ;;
  default) est=(105 75 74 55 5 905 108 287 8 100) ;;
  full)    est=(1270 990 1420 380 20 3500 600 700 20 300) ;;
  *) echo "bench: PROFILE must be smoke, default or full (got '$PROFILE')" >&2
     exit 2 ;;
esac

source "$(dirname "${BASH_SOURCE[0]}")/processes.sh"
procs=$(sweep_processes "$PROFILE" bench) || exit 2
export PROCESSES="$procs"

families=(queues threadpool logger buffer)
titles=("queue sweep" "thread-pool sweep" "logger sweep" "buffer sweep")
merge_all() {
  local f
  for f in "${families[@]}"; do bench/sweep.sh --merge "$f" || return 1; done
}

# The confirmation (pick/decide/paired_rounds.py): each family's leaders, runners-up and
# baselines once more, in several fresh processes of a few rounds each
# (process K of every family before process K + 1, then one merge per
# family); pick takes every margin from these rounds, not from those that
# chose, with an interval over the processes.
confirm_all() {
  local f k out most=0
  local -A procs=() flags=()
  rm -rf results/confirm
  mkdir -p results/confirm || return 1
  for f in "${families[@]}"; do
    out=$(PYTHONPATH=. /usr/bin/python3 -m pick --results=results $PICK_FLAGS \
      --confirm-filter "$f") || return 1
    if [[ -z "$out" ]]; then
      echo "[confirm $f: nothing to confirm]"
      continue
    fi
    procs[$f]=${out%% *}
    flags[$f]=${out#* }
    (( procs[$f] > most )) && most=${procs[$f]}
  done
  for ((k = 1; k <= most; k++)); do
    for f in "${families[@]}"; do
      [[ -n "${procs[$f]:-}" ]] && (( k <= procs[$f] )) || continue
      echo "[confirm $f, process $k of ${procs[$f]}: $(echo "${flags[$f]}" | cut -c1-100)...]"
      # shellcheck disable=SC2086  # the flags are words without spaces
      PROCESSES=${procs[$f]} bench/sweep.sh --part="$k" "$f" \
        "$PWD/results/confirm/$f.json" -- ${flags[$f]} || return 1
    done
  done
  for f in "${families[@]}"; do
    [[ -n "${procs[$f]:-}" ]] || continue
    PROCESSES=${procs[$f]} bench/sweep.sh --merge "$f" \
      "$PWD/results/confirm/$f.json" || return 1
  done
}

# The steps: every family's process 1, then every family's process 2, ...;
# the merge; pick; the ping-pong; pick again. What a failure of each step
# means: stop (1), or go on to the report (0).
names=() cmds=() fatal=() step_est=()
for ((k = 1; k <= procs; k++)); do
  for j in 0 1 2 3; do
    names+=("${titles[$j]}, process $k of $procs")
    cmds+=("bench/sweep.sh --part=$k ${families[$j]}")
    fatal+=(1)
    step_est+=($(( (est[j] + procs - 1) / procs )))
  done
done
names+=("merge the processes" "pick" "confirm the leaders in fresh processes"
       "pick on the confirmation rounds" "ping-pong + validation"
       "chat broadcast" "HTTP under wrk" "report (pick again)")
cmds+=("merge_all"
       "$BAZEL run -c opt //bench:pick -- --replace $PICK_FLAGS"
       "confirm_all"
       "$BAZEL run -c opt //bench:pick -- --replace $PICK_FLAGS"
       "$BAZEL run -c opt //bench:pingpong -- --profile=$PROFILE"
       "$BAZEL run -c opt //bench:chat -- --profile=$PROFILE"
       "$BAZEL run -c opt //bench:http -- --profile=$PROFILE"
       "$BAZEL run -c opt //bench:pick -- --replace $PICK_FLAGS")
fatal+=(1 1 1 1 0 0 0 0)
pick_steps=" $((procs * 4 + 2)) $((procs * 4 + 4)) "  # exit 3 (no charts): not fatal
step_est+=(2 "${est[4]}" "${est[9]}" "${est[4]}" "${est[5]}" "${est[6]}" "${est[7]}"
           "${est[8]}")

mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

total=0
for s in "${step_est[@]}"; do total=$((total + s)); done
n=${#names[@]}
echo "bench: profile $PROFILE, $n steps, about $(mmss "$total") (min:s) on 2 cores," \
  "plus the first build"
chain_start=$(date +%s)
problems=()
for ((i = 0; i < n; i++)); do
  step=$((i + 1))
  echo
  echo "[$step/$n] ${names[$i]} (profile $PROFILE, about $(mmss "${step_est[$i]}")) ..."
  echo "+ ${cmds[$i]}"
  start=$(date +%s)
  ${cmds[$i]}
  rc=$?
  now=$(date +%s)
  took=$((now - start))
  if [[ $rc -ne 0 ]]; then
    if [[ ${fatal[$i]} -eq 1 && ! ( "$pick_steps" == *" $step "* && $rc -eq 3 ) ]]; then
      echo "[$step/$n] ${names[$i]} FAILED (exit $rc) after $(mmss "$took"); stopping." >&2
      exit 1
    fi
    problems+=("[$step/$n] ${names[$i]} exited $rc")
    echo "[$step/$n] ${names[$i]} exited $rc after $(mmss "$took"); going on to the report"
  else
    echo "[$step/$n] ${names[$i]} done in $(mmss "$took")" \
      "(elapsed $(mmss $((now - chain_start))))"
  fi
done

echo
echo "bench: profile $PROFILE done in $(mmss $(($(date +%s) - chain_start)))" \
  "(estimate $(mmss "$total"))"
for p in "${problems[@]}"; do echo "bench: $p (see its output above)"; done
echo "Report: $PWD/results/REPORT.md"
# SNAPSHOT=1: the report also goes to docs/results/, one file per host core
# count and date, with the host and the commit on top, ready to commit.
if [[ -n "${SNAPSHOT:-}" && -f results/REPORT.md ]]; then
  snap="docs/results/$(date -u +%F)-$(nproc)core-report.md"
  {
    echo "# $(date -u +%F): \`make bench\` (profile $PROFILE) on $(nproc) cores"
    echo
    echo "Host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores." \
      "Commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)." \
      "Written by \`make bench SNAPSHOT=1\` from results/REPORT.md; the" \
      "charts it names stay in results/."
    echo
    cat results/REPORT.md
  } > "$snap"
  echo "Snapshot: $PWD/$snap"
fi
[[ ${#problems[@]} -eq 0 ]]
