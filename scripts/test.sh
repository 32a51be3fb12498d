#!/usr/bin/env bash
# The whole test suite: builds remat three times (a normal build, an
# AddressSanitizer + UndefinedBehaviorSanitizer build, and a clang-22 build of
# the library with the libFuzzer target) and runs every lit test (FileCheck
# tests, C unit tests, execution tests, the corpus) in the first two and a
# short fuzzing session of the planners in the third (docs/fuzzing.md).
# The PyTorch/JAX and solver tests need their venvs (created below when missing).
#   scripts/test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build"
# -O1 (asserts kept): the optimisation level AddressSanitizer's documentation asks for;
# the planner-heavy tests ran 2.2x longer at -O0 and pushed CI past its 40 minutes.
"$root/scripts/setup.sh" "$root/build-asan" -DREMAT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_C_FLAGS_DEBUG=-g -O1" "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1"
"$root/scripts/setup.sh" "$root/build-fuzz" -DREMAT_FUZZ=ON -DCMAKE_C_COMPILER=clang-22 \
  -DCMAKE_CXX_COMPILER=clang++-22
# The Python environments some tests run in, created when missing: the exporters'
# venv (torch, torch-mlir, JAX, IREE in ~/.cache/remat, several GB the first time)
# for test/models/zoo-*.test and export-cli.test (lit feature `torch`), and
# bench/.venv (HiGHS, OR-Tools; bench/requirements.txt) for test/bench (`ortools`).
# REMAT_NO_PYTHON_VENVS=1 skips both: those tests then report as unsupported.
if [ "${REMAT_NO_PYTHON_VENVS:-}" != 1 ]; then
  "$root/scripts/setup-python.sh" >/dev/null
  bench_venv=$root/bench/.venv
  if ! cmp -s "$root/bench/requirements.txt" "$bench_venv/.requirements.txt"; then
    echo "== creating $bench_venv (pip install -r bench/requirements.txt)"
    python3 -m venv "$bench_venv"
    "$bench_venv/bin/pip" install -q --upgrade pip
    "$bench_venv/bin/pip" install -q -r "$root/bench/requirements.txt"
    cp "$root/bench/requirements.txt" "$bench_venv/.requirements.txt"
  fi
fi
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
