#!/usr/bin/env bash
# Creates the Python environment of remat's exporters (python/remat: remat-export,
# remat.torch, remat.jax; docs/models.md) when it is missing, and prints its path.
#
#   scripts/setup-python.sh            # prints the venv's directory on stdout
#   scripts/setup-python.sh --python   # prints its python executable instead
#
# The venv is ~/.cache/remat/venv-<first 12 hex digits of sha256(python/requirements.txt)>
# (REMAT_CACHE overrides ~/.cache/remat): every checkout with the same pinned
# requirements shares one (the PyTorch wheel pulls the CUDA libraries, several GB).
# The venv gets only the pinned requirements; the package itself is used from the
# checkout, never installed into the shared venv: run it through bin/remat-export
# (which finds this venv) or with PYTHONPATH=<repo>/python.
# A venv is complete when it holds .requirements.txt (written last). Without
# it, `pip install -r` runs again (it installs only what is missing: an interrupted
# install is completed, an existing venv whose packages all import is not touched).
# pip runs as `python -m pip`: in a venv copied to a new hash's directory (to add a
# pin without downloading torch again) bin/pip still names the old venv's python.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
req=$root/python/requirements.txt
want=venv
case "${1:-}" in
  --python) want=python ;;
  "") ;;
  *) echo "usage: scripts/setup-python.sh [--python]" >&2; exit 2 ;;
esac
hash=$(sha256sum "$req" | cut -c1-12)
cache=${REMAT_CACHE:-$HOME/.cache/remat}
venv=$cache/venv-$hash
probe="import torch, torch_mlir, numpy, jax, iree.compiler"
if [ ! -f "$venv/.requirements.txt" ] && [ -x "$venv/bin/python" ] &&
   "$venv/bin/python" -c "$probe" >/dev/null 2>&1 &&
   "$venv/bin/python" -m pip install -q --dry-run --no-index -r "$req" >/dev/null 2>&1; then
  cp "$req" "$venv/.requirements.txt"   # installed by other means (an earlier run without the marker)
fi
if [ ! -f "$venv/.requirements.txt" ]; then
  mkdir -p "$cache"
  echo "== creating $venv (python3 -m venv; pip install -r python/requirements.txt: several GB)" >&2
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip >&2
  "$venv/bin/python" -m pip install -q -r "$req" >&2
  cp "$req" "$venv/.requirements.txt"
fi
if [ "$want" = python ]; then echo "$venv/bin/python"; else echo "$venv"; fi
