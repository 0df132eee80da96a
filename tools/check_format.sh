#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# tools/check_format.sh
# -----------------------------------------------------------------------------
#
# Checks that every C++ file git tracks is as clang-format (Debian's
# clang-format 14, .clang-format) would write it, and names the files that
# are not. `tools/check_format.sh --fix` rewrites them instead. Where
# clang-format 14 mangles a construct it does not know (a requires-clause
# of C++20), the code keeps its own layout between `// clang-format off` and
# `// clang-format on`.
#
# Exit status: 0 all formatted, 1 some file is not, 2 clang-format missing.
set -uo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang-format >/dev/null 2>&1; then
  echo "check_format: clang-format is not installed (tools/install_deps.sh)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} files differ from clang-format's" \
    "layout (tools/check_format.sh --fix rewrites them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} C++ files formatted"
