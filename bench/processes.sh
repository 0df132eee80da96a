# -----------------------------------------------------------------------------
# bench/processes.sh
# -----------------------------------------------------------------------------
#
# Sourced by bench/sweep.sh, bench/repro.sh and bench/bench.sh: how many
# processes a sweep runs as (bench/sweep.sh says why).
#
#   procs=$(sweep_processes "$PROFILE" "bench") || exit 2
#
# Prints $PROCESSES when set, else 1: paired rounds cancel the host's slow
# states within one process (bench/harness/rounds.h), and one process spends
# the whole time budget where its intervals are widest. Returns 2, with
# "<who>: ..." on stderr, unless the value is a whole number from 1 to 64.
sweep_processes() {
  local profile=$1 who=$2 n
  n="${PROCESSES:-1}"
  [[ -n "$profile" ]] || return 2
  if ! [[ "$n" =~ ^[0-9]+$ ]] || (( n < 1 || n > 64 )); then
    echo "$who: PROCESSES must be a whole number from 1 to 64 (got '$n')" >&2
    return 2
  fi
  echo "$n"
}
