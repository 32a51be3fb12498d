"""remat-opt --fuse-elementwise of two builds, same steps, same budgets, same run: the one
that generalizes MLIR's named linalg ops before the fusion (docs/planner.md,
"Elementwise fusion") against one that does not (an earlier commit's remat-opt).

  python3 bench/fusion_generalize.py --base OLD/remat-opt [--new build/bin/remat-opt]
                                     [--rows zoo/vit.ci:40,35;...] [--no-run] [--out PREFIX]

Every row is a committed step of bench/models (ci size) at N% of its input's peak, planned
with `remat-opt --fuse-elementwise --budget=N%` by each build, one at a time. The table gives
for each: met, the peak after, the recomputed flops as a share of the input's, the roofline
step time (h200: the rewritten step's time plus the recomputation, what --fuse-elementwise
minimises among the plans that fit) and the wall time of remat-opt. Unless --no-run, the
new build's plan and the original step run on the CPU (remat-run, the same seeded inputs):
the measured peak must equal the planned one and every output checksum the original's.
Writes PREFIX.md and PREFIX.json (default bench/results/fusion-generalize).
"""
import argparse
import json
import lzma
import os
import platform
import subprocess
import sys
import time

from fusion import run  # remat-run's measured peak and checksums

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ROWS = ("zoo/vit.ci:45,40,35;zoo/llama.ci:50,35;zoo/gpt2.ci:50;zoo/resnet18.ci:50,45;zoo/unet.ci:60;"
        "hub/vit.ci:70,65;hub/llama.ci:35,25;hub/gpt2.ci:35,25;hub/bert_mlm.ci:35,30;hub/unet2d.ci:35;"
        "hub/flax_adamw.ci:35,20;jax-gpt2.ci:35,20;jax-mlp.ci:35,25;jax-adam-b128.ci:35")


def source(name):
    """bench/models path of a row's step (zoo/x.ci -> models/zoo/ir/x.ci.mlir.xz)."""
    group, _, step = name.rpartition("/")
    return os.path.join(HERE, "models", group, "ir", step + ".mlir.xz") if group else \
        os.path.join(HERE, "models", "ir", step + ".mlir.xz")


def plan(opt, path, pct, out, rep):
    cmd = [opt, "--fuse-elementwise", f"--budget={pct}%", "--report=json", f"--report-file={rep}", path, "-o", out]
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t
    try:
        f = json.load(open(rep))["functions"][0]
    except (OSError, ValueError, KeyError, IndexError):
        lines = p.stderr.strip().splitlines()
        return dict(error=lines[-1] if lines else f"exit {p.returncode}", wall_s=wall)
    input_flops = f.get("input_flops") or f["baseline_flops"]
    return dict(exit=p.returncode, met=f["budget_met"], budget=f["budget_bytes"], peak_after=f["peak_bytes_after"],
                flops_share=f["recompute_flops"] / input_flops, step_time_s=f["baseline_time_s"] + f["recompute_time_s"],
                fusion_kept=f.get("fusion_kept"), wall_s=wall)


def git_head():
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() or "?"


def cell(r, key, fmt):
    if "error" in r:
        return "error"
    return fmt(r[key]) if r.get("met") else f"not met ({r['peak_after']:,})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="remat-opt without the generalization (an earlier commit's)")
    ap.add_argument("--new", default=os.path.join(ROOT, "build", "bin", "remat-opt"))
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "bin", "remat-run"))
    ap.add_argument("--rows", default=ROWS)
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "fusion-generalize"))
    ap.add_argument("--work", default=os.path.join(HERE, "work", "fusion-generalize"))
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rows = []
    for spec in a.rows.split(";"):
        name, _, pcts = spec.partition(":")
        path = os.path.join(a.work, name.replace("/", "-") + ".mlir")
        with lzma.open(source(name)) as src, open(path, "wb") as dst:
            dst.write(src.read())
        manifest = source(name)[:-len(".mlir.xz")] + ".manifest.json"
        original = None if a.no_run else run(a.runner, path, manifest)
        for pct in pcts.split(","):
            row = dict(step=name, budget_pct=float(pct))
            for tag, opt in (("base", a.base), ("new", a.new)):
                stem = os.path.join(a.work, f"{name.replace('/', '-')}.{pct}.{tag}")
                row[tag] = plan(opt, path, pct, stem + ".mlir", stem + ".json")
                if tag == "new" and original is not None and row[tag].get("met"):
                    m = run(a.runner, stem + ".mlir", manifest)
                    row["measured"] = m.get("peak")
                    row["identical"] = "error" not in m and "error" not in original and \
                        m["checksums"] == original["checksums"]
                    row["measured_equals_planned"] = m.get("peak") == row[tag]["peak_after"]
            print(json.dumps(row), file=sys.stderr, flush=True)
            rows.append(row)
    command = "python3 bench/fusion_generalize.py " + " ".join(sys.argv[1:])
    data = dict(command=command, commit=git_head(), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                machine=f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or ''}".strip(", "),
                rows=rows)
    with open(a.out + ".json", "w") as f:
        json.dump(data, f, indent=1)
    lines = ["# --fuse-elementwise with named linalg ops generalized first, against without", "",
             f"Generated by `{command}` on {data['date']} (remat {data['commit']}; {data['machine']}); "
             "both builds plan each row one after the other. *base*: --fuse-elementwise as it was (MLIR's "
             "elementwise fusion on the step as exported); *new*: the fused plan made twice, with "
             "`linalg-generalize-named-ops` before the fusion and without, the better kept (then, as before, "
             "against the unfused plan). Recompute: share of the input's flops; step: h200 roofline time of "
             "the rewritten step plus the recomputation (what the choice among plans minimises); new/base: "
             "ratio of step times; wall: remat-opt's. *measured*: remat-run on the CPU of the new plan, "
             "*identical*: every output checksum equal to the original step's.", "",
             "| step | budget | base recompute | base step (s) | new recompute | new step (s) | new/base | "
             "wall base / new (s) | measured = planned | identical |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b, n = r["base"], r["new"]
        ratio = f"{n['step_time_s'] / b['step_time_s']:.3f}" if b.get("met") and n.get("met") else "-"
        lines.append(f"| {r['step']} | {r['budget_pct']:g}% | {cell(b, 'flops_share', lambda x: f'{100 * x:.1f}%')} "
                     f"| {cell(b, 'step_time_s', lambda x: f'{x:.4g}')} "
                     f"| {cell(n, 'flops_share', lambda x: f'{100 * x:.1f}%')} "
                     f"| {cell(n, 'step_time_s', lambda x: f'{x:.4g}')} | {ratio} "
                     f"| {b['wall_s']:.1f} / {n['wall_s']:.1f} "
                     f"| {'-' if 'measured' not in r else ('yes' if r['measured_equals_planned'] else 'NO')} "
                     f"| {'-' if 'identical' not in r else ('yes' if r['identical'] else 'NO')} |")
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    bad = [r for r in rows if r.get("identical") is False or r.get("measured_equals_planned") is False or
           (r["base"].get("met") and not r["new"].get("met"))]
    print(f"{len(rows)} rows; {len(bad)} with a new plan that is wrong or misses a budget the base met",
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
