#!/usr/bin/env bash
# The whole test suite: builds remat three times (a normal build, an
# AddressSanitizer + UndefinedBehaviorSanitizer build, and a clang-22 build of
# the library with the libFuzzer target) and runs every lit test (FileCheck
# tests, C unit tests, execution tests, the corpus) in the first two and a
# short fuzzing session of the planners in the third (docs/fuzzing.md).
#   scripts/test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build"
"$root/scripts/setup.sh" "$root/build-asan" -DREMAT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
"$root/scripts/setup.sh" "$root/build-fuzz" -DREMAT_FUZZ=ON -DCMAKE_C_COMPILER=clang-22 \
  -DCMAKE_CXX_COMPILER=clang++-22
lit=/usr/lib/llvm-22/bin/lit
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for build in build build-asan build-fuzz; do
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
