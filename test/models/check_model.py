"""Round trip of one exported real-model training step (bench/models/, issue 4
item 4): needs no torch and no PyPI, only the committed IR.

  check_model.py [--budget 50%] [--static | --static-unless-full] [--planner P] [--fuse-elementwise]
                 [--allow-unregistered-dialect] FILE.mlir[.xz|.gz] WORKDIR

1. Decompresses FILE (lzma or gzip by suffix) into WORKDIR, checks that
   MLIR 22's mlir-opt parses it (--allow-unregistered-dialect: in generic form,
   ops of dialects it lacks, e.g. torch-mlir's tm_tensor in the zoo steps).
2. remat-opt --estimate: exit 0, no unsupported op.
3. remat-opt --budget (default 50%, default planner): exit 0, budget met, at
   least one decision, peak_bytes_planned == peak_bytes_after <= budget.
4. Unless --static: remat-run of the original and of the rewritten step (same
   seeded inputs): every output checksum identical (bit-identical results), the
   original's measured peak equal to the estimate, the rewritten step's
   measured peak equal to peak_bytes_after and within the budget.
   --static-unless-full: --static unless REMAT_MODEL_TESTS=full is set
   (lit.local.cfg passes it through).

The last line says "round trip checked on the CPU" or "round trip checked
from the report (no CPU run)".

Prints one line per step (FileCheck-able) and exits 1 on any failure.
"""
import argparse
import gzip
import json
import lzma
import os
import subprocess
import sys
import time


def run(cmd):
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("workdir")
    ap.add_argument("--budget", default="50%")
    ap.add_argument("--planner", default="default")
    ap.add_argument("--fuse-elementwise", action="store_true",
                    help="plan with remat-opt --fuse-elementwise (the report must say what fusion did)")
    ap.add_argument("--static", action="store_true", help="check the report alone; no CPU run")
    ap.add_argument("--static-unless-full", action="store_true",
                    help="--static unless the environment has REMAT_MODEL_TESTS=full (lit.local.cfg)")
    ap.add_argument("--allow-unregistered-dialect", action="store_true",
                    help="parse check with mlir-opt -allow-unregistered-dialect (tm_tensor ops of the zoo steps)")
    a = ap.parse_args()
    if a.static_unless_full and os.environ.get("REMAT_MODEL_TESTS", "") != "full":
        a.static = True
    os.makedirs(a.workdir, exist_ok=True)
    base = os.path.basename(a.file)
    opener = lzma.open if base.endswith(".xz") else gzip.open if base.endswith(".gz") else open
    name = base[:-3] if base.endswith((".xz", ".gz")) else base
    path = os.path.join(a.workdir, name)
    with opener(a.file, "rb") as src, open(path, "wb") as dst:
        dst.write(src.read())
    failures = []

    def fail(msg):
        failures.append(msg)
        print(f"FAIL {name}: {msg}")

    rc, _, err, _ = run(["mlir-opt"] + (["-allow-unregistered-dialect"] if a.allow_unregistered_dialect else []) +
                        [path, "-o", os.devnull])
    print(f"{'ok  ' if rc == 0 else 'FAIL'} {name}: mlir-opt (MLIR 22) parse" + ("" if rc == 0 else f": {err.strip()}"))
    if rc:
        failures.append("parse")

    rc, out, err, _ = run(["remat-opt", "--estimate", "--report=json", path])
    if rc != 0:
        fail(f"remat-opt --estimate exited {rc}: {err.strip()}")
        return 1
    fn = json.loads(out)["functions"][0]
    peak, lb = fn["peak_bytes_before"], fn["lower_bound_bytes"]
    print(f"ok   {name}: estimate: {fn['num_ops']} ops, peak {peak}, lower bound {lb} ({100.0 * lb / peak:.1f}%), "
          f"{len(fn['unsupported_ops'])} unsupported ops")
    if fn["unsupported_ops"]:
        fail("unsupported ops: " + ", ".join(sorted(set(u["op"] for u in fn["unsupported_ops"]))))

    out_ir, rep = os.path.join(a.workdir, "remat.mlir"), os.path.join(a.workdir, "remat.json")
    rc, _, err, _ = run(["remat-opt", f"--planner={a.planner}", f"--budget={a.budget}", "--report=json",
                         f"--report-file={rep}", path, "-o", out_ir] + (["--fuse-elementwise"] if a.fuse_elementwise else []))
    if rc != 0:
        fail(f"remat-opt --budget={a.budget} exited {rc}: {err.strip()}")
        return 1
    r = json.load(open(rep))["functions"][0]
    budget, after, planned = r["budget_bytes"], r["peak_bytes_after"], r.get("peak_bytes_planned")
    share = 100.0 * r["recompute_flops"] / r["baseline_flops"] if r["baseline_flops"] else 0.0
    print(f"ok   {name}: remat {a.budget} ({a.planner}): budget {budget}, peak after {after} "
          f"({100.0 * after / peak:.1f}% of {peak}), {len(r['decisions'])} decisions, "
          f"recompute {share:.2f}% of flops, pass {r.get('pass_time_s', 0):.2f} s")
    if a.fuse_elementwise:
        fused = r.get("peak_bytes_fused")
        print(f"{'ok  ' if fused is not None and r.get('fused_ops_removed', 0) > 0 else 'FAIL'} {name}: fused: "
              f"{r.get('fused_ops_removed')} fewer ops, peak {fused} before recomputing, "
              f"recompute {100.0 * r['recompute_flops'] / r['input_flops'] if 'input_flops' in r else -1:.2f}% "
              f"of the input's flops")
        if fused is None or not r.get("fused_ops_removed"):
            failures.append("fusion")
    if not r["budget_met"] or after > budget:
        fail("budget not met")
    if not r["decisions"]:
        fail("no decision under the peak")
    if planned != after:
        fail(f"peak_bytes_planned {planned} != peak_bytes_after {after}")
    if a.static:
        print(f"{'ok  ' if not failures else 'FAIL'} {name}: round trip checked from the report (no CPU run)")
        return 1 if failures else 0

    runs = {}
    for label, p in (("original", path), ("remat", out_ir)):
        rc, out, err, secs = run(["remat-run", "--json", p])
        if rc != 0:
            fail(f"remat-run of the {label} step exited {rc}: {err.strip()}")
            return 1
        runs[label] = json.loads(out)
        runs[label]["wall"] = secs
    o, m = runs["original"], runs["remat"]
    same = [x["checksum"] for x in o["outputs"]] == [x["checksum"] for x in m["outputs"]]
    print(f"{'ok  ' if o['peak_bytes'] == peak else 'FAIL'} {name}: run original: measured peak {o['peak_bytes']} "
          f"(estimate {peak})")
    if o["peak_bytes"] != peak:
        failures.append("estimate")
    ok = same and m["peak_bytes"] == after and m["peak_bytes"] <= budget
    print(f"{'ok  ' if ok else 'FAIL'} {name}: run remat: measured peak {m['peak_bytes']} (planned {after}, "
          f"budget {budget}), {len(m['outputs'])} outputs {'identical' if same else 'DIFFERENT'}")
    print(f"{'ok  ' if not failures else 'FAIL'} {name}: round trip checked on the CPU")
    if not ok:
        failures.append("remat run")
    print(f"{name}: {len(failures)} failures; remat-run wall {o['wall']:.1f} s + {m['wall']:.1f} s",
          file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
