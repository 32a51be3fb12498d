"""exit-code.py EXPECTED CMD ARGS...: runs CMD and fails unless it exits with EXPECTED (a signal never passes)."""
import subprocess
import sys

expected = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if proc.returncode != expected:
    sys.exit(f"expected exit code {expected}, got {proc.returncode}: {' '.join(sys.argv[2:])}")
