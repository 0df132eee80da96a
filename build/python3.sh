#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# build/python3.sh
# -----------------------------------------------------------------------------
#
# The one shim between Bazel and the project's Python scripts: an sh_binary
# or sh_test named NAME in package PKG with this file as its source runs
# the module PKG/NAME.py from its runfiles as `python3 -m PKG.NAME` (PKG's
# slashes as dots) under Debian's /usr/bin/python3 (the python3 on PATH may
# be a pyenv build; Debian's matplotlib and scipy import only under
# /usr/bin/python3), with the arguments it was given. No Python toolchain is
# needed offline. //pick:pick runs the package pick (its __main__.py, as
# `python3 -m pick`: a PKG/NAME folder with a __main__.py stands for
# PKG/NAME.py), //validation:pingpong
# (//bench:pingpong) validation.pingpong, and the Python tests their
# PKG.NAME.
#
# The runfiles root: $0.runfiles/serverkit (bazel run), else
# $RUNFILES_DIR/serverkit (bazel test, or a binary run from a test), else the
# current directory. The script: $0's path from its end, NAME.py beside it
# in PKG, found by dropping leading directories from $0 until
# ROOT/<rest>.py exists (so it works for absolute and relative $0 alike).
#
# The import path: ROOT, the parent of the packages pick, servers,
# validation and build (every module imports the others by package name:
# `from servers.driver import procs`), on PYTHONPATH ahead of what was
# there; -P keeps the current directory off it, so a module's own folder is
# never searched by bare name.
set -euo pipefail
if [[ -d "$0.runfiles/serverkit" ]]; then
  root="$0.runfiles/serverkit"
elif [[ -n "${RUNFILES_DIR:-}" && -d "$RUNFILES_DIR/serverkit" ]]; then
  root="$RUNFILES_DIR/serverkit"
else
  root="$PWD"
fi
rest="${0#/}"
while [[ ! -f "$root/$rest.py" && ! -f "$root/$rest/__main__.py" ]]; do
  if [[ "$rest" != */* ]]; then
    echo "$(basename "$0"): cannot find $(basename "$0").py under $root" >&2
    exit 2
  fi
  rest="${rest#*/}"
done
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
module="${rest//\//.}"
exec /usr/bin/python3 -P -m "$module" "$@"
