#!/usr/bin/env bash
# The whole test suite under AddressSanitizer, then separately under ThreadSanitizer.
#
#   scripts/sanitize.sh [address|thread]...   (default: both, address first)
#
# Each sanitizer builds in its own folder (.build-asan, .build-tsan) so the normal build
# stays as it is; tests that run the `roshambo` executables use the normal build, which
# this script makes first. A report fails the run and is printed; the full log is in
# .build-SAN/sanitize.log. ThreadSanitizer's known false positives in the Swift runtime
# are listed, with their upstream issues, in scripts/tsan-suppressions.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build
status=0
for sanitizer in "${@:-address thread}"; do
  for name in $sanitizer; do
    case "$name" in
      address) folder=.build-asan ;;
      thread) folder=.build-tsan ;;
      *) echo "sanitize.sh: no sanitizer '$name' (address or thread)" >&2; exit 64 ;;
    esac
    mkdir -p "$folder"
    log="$folder/sanitize.log"
    echo "sanitize: swift test --sanitize=$name"
    # halt_on_error: the first report ends the run, so it is the one printed.
    if SWIFT_BACKTRACE=enable=no \
      ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan-suppressions.txt" \
      swift test --sanitize="$name" --build-path "$folder" >"$log" 2>&1; then
      echo "sanitize $name: clean ($(grep -o 'Test run with [0-9]* tests' "$log" | tail -n 1))"
    else
      status=1
      grep -n -A30 -E 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer' "$log" | head -n 60 >&2 || true
      grep -E '✘|error:' "$log" | head -n 20 >&2 || true
      echo "sanitize $name: FAILED; full log in $log" >&2
    fi
  done
done
exit $status
