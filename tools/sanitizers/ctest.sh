#!/usr/bin/env bash
# `ctest --preset sanitize`, with one allowance: LeakSanitizer's own stop-the-world tracer
# sometimes dies at a test's exit ("Tracer caught signal 11", then "LeakSanitizer has encountered
# a fatal error") after every check of the test has passed, a known intermittent fault of LSan
# (google/sanitizers#1353, #1170), not a leak. Seen once in `selection`, whose only threads at
# exit are PoCL's idle workers. When the failed run's output shows that signature, the failed
# tests run once more and their result stands; any other failure fails at once.
# Usage: tools/sanitizers/ctest.sh [extra ctest arguments]   (from the source tree's root)
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ctest --preset sanitize --output-log "$log" "$@" && exit 0
status=$?
if grep -q "Tracer caught signal" "$log"; then
  echo
  echo "LeakSanitizer's tracer crashed at a test's exit (not a leak report): the failed tests again"
  ctest --preset sanitize --rerun-failed "$@"
  exit $?
fi
exit $status
