"""remat-opt --fuse-elementwise against the same planner without it, same run, same steps.

  bench/.venv/bin/python bench/fusion.py [--build build-bench] [--budgets 70,50,35]
                                        [--models mlp,gpt2,...] [--no-run]

For every exported step of bench/models/ir (ci size, plus the bench-size GPT-2 step of
issue 4's second target) and every budget (percent of the input's peak), the default
planner (h200 profile) plans twice:

* baseline: `remat-opt --budget=N%`
* fused:    `remat-opt --budget=N% --fuse-elementwise` (docs/planner.md, "Elementwise
  fusion": plans the fused step and the input, keeps the faster plan that fits)

and the table gives, for each: the peak after, the recomputed flops as a share of the
*input's* flops, the roofline step time of the result (h200) and the pass time, and the
ratios fused / baseline. Unless --no-run, both rewritten ci steps and the original run
on the CPU (remat-run): measured peaks (must equal the estimates) and output checksums
(must be identical). Writes bench/results/fusion.md and fusion.json.
"""
import argparse
import json
import lzma
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
IR = os.path.join(HERE, "models", "ir")
T0 = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def decompress(name, work):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        with lzma.open(os.path.join(IR, name + ".xz")) as src, open(path, "wb") as dst:
            dst.write(src.read())
    return path


def plan(opt, path, budget, fuse, tag, work):
    out, rep = os.path.join(work, tag + ".mlir"), os.path.join(work, tag + ".json")
    cmd = [opt, f"--budget={budget}%", "--report=json", f"--report-file={rep}", path, "-o", out]
    if fuse:
        cmd.append("--fuse-elementwise")
    t = time.monotonic()
    p = sh(cmd)
    wall = time.monotonic() - t
    if p.returncode:
        lines = p.stderr.strip().splitlines()
        return dict(error=lines[-1] if lines else f"exit {p.returncode}", wall_s=wall)
    f = json.load(open(rep))["functions"][0]
    input_flops = f.get("input_flops", f["baseline_flops"])
    return dict(out=out, met=f["budget_met"], peak_after=f["peak_bytes_after"], budget=f["budget_bytes"],
                flops_share=f["recompute_flops"] / input_flops,
                step_time_s=f["baseline_time_s"] + f["recompute_time_s"], pass_s=f["pass_time_s"],
                fusion_kept=f.get("fusion_kept"), peak_fused=f.get("peak_bytes_fused"), wall_s=wall)


