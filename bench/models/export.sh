#!/usr/bin/env bash
# Regenerates every committed real-model training step under bench/models/ir/
# (issue 4): the torch-mlir exports of remat_models.py (export.py) and the
# JAX -> StableHLO -> IREE input exports (export_jax.py), each at the "ci" and
# "bench" sizes, checked with MLIR 22 and remat-opt --estimate, plus
# ir/manifest.json (sizes, op counts, estimates, leftovers, versions).
#
#   bench/models/export.sh [export.py options...]
#
# The first run creates bench/models/.venv and installs requirements.txt (pinned;
# the PyTorch wheel from PyPI pulls the CUDA libraries, several GB). Needs
# remat-opt built (scripts/setup.sh [BUILD_DIR]); REMAT_OPT=path overrides.
# Takes about 5 minutes on 2 cores. Nothing is downloaded but the wheels.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=$here/.venv
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$here/requirements.txt" "$venv/.requirements.txt"; then
  echo "== creating $venv (pip install -r requirements.txt)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$venv/.requirements.txt"
fi
remat_opt=${REMAT_OPT:-}
if [ -z "$remat_opt" ]; then
  for b in build-models build; do
    if [ -x "$root/$b/bin/remat-opt" ]; then remat_opt=$root/$b/bin/remat-opt; break; fi
  done
fi
[ -n "$remat_opt" ] || { echo "export.sh: build remat-opt first (scripts/setup.sh)" >&2; exit 1; }
export PYTHONWARNINGS=ignore
"$venv/bin/python" "$here/export.py" --remat-opt "$remat_opt" "$@"
# torch-mlir's output before export.py splits shared tensor.empty destinations:
# the reproducer of test/models/shared-empty.test.
"$venv/bin/python" "$here/export.py" --remat-opt "$remat_opt" --models gpt2 --sizes ci --raw
# ResNet-18 with torch-mlir's shared zero fills (One-Shot Bufferize copies them):
# the input of test/models/copies.test and planned-above-after.test.
"$venv/bin/python" "$here/export.py" --remat-opt "$remat_opt" --models resnet18 --sizes ci --shared-fills
"$venv/bin/python" "$here/export_jax.py" --remat-opt "$remat_opt"
