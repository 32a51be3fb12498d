#!/usr/bin/env bash
# The main job on a bundled example: install/build if needed, print remat's
# memory report for a training step, rematerialize it under a budget (50% of
# its peak by default), and run both steps on the CPU: measured peaks next to
# the estimates, and the outputs compared bit for bit.
#   scripts/run-example.sh [examples/FILE.mlir [BUDGET]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
example=${1:-$root/examples/resnet.mlir}
budget=${2:-50%}
"$root/scripts/setup.sh" "$root/build"
bin=$root/build/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo
echo "== remat-opt --estimate $example"
"$bin/remat-opt" --estimate "$example"
echo
echo "== remat-opt --budget=$budget $example (default planner)"
"$bin/remat-opt" --budget="$budget" --report=text --report-file=/dev/stdout "$example" -o "$out/remat.mlir"
echo
echo "== remat-run: original vs rematerialized (CPU, measured)"
"$bin/remat-run" --json "$example" > "$out/orig.json"
"$bin/remat-run" --json "$out/remat.mlir" > "$out/remat.json"
python3 - "$out/orig.json" "$out/remat.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
same = [o["checksum"] for o in a["outputs"]] == [o["checksum"] for o in b["outputs"]]
print(f"original:        peak {a['peak_bytes']:>10,} bytes, step {a['step_time_s'] * 1e3:.2f} ms")
print(f"rematerialized:  peak {b['peak_bytes']:>10,} bytes, step {b['step_time_s'] * 1e3:.2f} ms "
      f"({100.0 * b['peak_bytes'] / a['peak_bytes']:.1f}% of the original)")
print(f"outputs ({len(a['outputs'])}): {'bit-identical' if same else 'DIFFERENT'}")
sys.exit(0 if same else 1)
PY
