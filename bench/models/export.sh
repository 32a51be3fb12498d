#!/usr/bin/env bash
# Regenerates every committed real-model training step under bench/models/ir/
# (issue 4): the torch-mlir exports of remat_models.py (export.py) and the
# JAX -> StableHLO -> IREE input exports (export_jax.py), each at the "ci" and
# "bench" sizes, checked with MLIR 22 and remat-opt --estimate, plus
# ir/manifest.json (sizes, op counts, estimates, leftovers, versions).
#
#   bench/models/export.sh [export.py options...]
#
# Runs in the exporters' venv of scripts/setup-python.sh (created on first use
# from python/requirements.txt, pinned; the PyTorch wheel from PyPI pulls the
# CUDA libraries, several GB) with the package python/remat on PYTHONPATH. Needs
# remat-opt built (scripts/setup.sh [BUILD_DIR]); REMAT_OPT=path overrides.
# Takes about 5 minutes on 2 cores. Nothing is downloaded but the wheels.
# The zoo (bench/models/zoo/) has its own script: bench/models/zoo/export.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=$("$root/scripts/setup-python.sh" --python)
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
remat_opt=${REMAT_OPT:-}
if [ -z "$remat_opt" ]; then
  for b in build-models build; do
    if [ -x "$root/$b/bin/remat-opt" ]; then remat_opt=$root/$b/bin/remat-opt; break; fi
  done
fi
[ -n "$remat_opt" ] || { echo "export.sh: build remat-opt first (scripts/setup.sh)" >&2; exit 1; }
export PYTHONWARNINGS=ignore
"$py" "$here/export.py" --remat-opt "$remat_opt" "$@"
# torch-mlir's output before export.py splits shared tensor.empty destinations:
# the reproducer of test/models/shared-empty.test.
"$py" "$here/export.py" --remat-opt "$remat_opt" --models gpt2 --sizes ci --raw
# ResNet-18 with torch-mlir's shared zero fills (One-Shot Bufferize copies them):
# the input of test/models/copies.test and planned-above-after.test.
"$py" "$here/export.py" --remat-opt "$remat_opt" --models resnet18 --sizes ci --shared-fills
"$py" "$here/export_jax.py" --remat-opt "$remat_opt"
