#!/usr/bin/env bash
# Installs what remat needs from Debian (LLVM/MLIR 22, lit, FileCheck, lld,
# ninja, cmake, CLP; clang-22 and libFuzzer for the fuzz build), then configures and
# builds it. Idempotent: packages already present are not reinstalled, and the
# build is incremental.
#   scripts/setup.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true

packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools lld-14 ninja-build cmake python3 clang-22
          libfuzzer-22-dev clang-format coinor-libclp-dev coinor-libcbc-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Configured every time (a second when nothing changed), so that a build
# directory made before a change of these arguments takes it.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
