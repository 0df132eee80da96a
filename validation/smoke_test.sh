#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# validation/smoke_test.sh
# -----------------------------------------------------------------------------
#
# The validation mode for a moment (--validate --profile=smoke: one round
# of the first case of each component) with the real servers, with fixture
# winners files (testdata/winners-*.json): a well-formed one (one pick equal
# to its baseline, so its leader runs; one micro ratio null), a malformed
# one and a missing one (both fall back to the defaults and say so). The
# controls are sized from the real servers' stop lines. Checks the verdict table here, then, with run_test.py --smoke
# (the checks its unit tests run on fixture runs), the JSON under
# "validation" (the sweep's keys already there kept), that the logger runs
# wrote log lines and that their files were deleted.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}/validate"
testdata=validation/testdata
mkdir -p "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
run() {  # run NAME ARGS...: the validation, output in $tmp/NAME.txt
  local name=$1
  shift
  validation/pingpong --profile=smoke --validate --validate_seconds=0.2 \
    --out="$tmp/$name.json" "$@" >"$tmp/$name.txt" 2>&1 ||
    { cat "$tmp/$name.txt"; fail "$name: sweep --validate exited non-zero"; }
  cat "$tmp/$name.txt"
}

# 1. Well-formed winners; an earlier sweep's JSON already at --out.
echo '{"context": {"profile": "smoke"}, "echo": [{"server": "x"}], "header": []}' \
  >"$tmp/good.json"
run good --winners="$testdata/winners-good.json"
grep -q "^validation verdicts (candidates from winners.json" "$tmp/good.txt" ||
  fail "good: no verdict table"
grep -Eq "^task_queue +reply-via-queue-10 +pick +swap-vector -> moodycamel +2.50x +[0-9.]+x \[[0-9.]+, -\] p [0-9.e-]+ +[0-9.]+x .* [0-9.]+ ns/task, measured -?[0-9.e+-]+ +1 \(max_rounds\) +n/a +(cpu|tput) +instrument too weak$" \
  "$tmp/good.txt" || fail "good: no task_queue row with micro, e2e, control and its cost"
grep -Eq "^buffer +echo-16k +alternative +linear -> ring +1.05x " "$tmp/good.txt" ||
  fail "good: the buffer's pick kept the baseline, its leader did not run"
grep -Eq "^logger +log-per-message-1 +pick +sync -> async-double-buffer +n/a .* ns/log, measured .* instrument too weak$" \
  "$tmp/good.txt" || fail "good: logger row without micro n/a, its control, too weak at 1 round"
grep -Eq "^thread_pool +http-pool +pick +mutex -> queue-bounded-mpmc +77.50x .* ns/task, measured .* instrument too weak$" \
  "$tmp/good.txt" || fail "good: no thread_pool row with micro, its control, too weak at 1 round"
grep -q "^verdict: task_queue (the micro pick against the baseline): moodycamel's 2.50x over swap-vector" \
  "$tmp/good.txt" || fail "good: no verdict sentence"

# 2. Malformed JSON: defaults, said so.
run bad --winners="$testdata/winners-bad.json" \
  --validate_components=task_queue,logger
grep -q "^note: cannot read .*winners-bad.json" "$tmp/bad.txt" ||
  fail "bad: malformed winners.json not reported"
grep -Eq "^task_queue .* default +swap-vector -> bounded-mpmc +n/a .*\[default pair\]$" "$tmp/bad.txt" ||
  fail "bad: task_queue did not fall back to the defaults"

# 3. Missing file: defaults, said so.
run missing --winners="$tmp/no-such-winners.json" --validate_components=buffer
grep -q "^note: .*no-such-winners.json not found: default winners" "$tmp/missing.txt" ||
  fail "missing: absent winners.json not reported"
grep -Eq "^buffer +echo-16k +default +linear -> ring +n/a" "$tmp/missing.txt" ||
  fail "missing: no buffer 16 KiB row with the defaults"

# 4. The JSON of the three runs.
# bench/ on the path for the package pick, as //build:python3.sh puts it.
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 -P -m validation.run_test --smoke "$tmp"
