"""Finding and calling remat's C tools (remat-opt, remat-run) from Python."""
import json
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_tool(name, explicit=None):
    """Path of remat-opt / remat-run: `explicit`, $REMAT_OPT / $REMAT_RUN, the
    checkout's build-models/bin or build/bin, else PATH. None if not found."""
    if explicit:
        return explicit
    env = os.environ.get(name.upper().replace("-", "_"))
    if env:
        return env
    for b in ("build-models", "build"):
        cand = os.path.join(ROOT, b, "bin", name)
        if os.path.exists(cand):
            return cand
    return shutil.which(name)


def estimate(remat_opt, text, name="step.mlir"):
    """remat-opt --estimate's JSON report of the first function of `text`, written
    as `name` (the locations in the report name that file)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([remat_opt, "--estimate", "--report=json", path], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"remat-opt --estimate exited {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)["functions"][0]
