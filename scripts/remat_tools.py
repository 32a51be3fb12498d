"""Helpers shared by the check scripts: finding remat's tools and running them."""
import os
import shutil
import subprocess
import sys


def find_tool(name, prog, extra=()):
    """`name` on PATH, else in this checkout's build/bin, else the first of `extra` that exists."""
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (shutil.which(name), os.path.join(here, "..", "build", "bin", name), *extra):
        if cand and os.path.exists(cand):
            return cand
    sys.exit(f"{prog}: cannot find {name} (build first, or put it on PATH)")


def run_tool(cmd, prog):
    """stdout of cmd; exits 2 with its stderr when it fails (a tool error, not a check failure)."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(f"{prog}: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-4000:]}")
        sys.exit(2)
    return proc.stdout
