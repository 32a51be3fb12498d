# -*- Python -*-
import glob
import os
import shutil

import lit.formats

config.name = "remat"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt", "unit", "corpus"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.remat_obj_root, "test")

bin_dir = os.path.join(config.remat_obj_root, "bin")
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONPATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
if config.remat_sanitize in ("ON", "1", "TRUE", "True"):
    config.available_features.add("sanitize")
    # LeakSanitizer included: the tools free everything they create.
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"

config.substitutions.append(("%remat_src", config.remat_src_root))
config.substitutions.append(("%examples", os.path.join(config.remat_src_root, "examples")))
config.substitutions.append(("%shared", config.shared_dir))
config.substitutions.append(("%bin", bin_dir))
# The mlir-opt pass plugin (passes/, docs/plugin.md).
config.substitutions.append(("%plugin", os.path.join(config.remat_obj_root, "lib", "libRematPlugin.so")))
config.substitutions.append(("%python", shutil.which("python3") or "python3"))

# The fuzz build (REMAT_FUZZ, docs/fuzzing.md) holds only the library and the
# libFuzzer target, so lit runs test/fuzz alone there; the other builds carry
# the replay driver, which runs the seed corpus and saved findings.
if getattr(config, "remat_fuzz", "OFF") in ("ON", "1", "TRUE", "True"):
    config.available_features.add("fuzz")
    config.excludes += [d for d in os.listdir(config.test_source_root)
                        if d != "fuzz" and os.path.isdir(os.path.join(config.test_source_root, d))]
elif os.path.exists(os.path.join(bin_dir, "remat-fuzz-replay")):
    config.available_features.add("fuzz-replay")

# The CUDA toolkit's ptxas (and the stub libcuda next to it) for the GPU
# lowering tests that need no device.
if os.path.exists("/usr/local/cuda/bin/ptxas") and os.path.exists("/usr/local/cuda/lib64/stubs/libcuda.so"):
    config.available_features.add("ptxas")

# GPU tests need a device: nvidia-smi answering means the driver sees one.
if shutil.which("nvidia-smi") and os.system("nvidia-smi -L >/dev/null 2>&1") == 0:
    config.available_features.add("cuda")

# bench/.venv (bench/requirements.txt) when it exists: the bench scripts' tests
# run there. `ortools` = OR-Tools' CP-SAT imports (bench/optimum.py solves).
_bench_py = os.path.join(config.remat_src_root, "bench", ".venv", "bin", "python")
_bench_py = _bench_py if os.path.exists(_bench_py) else (shutil.which("python3") or "python3")
config.substitutions.append(("%bench_python", _bench_py))
if os.system("'%s' -c 'import ortools.sat.python.cp_model' >/dev/null 2>&1" % _bench_py) == 0:
    config.available_features.add("ortools")

# The exporters' venv (scripts/setup-python.sh: ~/.cache/remat/venv-<hash of
# python/requirements.txt>) when it exists and is complete: `torch` = the
# PyTorch/torch-mlir tests (test/models/zoo-*.test: export through
# python/remat, run, compare with PyTorch eager). %torch_python runs python/remat.
import hashlib

with open(os.path.join(config.remat_src_root, "python", "requirements.txt"), "rb") as _f:
    _venv = os.path.join(os.environ.get("REMAT_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "remat")),
                         "venv-" + hashlib.sha256(_f.read()).hexdigest()[:12])
_torch_py = os.path.join(_venv, "bin", "python")
config.substitutions.append(("%torch_python", _torch_py))
config.substitutions.append(("%iree_compile", os.path.join(_venv, "bin", "iree-compile")))
if os.path.exists(os.path.join(_venv, ".requirements.txt")) and os.path.exists(_torch_py):
    config.available_features.add("torch")

# CP-SAT's library for remat-opt --exact-windows-solver=cp-sat (lib/CpSat.c looks
# in the same place: the OR-Tools wheel of bench/.venv): `cpsat`.
if glob.glob(os.path.join(config.remat_src_root, "bench", ".venv", "lib", "python3*", "site-packages", "ortools",
                          ".libs", "libortools.so.9")):
    config.available_features.add("cpsat")