def run(runner, path, manifest=None):
    """remat-run of `path`: measured peak and output checksums. `manifest`: the step's (its
    integer ranges; without it, the manifest beside `path`, else remat-run's defaults)."""
    p = sh([runner, "--json", path] + (["--manifest=" + manifest] if manifest else []))
    if p.returncode:
        return dict(error=p.stderr.strip()[-300:])
    j = json.loads(p.stdout)
    return dict(peak=j["peak_bytes"], checksums=[o["checksum"] for o in j["outputs"]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--budgets", default="70,50,35")
    ap.add_argument("--models", default="mlp,gpt2,resnet18,vit,unet,jax-mlp,jax-gpt2,gpt2.bench")
    ap.add_argument("--no-run", action="store_true", help="no CPU runs (report figures only)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "fusion"))
    a = ap.parse_args()
    opt, runner = os.path.join(a.build, "bin", "remat-opt"), os.path.join(a.build, "bin", "remat-run")
    for p in (opt, runner):
        if not os.path.exists(p):
            sys.exit(f"bench/fusion.py: {p} missing; build it (scripts/setup.sh) or pass --build")
    work = os.path.join(HERE, "work", "fusion")
    os.makedirs(work, exist_ok=True)
    budgets = [float(b) for b in a.budgets.split(",")]
    rows = []
    for model in a.models.split(","):
        name = model + ".mlir" if model.endswith(".bench") else model + ".ci.mlir"
        path = decompress(name, work)
        est = json.loads(sh([opt, "--estimate", "--report=json", path]).stdout)["functions"][0]
        # CPU runs of the bench-size step take minutes each: test/models/gpt2-target.test runs them.
        do_run = not a.no_run and not model.endswith(".bench")
        orig = run(runner, path) if do_run else None
        if orig and "error" not in orig and orig["peak"] != est["peak_bytes_before"]:
            log(f"WARNING: {name}: measured peak {orig['peak']} != estimate {est['peak_bytes_before']}")
        for b in budgets:
            row = dict(model=name, budget_pct=b, peak_before=est["peak_bytes_before"])
            for kind, fuse in (("baseline", False), ("fused", True)):
                r = plan(opt, path, b, fuse, f"{model}.{kind}.{b:g}", work)
                if do_run and "error" not in r:
                    m = run(runner, r["out"])
                    if "error" in m:
                        r["run_error"] = m["error"]
                    else:
                        r["measured"] = m["peak"]
                        r["identical"] = m["checksums"] == orig["checksums"]
                row[kind] = r
                log(f"{name} {b:g}% {kind}: " + (r["error"] if "error" in r else
                    f"peak {r['peak_after']} ({'met' if r['met'] else 'NOT MET'}), recompute "
                    f"{100 * r['flops_share']:.2f}% of flops, step {r['step_time_s']:.4g} s, pass {r['pass_s']:.2f} s"
                    + (f", measured {r.get('measured')}, identical {r.get('identical')}" if do_run else "")))
            rows.append(row)
    with open(a.out + ".json", "w") as f:
        json.dump(dict(machine=platform.node(), command=" ".join(sys.argv), rows=rows), f, indent=1)
    L = ["# remat-opt --fuse-elementwise against the default planner alone", "",
         f"Generated by `bench/.venv/bin/python bench/fusion.py {' '.join(sys.argv[1:])}` on this machine "
         f"({platform.processor() or platform.machine()}, {os.cpu_count()} cores); both plans of a row come from "
         "the same run. Budgets are percentages of the input's peak; recompute is a share of the input's "
         "flops; step time is the h200 roofline time of the rewritten step (recompute included); *measured*: "
         "remat-run on the CPU, *identical*: every output checksum equal to the original's. *fused/base*: "
         "ratio of step times (under 1: the fused plan is faster).", "",
         "| step | budget | base peak | base recompute | base step (s) | fused peak | fused recompute | fused "
         "step (s) | fused/base | fused kept | pass base/fused (s) | measured base / fused | identical |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def cell(r, key, fmt):
        return "error" if "error" in r else fmt(r[key])

    for row in rows:
        b, f = row["baseline"], row["fused"]
        peak = lambda r: "error" if "error" in r else f"{r['peak_after']:,}" + ("" if r["met"] else " (not met)")
        ratio = "" if "error" in b or "error" in f else f"{f['step_time_s'] / b['step_time_s']:.3f}"
        meas = (f"{b.get('measured', '-'):,} / {f.get('measured', '-'):,}"
                if "measured" in b and "measured" in f else "-")
        ident = ("yes" if b.get("identical") and f.get("identical") else "NO") if "identical" in b else "-"
        L.append(f"| {row['model']} | {row['budget_pct']:g}% | {peak(b)} | {cell(b, 'flops_share', lambda x: f'{100 * x:.2f}%')} "
                 f"| {cell(b, 'step_time_s', lambda x: f'{x:.4g}')} | {peak(f)} "
                 f"| {cell(f, 'flops_share', lambda x: f'{100 * x:.2f}%')} | {cell(f, 'step_time_s', lambda x: f'{x:.4g}')} "
                 f"| {ratio} | {'' if 'error' in f else f.get('fusion_kept')} "
                 f"| {cell(b, 'pass_s', lambda x: f'{x:.2f}')} / {cell(f, 'pass_s', lambda x: f'{x:.2f}')} | {meas} | {ident} |")
    L.append("")
    L.append("An *error* is remat-opt's refusal (budget under the lower bound of that step) or a plan that "
             "does not fit.")
    with open(a.out + ".md", "w") as fh:
        fh.write("\n".join(L) + "\n")
    log(f"wrote {os.path.relpath(a.out, ROOT)}.md and .json")
    bad = [r for row in rows for r in (row["baseline"], row["fused"])
           if ("identical" in r and not r["identical"]) or ("measured" in r and r["measured"] != r["peak_after"])]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
