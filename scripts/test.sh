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
status=0
echo "== tests (normal build)"
"$lit" -sv "$root/build/test" || status=1
echo "== tests (ASan + UBSan build)"
"$lit" -sv "$root/build-asan/test" || status=1
exit $status
