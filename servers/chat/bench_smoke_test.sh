#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# servers/chat/bench_smoke_test.sh
# -----------------------------------------------------------------------------
#
# The chat benchmark end to end for a moment (--profile=smoke): exit 0, the
# pinning line, the table with its ratio column, the paired summary's
# standings against the margin, and JSON with a clean record
# for both servers at every point and no process left running
# (bench_test.py --smoke).
set -euo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/chat"
servers/chat/bench --profile=smoke --out="$out.json" >"$out.txt" 2>&1 ||
  { cat "$out.txt"; echo "FAIL: servers/chat/bench exited non-zero"; exit 1; }
cat "$out.txt"
grep -Eq "^chat: [0-9]+ runs; (server cpus|not pinned)" "$out.txt" ||
  { echo "FAIL: no pinning line"; exit 1; }
grep -q "serverkit/asio" "$out.txt" || { echo "FAIL: no ratio column"; exit 1; }
grep -Eq "^ +1 +100 " "$out.txt" || { echo "FAIL: no row for K=100"; exit 1; }
grep -q "^against a margin of ±5%" "$out.txt" ||
  { echo "FAIL: no standings against the margin"; exit 1; }
# The runfiles root on the import path, for servers.driver.side_by_side's pick.margin.
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 -P -m servers.chat.bench_test --smoke "$out.json"
