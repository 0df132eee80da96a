#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/pick/pick.sh
# -----------------------------------------------------------------------------
#
# //bench/pick:pick (`bazel run //bench:pick`): runs pick.py under Debian's
# /usr/bin/python3 (the python3 on PATH may be a pyenv build; Debian's
# matplotlib and scipy import only under /usr/bin/python3) from this target's
# runfiles. Arguments go to pick.py; see its header.
set -euo pipefail
rel=bench/pick/pick.py
if [[ -f "$0.runfiles/serverkit/$rel" ]]; then
  root="$0.runfiles/serverkit"
elif [[ -n "${RUNFILES_DIR:-}" && -f "$RUNFILES_DIR/serverkit/$rel" ]]; then
  root="$RUNFILES_DIR/serverkit"
elif [[ -f "$rel" ]]; then
  root="$PWD"
else
  echo "pick: cannot find $rel in the runfiles" >&2
  exit 2
fi
exec /usr/bin/python3 "$root/$rel" "$@"
