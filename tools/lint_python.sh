#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# tools/lint_python.sh
# -----------------------------------------------------------------------------
#
# Lints the project's Python: flake8 (pycodestyle and pyflakes, configured in
# .flake8) and `mypy --strict` (mypy.ini: every function annotated, scipy
# and matplotlib without stubs) on the packages pick, servers, validation
# and build, under Debian's /usr/bin/python3 (the python3-flake8 and
# python3-mypy packages, tools/install_deps.sh). Every module is imported by
# its package name from the workspace root, so one mypy run checks them
# all.
#
#   tools/lint_python.sh [PATH ...]     (default: pick servers validation
#                                        build)
#
# Runs both, then exits 1 when either found a problem (2 when a tool is
# missing), 0 when both pass. Runs from the workspace root wherever it is
# called from. mypy's cache goes under $TMPDIR (or /tmp), not the tree.
set -uo pipefail
cd "$(dirname "$0")/.."

py=${PYTHON:-/usr/bin/python3}
if [[ $# -gt 0 ]]; then paths=("$@"); else paths=(pick servers validation build); fi
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
echo "== mypy --strict ${paths[*]}"
"$py" -m mypy --strict --cache-dir "$cache" "${paths[@]}" || status=1
if [[ $status -eq 0 ]]; then
  echo "lint_python: flake8 and mypy passed"
else
  echo "lint_python: FAILED (see above)" >&2
fi
exit $status
