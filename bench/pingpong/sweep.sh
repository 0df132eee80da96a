#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/pingpong/sweep.sh
# -----------------------------------------------------------------------------
#
# //bench/pingpong:sweep: runs sweep.py under Debian's /usr/bin/python3 (the
# python3 on PATH may be a pyenv build) from this target's runfiles, where the
# client and the peer servers lie. Arguments go to sweep.py; see its header.
set -euo pipefail
rel=bench/pingpong/sweep.py
if [[ -f "$0.runfiles/serverkit/$rel" ]]; then
  root="$0.runfiles/serverkit"
elif [[ -n "${RUNFILES_DIR:-}" && -f "$RUNFILES_DIR/serverkit/$rel" ]]; then
  root="$RUNFILES_DIR/serverkit"
elif [[ -f "$rel" ]]; then
  root="$PWD"
else
  echo "sweep: cannot find $rel in the runfiles" >&2
  exit 2
fi
exec /usr/bin/python3 "$root/$rel" "$@"
