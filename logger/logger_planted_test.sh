#!/usr/bin/env bash
# The typed suite (logger_test.cc) run against the two planted-bug loggers of
# logger/fuzz/planted_bug_logger.h: passes only when the suite fails each of
# them through its assertions, and names the tests that caught each.
#
#   logger_planted_test.sh <logger_test built with SERVERKIT_LOGGER_TEST_PLANTED>
set -uo pipefail
out=$("$1" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "FAIL: the suite passed both planted bugs"
  exit 1
fi
status=0
for impl in planted-long-line-cut planted-level-dropped; do
  caught=$(grep -E "^\[  FAILED  \] LoggerTest/${impl}\." <<<"$out" |
    sed -E 's/^\[  FAILED  \] //; s/[ ,].*//' | sort -u)
  if [ -z "$caught" ]; then
    echo "FAIL: $impl: no test of the suite failed"
    status=1
  else
    echo "$impl: caught by $(tr '\n' ' ' <<<"$caught")"
  fi
done
# The long-line test is the one written for both bugs: it must catch each.
for impl in planted-long-line-cut planted-level-dropped; do
  if ! grep -qE "^\[  FAILED  \] LoggerTest/${impl}\.LongLinesAtEveryLevel" <<<"$out"; then
    echo "FAIL: $impl: LongLinesAtEveryLevelWholeOnceAndInOrder did not catch it"
    status=1
  fi
done
exit "$status"
