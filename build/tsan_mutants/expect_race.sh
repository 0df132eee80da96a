#!/usr/bin/env bash
# Runs a TSan mutant (a binary with a deliberate data race) and passes only if
# ThreadSanitizer reports that race: an expected failure. A suppression that
# hides the race makes this test fail, so the suppressions cannot widen
# silently.
#
# Usage: expect_race.sh BINARY SOURCE THIRD_PARTY_FRAME_REGEX BUILD_KIND
#   SOURCE: the mutant's source file; the report's summary must name it, so a
#     race elsewhere (a false positive in the library) cannot stand in for it.
#   THIRD_PARTY_FRAME_REGEX: a frame the report must also show, proving the
#     race was reached through the third-party code whose suppressions are
#     under test.
#   BUILD_KIND: "tsan" when Bazel built with -fsanitize=thread (a
#     config_setting), anything else otherwise.
set -uo pipefail

if [ "$#" -ne 4 ]; then
  echo "usage: $0 BINARY SOURCE THIRD_PARTY_FRAME_REGEX BUILD_KIND" >&2
  exit 2
fi
binary=$1
source=$2
frame_regex=$3
build_kind=$4

probe=$("$binary" --probe)
if [ "$probe" != "tsan" ]; then
  if [ "$build_kind" = "tsan" ]; then
    echo "FAIL: built with -fsanitize=thread but $binary says '$probe'"
    exit 1
  fi
  echo "NOT APPLICABLE: $binary is not a ThreadSanitizer build; nothing" \
    "checked (run with --config=tsan)"
  exit 0
fi

# Every report, not just the first: an unsuppressed report elsewhere must not
# end the run before the mutant's own race is reached.
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}halt_on_error=0:exitcode=66"
output=$("$binary" 2>&1)
status=$?
printf '%s\n' "$output"
echo "---- $binary exited with status $status"

if [ "$status" -eq 0 ]; then
  echo "FAIL: the mutant exited 0: TSan reported nothing, so a suppression" \
    "hid its race"
  exit 1
fi
if ! grep -q "WARNING: ThreadSanitizer: data race" <<<"$output"; then
  echo "FAIL: the mutant failed (status $status) without a TSan data race report"
  exit 1
fi
# One report runs from its WARNING line to its SUMMARY line.
if ! awk -v src="$source" -v frame="$frame_regex" '
  /WARNING: ThreadSanitizer: data race/ { in_report = 1; seen_frame = 0 }
  in_report && $0 ~ frame { seen_frame = 1 }
  in_report && /^SUMMARY: ThreadSanitizer: data race/ {
    if (index($0, src) > 0 && seen_frame) found = 1
    in_report = 0
  }
  END { exit found ? 0 : 1 }
' <<<"$output"; then
  echo "FAIL: TSan reported races, but none in $source with a frame" \
    "matching '$frame_regex' (the mutant's own race was hidden)"
  exit 1
fi
echo "PASS: TSan reported the mutant's race in $source"
