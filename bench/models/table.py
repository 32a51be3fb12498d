"""The numbers of docs/models.md: for every committed step (bench/models/ir), the
estimate, and remat-opt at a budget (default 50%); with --run, the CPU
measurements of the ci-size steps (remat-run of the original and of the
rewritten step). Needs no torch: only the committed IR and a build.

  python3 bench/models/table.py [--build DIR] [--budget 50%] [--run] [--sizes ci,bench]
      [--json OUT.json] > table.md
"""
import argparse
import json
import lzma
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def mb(b):
    return f"{b / 1e6:.2f}" if b >= 1e5 else f"{b / 1e6:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build-models"))
    ap.add_argument("--budget", default="50%")
    ap.add_argument("--run", action="store_true", help="run the ci-size steps with remat-run")
    ap.add_argument("--sizes", default="ci,bench")
    ap.add_argument("--json", default=None)
    ap.add_argument("--runner", default=None, help="remat-run to use (default: the build's)")
    a = ap.parse_args()
    opt, runner = os.path.join(a.build, "bin", "remat-opt"), a.runner or os.path.join(a.build, "bin", "remat-run")
    man = json.load(open(os.path.join(HERE, "ir", "manifest.json")))
    rows = []
    sizes = a.sizes.split(",")
    keys = sorted(man["models"], key=lambda k: (sizes.index(k.rsplit(".", 1)[1]) if k.rsplit(".", 1)[1] in sizes
                                                 else 9, k.startswith("jax-"), k))
    with tempfile.TemporaryDirectory() as tmp:
        for key in keys:
            e = man["models"][key]
            if e["size"] not in sizes:
                continue
            path = os.path.join(tmp, key + ".mlir")
            with lzma.open(os.path.join(HERE, "ir", key + ".mlir.xz")) as f:
                open(path, "wb").write(f.read())
            out, rep = path + ".remat.mlir", path + ".json"
            print(f"== {key}", file=sys.stderr, flush=True)
            p = subprocess.run([opt, f"--budget={a.budget}", "--report=json", f"--report-file={rep}", path, "-o", out],
                               capture_output=True, text=True)
            row = dict(key=key, ops=e["num_ops"], peak=e["peak_bytes"], lb=e["lower_bound_bytes"],
                       args=e["argument_bytes"], flops=e["baseline_flops"])
            if p.returncode == 0:
                r = json.load(open(rep))["functions"][0]
                row.update(after=r["peak_bytes_after"], budget=r["budget_bytes"], decisions=len(r["decisions"]),
                           share=r["recompute_flops"] / r["baseline_flops"],
                           tshare=r["recompute_time_s"] / r["baseline_time_s"], pass_s=r["pass_time_s"])
            else:
                row.update(error=p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}")
            if a.run and e["size"] == "ci" and p.returncode == 0:
                for label, f in (("orig", path), ("remat", out)):
                    t = time.monotonic()
                    q = subprocess.run([runner, "--json", f], capture_output=True, text=True)
                    row[f"{label}_wall"] = time.monotonic() - t
                    if q.returncode:
                        row[f"{label}_error"] = q.stderr.strip()
                        continue
                    j = json.loads(q.stdout)
                    row[f"{label}_measured"] = j["peak_bytes"]
                    row[f"{label}_time"] = j["step_time_s"]
                    row[f"{label}_sums"] = [o["checksum"] for o in j["outputs"]]
                row["identical"] = row.get("orig_sums") is not None and row.get("orig_sums") == row.get("remat_sums")
            rows.append(row)
            print(f"   {row}", file=sys.stderr, flush=True)
    print(f"| step | ops | peak est. (MB) | measured (MB) | lower bound | remat {a.budget}: peak after (MB) "
          f"| measured after (MB) | outputs | decisions | recompute (flops) | recompute (roofline time) | pass (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        meas = mb(r["orig_measured"]) if "orig_measured" in r else "-"
        if "error" in r:
            print(f"| {r['key']} | {r['ops']} | {mb(r['peak'])} | {meas} | {100 * r['lb'] / r['peak']:.1f}% | "
                  f"not met: {r['error'][:120]} | | | | | | |")
            continue
        mafter = mb(r["remat_measured"]) if "remat_measured" in r else "-"
        ident = ("identical" if r["identical"] else "DIFFERENT") if "identical" in r else "-"
        print(f"| {r['key']} | {r['ops']} | {mb(r['peak'])} | {meas} | {100 * r['lb'] / r['peak']:.1f}% | "
              f"{mb(r['after'])} ({100 * r['after'] / r['peak']:.1f}%) | {mafter} | {ident} | {r['decisions']} | "
              f"{100 * r['share']:.1f}% | {100 * r['tshare']:.1f}% | {r['pass_s']:.2f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
