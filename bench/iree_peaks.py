"""remat's planned peak against IREE's measured peak of the same plan
(scripts/remat-iree; docs/iree.md). For each step and budget: remat-iree
--budget=B -o (remat-opt's report: its estimate before and after), then
remat-iree --measure (IREE on local-sync, inputs excluded, remat-run's seeded
inputs); the unplanned module is the row "none". Writes
bench/results/iree-peaks.json and .md.

  bench/.venv/bin/python bench/iree_peaks.py --plot     (OUT.png from OUT.json; matplotlib)
  python3 bench/iree_peaks.py [--budgets 70,50,35] [--out bench/results/iree-peaks]
      [--append] [STEP.mlir.xz ...]   (default: DEFAULT below)

--append adds the steps given (replacing a step of the same name) to the
existing JSON and rewrites both files; --render only rewrites the .md from it.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from machine import cpu_model  # noqa: E402

REMAT_IREE = os.path.join(ROOT, "scripts", "remat-iree")
# The JAX exports, the Adam steps (donated and not), the zoo's torch-mlir GPT-2, Llama and
# ResNet-18 at CI size, and one bench size.
DEFAULT = ["models/ir/jax-mlp.ci", "models/ir/jax-gpt2.ci", "models/ir/jax-embed.ci", "models/ir/jax-adam-b128.ci",
           "models/ir/jax-adam-nodonate-b128.ci", "models/zoo/ir/gpt2.ci", "models/zoo/ir/llama.ci",
           "models/zoo/ir/resnet18.ci", "models/ir/jax-mlp.bench"]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()


def one(step, budget, tmp, plain=False, of_iree=None):
    """One row: remat-iree at `budget` (None: unplanned; plain: IREE's own fusion, no guards), measured.
    of_iree: the iree row's measured peak; the budget is then `budget`% of it, in bytes."""
    vmfb = os.path.join(tmp, "step.vmfb")
    if os.path.exists(vmfb):
        os.unlink(vmfb)
    arg = f"{int(of_iree * budget / 100.0)}" if of_iree else f"{budget}%"
    cmd = [REMAT_IREE, step, "--report=json", "-o", vmfb] + ([f"--budget={arg}"] if budget else [])
    cmd += ["--iree-fusion"] if plain else []
    t0 = time.monotonic()
    rc, out, err = run(cmd)
    if plain:
        label = "iree"
    elif not budget:
        label = "none"
    else:
        label = f"{budget}% of iree" if of_iree else f"{budget}%"
    row = {"budget": label, "compile_s": round(time.monotonic() - t0, 1)}
    if rc:
        row["error"] = short(err.splitlines()[-1] if err else f"exit {rc}")
        return row
    rep = json.loads(out)
    fn, fit = rep["functions"][0], rep.get("iree")
    row.update(remat_before=fn["peak_bytes_before"], remat_after=fn["peak_bytes_after"],
               budget_bytes=fit["budget_bytes"] if fit else fn["budget_bytes"],
               modules_built=fit["modules_built"] if fit else 1, recompute_flops=fn["recompute_flops"],
               baseline_flops=fn["baseline_flops"], unfused="planned without elementwise fusion" in err)
    man = step.replace(".mlir.xz", ".manifest.json")
    rc, out, err = run([REMAT_IREE, "--measure", vmfb, "--time"] +
                       ([f"--manifest={man}"] if os.path.exists(man) else []))
    if rc:
        row["error"] = short(err)
        return row
    m = json.loads(out)
    row.update(iree_peak=m["peak_bytes"], argument_bytes=m["argument_bytes"], step_time_s=m["step_time_s"],
               checksums=[o["checksum"] for o in m["outputs"]])
    return row


def short(err):
    """remat-opt's refusal without the paths: 'budget of N bytes is under the lower bound of M bytes'."""
    m = re.search(r'remat: (budget of \d+ bytes is under the lower bound of \d+ bytes)', err)
    return m.group(1) if m else err.replace(ROOT + os.sep, "")


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if a is not None and b else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("steps", nargs="*")
    ap.add_argument("--budgets", default="70,50,35")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "iree-peaks"))
    ap.add_argument("--append", action="store_true")
    ap.add_argument("--render", action="store_true")
    ap.add_argument("--of-iree", action="store_true",
                    help="also rows at N%% of the iree row's measured peak (IREE's own compilation, unplanned: "
                         "the base issue 35 states), as a budget in bytes")
    ap.add_argument("--add-of-iree", action="store_true",
                    help="only those rows, added to the steps of the existing OUT.json (their other rows kept)")
    ap.add_argument("--plot", action="store_true",
                    help="draw OUT.png from OUT.json (matplotlib: run with bench/.venv/bin/python)")
    a = ap.parse_args()
    if a.plot:
        with open(a.out + ".json") as f:
            plot(a.out, json.load(f))
        return
    if a.render:
        with open(a.out + ".json") as f:
            d = json.load(f)
        render(a.out, d["meta"], d["results"])
        return
    steps = a.steps or [os.path.join(HERE, s + ".mlir.xz") for s in DEFAULT]
    percents = [int(b) for b in a.budgets.split(",")]
    budgets = [None] + percents
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    command = "python3 bench/iree_peaks.py " + " ".join(os.path.relpath(x, ROOT) if os.path.exists(x) else x
                                                         for x in sys.argv[1:])
    machine = f"{cpu_model()} ({platform.machine()}, {os.cpu_count()} cores)"
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if a.add_of_iree:
        add_of_iree(a.out, steps if a.steps else None, percents,
                    {"command": command, "commit": commit, "machine": machine, "date": date})
        return
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for step in steps:
            rows = [one(step, None, tmp, plain=True)]
            print(os.path.basename(step), json.dumps({k: v for k, v in rows[-1].items() if k != "checksums"}),
                  flush=True)
            for b in budgets:
                rows.append(one(step, b, tmp))
                print(os.path.basename(step), json.dumps({k: v for k, v in rows[-1].items() if k != "checksums"}),
                      flush=True)
            if a.of_iree and rows[0].get("iree_peak"):
                for b in percents:
                    rows.append(one(step, b, tmp, of_iree=rows[0]["iree_peak"]))
                    print(os.path.basename(step), json.dumps({k: v for k, v in rows[-1].items()
                                                              if k != "checksums"}), flush=True)
            compare_outputs(rows)
            results.append({"step": os.path.basename(step), "rows": rows})
    meta = {"command": command, "commit": commit, "machine": machine,
            "iree": "iree-base-compiler/runtime 3.13 (the exporters' venv), llvm-cpu generic, local-sync",
            "date": date}
    if a.append:
        # The table's first run keeps its own command, commit, machine and date;
        # each append is recorded as a run of its own (its steps' rows may come
        # from another machine).
        with open(a.out + ".json") as f:
            old = json.load(f)
        new = {r["step"]: r for r in results}
        kept = [new.pop(r["step"], r) for r in old["results"]]  # replaced where it stood
        results = kept + list(new.values())
        run = {"steps": [os.path.basename(x) for x in steps],
               "command": command, "commit": commit, "machine": machine, "date": date}
        meta = dict(old["meta"], appended=old["meta"].get("appended", []) + [run])
        if a.of_iree and meta.get("of_iree_runs"):
            # Those steps' rows at N% of iree are this run's now.
            for r in meta["of_iree_runs"]:
                r["steps"] = [x for x in r["steps"] if x not in run["steps"]]
    with open(a.out + ".json", "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
        f.write("\n")
    render(a.out, meta, results)


def compare_outputs(rows):
    """Each planned row's checksums against the unplanned rows': none (rows[1]) and iree (rows[0])."""
    base, plain = rows[1], rows[0]
    for r in rows[1:]:
        if "checksums" in r and "checksums" in base:
            r["outputs_equal_unplanned"] = sum(x == y for x, y in zip(r["checksums"], base["checksums"]))
            r["outputs"] = len(base["checksums"])
        if "checksums" in r and "checksums" in plain:
            r["outputs_equal_plain"] = sum(x == y for x, y in zip(r["checksums"], plain["checksums"]))


def add_of_iree(out, only, percents, run_meta):
    """The rows at N% of the iree row's measured peak, added to (or replacing those of) the steps of
    OUT.json, their other rows as they were; recorded in meta["of_iree_runs"]."""
    if not os.path.exists(out + ".json"):
        print(f"iree_peaks.py: --add-of-iree: no table at {out}.json (run the table first)", file=sys.stderr)
        sys.exit(1)
    with open(out + ".json") as f:
        d = json.load(f)
    names = {os.path.basename(x) for x in only} if only else None
    done = []
    with tempfile.TemporaryDirectory() as tmp:
        for res in d["results"]:
            plain = res["rows"][0]
            if (names and res["step"] not in names) or not plain.get("iree_peak"):
                continue
            path = next((os.path.join(HERE, s + ".mlir.xz") for s in DEFAULT
                         if os.path.basename(s) + ".mlir.xz" == res["step"]), None)
            path = next((x for x in (only or []) if os.path.basename(x) == res["step"]), path)
            if not path:
                continue
            rows = [r for r in res["rows"] if not r["budget"].endswith(" of iree")]
            for b in percents:
                rows.append(one(path, b, tmp, of_iree=plain["iree_peak"]))
                print(res["step"], json.dumps({k: v for k, v in rows[-1].items() if k != "checksums"}), flush=True)
            compare_outputs(rows)
            res["rows"] = rows
            done.append(res["step"])
    d["meta"]["of_iree_runs"] = d["meta"].get("of_iree_runs", []) + [dict(run_meta, steps=done)]
    with open(out + ".json", "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    render(out, d["meta"], d["results"])


def render(out, meta, results):
    commit = meta["commit"]
    lines = ["# remat's plans in IREE: estimate, budget and IREE's measured peak", "",
             f"Generated by `{meta['command']}` on {meta['machine']}, commit {commit}, {meta['date']}; "
             f"{meta['iree']}." + "".join(
                 f" Rows of {', '.join(r['steps'])} by `{r['command']}` on {r['machine']}, commit "
                 f"{r['commit']}, {r['date']}." for r in meta.get("appended", [])) + "".join(
                 f" Rows *N% of iree* of {', '.join(r['steps'])} by `{r['command']}` on {r['machine']}, commit "
                 f"{r['commit']}, {r['date']}." for r in meta.get("of_iree_runs", [])), "",
             "Rows: *iree*: the step compiled by IREE alone (`remat-iree --iree-fusion`, no budget: IREE's own "
             "dispatch formation); *none*: remat-iree's flow unplanned (MLIR's elementwise fusion, guards, "
             "docs/iree.md); N%: that flow planned at N% of its unplanned peak; *N% of iree*: planned at N% of "
             "the *iree* row's measured peak, given in bytes (the base issue 35 states: IREE's unplanned peak; "
             "lower than *none*'s where IREE's own compilation peaks higher, so a looser budget there). "
             "Columns: *remat estimate*: "
             "remat-opt's peak of the step it wrote; *IREE measured*: `scripts/remat-iree --measure` (DEVICE_LOCAL "
             "peak on local-sync minus the inputs); *measured / estimate*; *IREE / budget*: measured over the "
             "budget in bytes (N% of *none*'s measured peak, or of *iree*'s); *% of iree*: measured over the *iree* row's; "
             "*outputs*: checksums equal to *none*'s / to *iree*'s (bit for bit); *time*: median step time "
             "(iree-benchmark-module, local-sync, 5 runs) relative to *iree*; *recompute*: recomputed flops, % of "
             "the step's; *compile*: remat-iree's wall time, with the number of modules it built (it measures the "
             "module and plans again at a budget lowered by the excess while IREE's peak is over the budget: "
             "docs/iree.md).", "",
             "| step | row | remat estimate | IREE measured | measured / estimate | IREE / budget | % of iree "
             "| outputs | time | recompute | compile (s) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for res in results:
        plain, base = res["rows"][0], res["rows"][1]
        for r in res["rows"]:
            if "error" in r:
                lines.append(f"| {res['step']} | {r['budget']} | refused: {r['error']} | | | | | | | | |")
                continue
            want = None
            if r["budget"].endswith(" of iree") and plain.get("iree_peak"):
                want = plain["iree_peak"] * float(r["budget"].split("%")[0]) / 100.0
            elif r["budget"].endswith("%") and base.get("iree_peak"):
                want = base["iree_peak"] * float(r["budget"][:-1]) / 100.0
            est = r["remat_after"]
            outs = "-"
            if "outputs" in r:
                outs = f"{r['outputs_equal_unplanned']}/{r['outputs']}"
                if "outputs_equal_plain" in r:
                    outs += f", {r['outputs_equal_plain']}/{r['outputs']}"
            tm = (f"{r['step_time_s'] / plain['step_time_s']:.2f}x" if plain.get("step_time_s") and
                  r.get("step_time_s") else "-")
            rec = pct(r.get("recompute_flops"), r.get("baseline_flops")) if r["budget"] != "iree" else "-"
            note = " (unfused)" if r.get("unfused") else ""
            ratio = f"{r['iree_peak'] / want:.3f}x" if want else "-"
            lines.append(
                f"| {res['step']} | {r['budget']}{note} | {est:,} | {r['iree_peak']:,} | "
                f"{r['iree_peak'] / est:.3f} | {ratio} | "
                f"{pct(r['iree_peak'], plain.get('iree_peak'))} | {outs} | {tm} | {rec} | {r['compile_s']}"
                f"{' (' + str(r['modules_built']) + ' modules)' if r.get('modules_built', 1) > 1 else ''} |")
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", out + ".md", out + ".json")


def plot(out, d):
    """Per step: remat's planned peak and IREE's measured peak against the budget asked, all as %
    of the unplanned module's measured peak in IREE (the *none* row); the rows at N% of the iree
    row's peak as points of their own (their budget in the same units)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = [r for r in d["results"] if len(r["rows"]) > 1 and "iree_peak" in r["rows"][1]]
    cols = 3
    rows = (len(results) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows), squeeze=False)
    for ax, res in zip(axes.flat, results):
        base = res["rows"][1]["iree_peak"]
        pts = [(100.0, 100.0 * res["rows"][1]["remat_after"] / base, 100.0)]
        plain = res["rows"][0].get("iree_peak")
        other = []  # rows at N% of the iree row's peak: x = that budget, in % of none's peak
        for r in res["rows"][2:]:
            if "iree_peak" not in r:
                continue
            if r["budget"].endswith(" of iree"):
                if plain:
                    want = plain * float(r["budget"].split("%")[0]) / 100.0
                    other.append((100.0 * want / base, 100.0 * r["iree_peak"] / base))
            else:
                pts.append((float(r["budget"][:-1]), 100.0 * r["remat_after"] / base, 100.0 * r["iree_peak"] / base))
        pts.sort()
        other.sort()
        xs = [p[0] for p in pts]
        ax.plot([0, 100], [0, 100], color="0.75", lw=1, label="= budget")
        ax.plot([0, 100], [0, 105], color="0.75", lw=1, ls="--", label="1.05 x budget")
        ax.plot(xs, [p[1] for p in pts], "o-", label="remat's estimate")
        ax.plot(xs, [p[2] for p in pts], "s--", label="IREE measured")
        if other:
            ax.plot([p[0] for p in other], [p[1] for p in other], "^", color="tab:green",
                    label="IREE measured, budget N% of IREE alone")
        if plain:
            ax.axhline(100.0 * plain / base, color="tab:red", lw=0.8, ls=":", label="IREE alone, unplanned")
        ax.set_title(res["step"].replace(".mlir.xz", ""), fontsize=10)
        ax.set_xlim(25, 105)
        ax.set_ylim(25, 125)
        ax.set_xlabel("budget asked (% of unplanned)")
        ax.set_ylabel("peak (% of unplanned, IREE)")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(results):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"remat-iree: planned vs IREE-measured peak ({d['meta']['machine']}, commit {d['meta']['commit']})",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out + ".png", dpi=110)
    print("wrote", out + ".png")


if __name__ == "__main__":
    main()
