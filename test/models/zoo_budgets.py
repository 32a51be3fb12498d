"""Issue 20, item 3: every committed zoo step (bench/models/zoo/ir, ordinary PyTorch
exported as is) planned at each budget: either the plan is made and, run by remat-run
on the manifest's inputs, gives results bit-identical to the unplanned step with a
measured peak equal to the planned one and within the budget; or remat-opt refuses it
(exit 1) with the lower bound and the op forcing it, and the budget is really under
that bound or the planner says it could not fit. Needs no torch: only the committed IR.

  zoo_budgets.py [--budgets 70%,50%,35%] [--static] WORKDIR FILE.mlir.xz...

--static (the sanitizer build unless REMAT_MODEL_TESTS=full): plans and refusals are
checked from the report alone, without CPU runs. One line per step and budget.
"""
import argparse
import json
import lzma
import os
import re
import shutil
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--budgets", default="70%,50%,35%")
    ap.add_argument("--static", action="store_true")
    a = ap.parse_args()
    if os.environ.get("REMAT_MODEL_TESTS", "") != "full":
        a.static = True
    os.makedirs(a.workdir, exist_ok=True)
    failures = 0

    def say(ok, msg):
        nonlocal failures
        failures += 0 if ok else 1
        print(f"{'ok  ' if ok else 'FAIL'} {msg}", flush=True)

    for xz in a.files:
        name = os.path.basename(xz)[:-len(".mlir.xz")]
        path = os.path.join(a.workdir, name + ".mlir")
        with lzma.open(xz, "rb") as src, open(path, "wb") as dst:
            dst.write(src.read())
        manifest = os.path.join(a.workdir, name + ".manifest.json")
        shutil.copy(xz[:-len(".mlir.xz")] + ".manifest.json", manifest)
        rc, out, err = run(["remat-opt", "--estimate", "--report=json", path])
        if rc:
            say(False, f"{name}: remat-opt --estimate exited {rc}: {err.strip()[:300]}")
            continue
        fn = json.loads(out)["functions"][0]
        peak, lb = fn["peak_bytes_before"], fn["lower_bound_bytes"]
        original = None
        if not a.static:
            rc, out, err = run(["remat-run", "--json", "--manifest=" + manifest, path])
            if rc:
                say(False, f"{name}: remat-run exited {rc}: {err.strip()[:300]}")
                continue
            original = json.loads(out)
            say(original["peak_bytes"] == peak,
                f"{name}: unplanned: measured peak {original['peak_bytes']}, estimate {peak}")
        for budget in a.budgets.split(","):
            out_ir = os.path.join(a.workdir, f"{name}.{budget.rstrip('%')}.mlir")
            rep = out_ir + ".json"
            rc, _, err = run(["remat-opt", "--quiet", f"--budget={budget}", "--report=json", f"--report-file={rep}",
                              path, "-o", out_ir])
            want = int(peak * float(budget.rstrip("%")) / 100.0) if budget.endswith("%") else int(budget)
            if rc != 0:
                under = re.search(r"under the lower bound of (\d+) bytes, forced by op #\d+ (\S+)", err)
                nofit = "could not fit" in err
                if under:
                    # The input's bound, or the lower one of the default planner's
                    # second plan, which rewrites the step (docs/planner.md).
                    bound = int(under.group(1))
                    ok = bound <= lb and want < bound
                    say(ok, f"{name} at {budget}: refused, budget {want} under the lower bound {bound} "
                            f"({100.0 * bound / peak:.1f}%){'' if bound == lb else ' of the rewritten step'} "
                            f"forced by {under.group(2)}")
                else:
                    say(nofit, f"{name} at {budget}: refused ({'planner could not fit' if nofit else 'unexplained'}): "
                               f"{err.strip().splitlines()[-1][:300] if err.strip() else ''}")
                continue
            r = json.load(open(rep))["functions"][0]
            after, budget_bytes = r["peak_bytes_after"], r["budget_bytes"]
            ok = r["budget_met"] and after <= budget_bytes and r.get("peak_bytes_planned") == after
            if a.static:
                say(ok, f"{name} at {budget}: planned {peak} -> {after} (budget {budget_bytes}), "
                        f"{len(r['decisions'])} decisions (report only)")
                continue
            rc, out, err = run(["remat-run", "--json", "--manifest=" + manifest, out_ir])
            if rc:
                say(False, f"{name} at {budget}: remat-run of the plan exited {rc}: {err.strip()[:300]}")
                continue
            m = json.loads(out)
            same = [x["checksum"] for x in original["outputs"]] == [x["checksum"] for x in m["outputs"]]
            say(ok and same and m["peak_bytes"] == after and m["peak_bytes"] <= budget_bytes,
                f"{name} at {budget}: planned {peak} -> {after} (budget {budget_bytes}), measured {m['peak_bytes']}, "
                f"{len(m['outputs'])} outputs {'bit-identical' if same else 'DIFFERENT'}, {len(r['decisions'])} decisions")
    print("PASS" if failures == 0 else f"{failures} FAILURES")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
