#!/usr/bin/env bash
# The whole test suite: builds remat twice (a normal build and an
# AddressSanitizer + UndefinedBehaviorSanitizer build) and runs every lit test
# (FileCheck tests, C unit tests, execution tests, the corpus) in both.
#   scripts/test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build"
"$root/scripts/setup.sh" "$root/build-asan" -DREMAT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
lit=/usr/lib/llvm-22/bin/lit
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for build in build build-asan; do
  echo "== tests ($build)"
  "$lit" -sv "$root/$build/test" 2>&1 | tee -a "$log" || status=1
done
count() { { grep -E "^ *$1 *:" "$log" || true; } | awk -F: '{s += $2} END {print s + 0}'; }
passed=$(count Passed)
failed=$(( $(count Failed) + $(count Unresolved) + $(count 'Timed Out') + $(count 'Unexpectedly Passed') ))
skipped=$(( $(count Unsupported) + $(count 'Expectedly Failed') ))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || status=1
exit $status
