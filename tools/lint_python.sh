#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# tools/lint_python.sh
# -----------------------------------------------------------------------------
#
# Lints the project's Python: flake8 (pycodestyle and pyflakes, configured in
# .flake8) and mypy (mypy.ini: every function annotated, scipy and matplotlib
# without stubs) on pick, servers/ (pingpong, http, chat, loadgen, soak)
# and build/, under Debian's /usr/bin/python3 (the python3-flake8 and python3-mypy
# packages, tools/install_deps.sh). mypy runs twice: `mypy --strict` on the
# package pick (pick, and any path under it), then plain mypy on the
# other paths with pick added to MYPYPATH: their tests import
# pick's layering.py by its bare name (`import layering`), which in
# one run with the package would be the same file under two module names
# (pick.layering and layering).
#
#   tools/lint_python.sh [PATH ...]     (default: pick servers/pingpong
#                                        servers/http servers/chat
#                                        servers/loadgen servers/soak build)
#
# Runs both, then exits 1 when either found a problem (2 when a tool is
# missing), 0 when both pass. Runs from the workspace root wherever it is
# called from. mypy's cache goes under $TMPDIR (or /tmp), not the tree.
set -uo pipefail
cd "$(dirname "$0")/.."

py=${PYTHON:-/usr/bin/python3}
if [[ $# -gt 0 ]]; then paths=("$@"); else paths=(pick servers/pingpong servers/http servers/chat servers/loadgen servers/soak build); fi
cache="${MYPY_CACHE_DIR:-${TMPDIR:-/tmp}/serverkit-mypy-cache}"

for tool in flake8 mypy; do
  if ! "$py" -m "$tool" --version >/dev/null 2>&1; then
    echo "lint_python: $py -m $tool is not available; install" \
      "python3-$tool (tools/install_deps.sh)" >&2
    exit 2
  fi
done

status=0
echo "== flake8 ${paths[*]}"
"$py" -m flake8 "${paths[@]}" || status=1
pick=()
rest=()
for p in "${paths[@]}"; do
  case "${p%/}" in
    pick | pick/*) pick+=("$p") ;;
    *) rest+=("$p") ;;
  esac
done
if [[ ${#pick[@]} -gt 0 ]]; then
  echo "== mypy --strict ${pick[*]}"
  "$py" -m mypy --strict --cache-dir "$cache" "${pick[@]}" || status=1
fi
if [[ ${#rest[@]} -gt 0 ]]; then
  echo "== mypy ${rest[*]}"
  MYPYPATH=pick${MYPYPATH:+:$MYPYPATH} \
    "$py" -m mypy --cache-dir "$cache" "${rest[@]}" || status=1
fi
if [[ $status -eq 0 ]]; then
  echo "lint_python: flake8 and mypy passed"
else
  echo "lint_python: FAILED (see above)" >&2
fi
exit $status
