#!/usr/bin/env bash
# The main job on a bundled example: install/build if needed, print remat's
# memory report for a training step, then run the step on the CPU and print
# the measured peak next to the estimate.
#   scripts/run-example.sh [examples/FILE.mlir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
example=${1:-$root/examples/resnet.mlir}
"$root/scripts/setup.sh" "$root/build"
bin=$root/build/bin
echo
echo "== remat-opt --estimate $example"
"$bin/remat-opt" --estimate "$example"
echo
echo "== remat-run --target=cpu $example (measured)"
"$bin/remat-run" --target=cpu "$example"
