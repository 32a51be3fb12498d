#!/usr/bin/env python3
"""Time-memory curves of remat's planners on the steps users bring (issue 37, deliverable 4).

    bench/.venv/bin/python bench/curves.py [--inputs zoo,hub,examples,jax] [--only NAME,...]
        [--planners default,sqrt,greedy] [--budgets 100%,95%,...,1.1xLB,LB] [--no-fuse]
        [--build build] [--out bench/results/curves] [--no-plot] [--rerender]

Inputs: the zoo models at CI size (bench/models/zoo/ir/*.ci.mlir.xz, named zoo/NAME), the
hub models (bench/models/hub/ir/*.ci.mlir.xz, hub/NAME), the bundled examples
(examples/*.mlir, examples/NAME) and the JAX ci exports (bench/models/ir/jax-*.ci.mlir.xz).
--only takes names or shell patterns (`zoo/*`).

Per input: `remat-opt --report=json` without a budget (peak, lower bound, flops), then
every budget of --budgets (N% of the peak, rounded down as remat-opt does; X xLB = X times
the lower bound, rounded up; LB = the bound) at or above the lower bound, from the largest
down, each planned with `remat-opt --planner=P --budget=BYTES --report=json` for every
planner, one remat-opt at a time. A row records: met, the planned peak
(peak_bytes_after), recompute % of the step's flops (recompute_flops / baseline_flops),
recompute_time_s, plan_time_s, the recompute cost bound and optimality gap (docs/bound.md)
and, when the budget is not met, "the smallest budget known to work" of remat-opt's
message. With `--fuse-elementwise` in `remat-opt --help` (and no --no-fuse) the default
planner runs once more with it: curve `default+fuse`.

Writes OUT.json (every row, the machine, remat's commit, the command) after every input,
then OUT.md (a table per input and the summary against issue 37's targets) and OUT.png
(one subplot per input; needs matplotlib, i.e. bench/.venv; --no-plot skips it).
--rerender: OUT.md and OUT.png from OUT.json alone.
"""
import argparse
import fnmatch
import json
import lzma
import math
import os
import re
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import machine  # noqa: E402

DEFAULT_BUDGETS = "100%,95%,90%,80%,70%,60%,50%,45%,40%,35%,30%,25%,20%,1.1xLB,LB"
FUSE = "default+fuse"
# Issue 37's targets (the summary table): every budget down to TARGET_LB_FACTOR x the lower
# bound met or proven infeasible; at TARGET_PCT% of the peak, where that budget is at least
# TARGET_MARGIN x the lower bound, at most TARGET_RECOMPUTE_PCT% of the step's flops recomputed.
TARGET_LB_FACTOR = 1.1
TARGET_PCT = 35
TARGET_MARGIN = 1.5
TARGET_RECOMPUTE_PCT = 33.0
# remat-opt's budget that works after a miss: the default planner's "smallest budget known to
# work", or, after another planner's miss, "the default planner meets N bytes" (searched from
# that planner's reach; it may meet less).
SMALLEST_RE = re.compile(r"(?:smallest budget (?:known to work is|that works is the lower bound itself,)|"
                         r"The default planner meets) (\d+) bytes")


def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def build_type(build):
    """CMAKE_BUILD_TYPE of the build remat-opt comes from (plan times depend on it)."""
    try:
        for line in open(os.path.join(build, "CMakeCache.txt")):
            if line.startswith("CMAKE_BUILD_TYPE:"):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


# The exports: kind, directory under bench/, name prefix, which files.
EXPORTS = (("zoo", ("models", "zoo", "ir"), "zoo/", lambda f: f.endswith(".ci.mlir.xz")),
           ("hub", ("models", "hub", "ir"), "hub/", lambda f: f.endswith(".ci.mlir.xz")),
           ("jax", ("models", "ir"), "", lambda f: f.startswith("jax-") and f.endswith(".ci.mlir.xz")))


def inputs(kinds, work):
    """(name, path) of every input of the kinds asked for, the .xz ones decompressed into work."""
    out = []
    for kind, sub, prefix, pick in EXPORTS:
        if kind not in kinds:
            continue
        d = os.path.join(BENCH, *sub)
        for f in sorted(os.listdir(d)):
            if pick(f):
                name = prefix + f[:-len(".mlir.xz")]
                path = os.path.join(work, name.replace("/", "-") + ".mlir")
                if not os.path.exists(path):
                    with open(path, "wb") as o:
                        o.write(lzma.open(os.path.join(d, f)).read())
                out.append((name, path))
    if "examples" in kinds:
        d = os.path.join(ROOT, "examples")
        for f in sorted(os.listdir(d)):
            if f.endswith(".mlir"):
                out.append(("examples/" + f[:-5], os.path.join(d, f)))
    return out


def budget_bytes(label, peak, lb):
    """The bytes of one --budgets entry: N% of the peak rounded down (remat-opt's own
    rounding of `--budget=N%`), X xLB rounded up, LB the bound."""
    if label == "LB":
        return lb
    if label.endswith("xLB"):
        return int(math.ceil(float(label[:-3]) * lb))
    if label.endswith("%"):
        return int(peak * float(label[:-1]) / 100.0)
    raise ValueError("budget %r: expected N%%, XxLB or LB" % label)


def run_opt(opt_bin, mlir, args, stem):
    """remat-opt with a JSON report: (first function's report or None, exit code, stderr)."""
    rep = stem + ".rep.json"
    if os.path.exists(rep):
        os.remove(rep)
    p = sh([opt_bin] + args + ["--report=json", "--report-file=" + rep, mlir, "-o", stem + ".out.mlir"])
    f = None
    if os.path.exists(rep):
        try:
            f = json.load(open(rep))["functions"][0]
        except (ValueError, KeyError, IndexError):
            f = None
    return f, p.returncode, p.stderr


def entry_of(f, rc, err, budget):
    """One planner's cell: what its report and its message say."""
    e = {"exit_code": rc}
    if f is None or "peak_bytes_after" not in f:
        lines = [l for l in err.strip().splitlines() if "error" in l] or err.strip().splitlines() or ["no report"]
        e["error"] = lines[-1][:400]
        e["met"] = False
    else:
        base = f.get("baseline_flops") or 0
        e.update({"met": rc == 0 and bool(f.get("budget_met")) and f["peak_bytes_after"] <= budget,
                  "peak_bytes_after": f["peak_bytes_after"], "peak_bytes_planned": f.get("peak_bytes_planned"),
                  "recompute_flops": f.get("recompute_flops"), "baseline_flops": base,
                  "recompute_pct_flops": 100.0 * f.get("recompute_flops", 0) / base if base else None,
                  "recompute_time_s": f.get("recompute_time_s"), "plan_time_s": f.get("plan_time_s"),
                  "pass_time_s": f.get("pass_time_s"), "recompute_cost_bound": f.get("recompute_cost_bound"),
                  "optimality_gap": f.get("optimality_gap"), "search_effort": f.get("search_effort")})
        note = f.get("recompute_cost_bound_note")
        if note:
            e["recompute_cost_bound_note"] = note
        for k in ("fusion_kept", "input_flops", "peak_bytes_fused"):
            if k in f:
                e[k] = f[k]
        if rc != 0:
            lines = [l for l in err.strip().splitlines() if "error" in l]
            if lines:
                e["error"] = lines[-1][:400]
    m = SMALLEST_RE.search(err)
    if m and not e["met"]:
        e["smallest_budget_known_bytes"] = int(m.group(1))
    elif not e["met"] and "default planner meets this budget" in err:
        # Another planner's miss that the default planner meets: the budget itself works.
        e["smallest_budget_known_bytes"] = budget
    return e


def proven_infeasible(e):
    return (e.get("recompute_cost_bound") is None and
            (e.get("recompute_cost_bound_note") or "").startswith("no schedule fits"))


def loss_result(name):
    """The index of the step's loss among its results: the result whose role is "loss" in the
    export's manifest (torch-mlir steps with batch norm return the updated running statistics
    first), 0 for the bundled examples (their loss comes first); None when not known."""
    if name.startswith("examples/"):
        return 0
    # The longest matching prefix: the jax exports have none.
    _, sub, prefix, _ = max((e for e in EXPORTS if name.startswith(e[2])), key=lambda e: len(e[2]))
    path = os.path.join(BENCH, *sub, name[len(prefix):] + ".manifest.json")
    try:
        roles = [r.get("role") for r in json.load(open(path))["results"]]
    except (OSError, ValueError, KeyError):
        return None
    return roles.index("loss") if "loss" in roles else None


def forward_pct(graph_path, loss):
    """One forward pass as a share of the step's flops: the flops of the ops the loss (result
    `loss`) depends on, over all the ops' flops (remat-opt --export-graph JSON); None where it
    cannot be read."""
    try:
        g = json.load(open(graph_path))["functions"][0]
        ops, values, ret = g["ops"], g["values"], g["return_operands"]
    except (OSError, ValueError, KeyError, IndexError):
        return None
    total = sum(o.get("flops", 0) for o in ops)
    if loss is None or loss >= len(ret) or not total:
        return None
    seen, stack = set(), [ret[loss]]
    while stack:
        d = values[stack.pop()]["def"]
        if d >= 0 and d not in seen:
            seen.add(d)
            stack.extend(ops[d]["reads"])
    return 100.0 * sum(ops[i].get("flops", 0) for i in seen) / total


def sweep(name, mlir, a, opt_bin, planners, work):
    stem = os.path.join(work, name.replace("/", "-"))
    f, rc, err = run_opt(opt_bin, mlir, ["--export-graph=" + stem + ".graph.json"], stem)
    if f is None:
        line = (err.strip().splitlines() or ["exit %d" % rc])[-1]
        print("%s: no report without a budget: %s" % (name, line), flush=True)
        return {"input": name, "error": line}
    peak, lb = f["peak_bytes_before"], f["lower_bound_bytes"]
    res = {"input": name, "num_ops": f.get("num_ops"), "peak_bytes": peak, "lower_bound_bytes": lb,
           "baseline_flops": f.get("baseline_flops"), "baseline_time_s": f.get("baseline_time_s"),
           "forward_pct_flops": forward_pct(stem + ".graph.json", loss_result(name)), "rows": []}
    budgets, seen = [], set()
    for label in a.budgets.split(","):
        b = budget_bytes(label, peak, lb)
        if b in seen:
            continue
        seen.add(b)
        budgets.append((b, label))
    budgets.sort(key=lambda x: -x[0])
    skipped = [label for b, label in budgets if b < lb]
    if skipped:
        res["skipped_under_lower_bound"] = skipped
    for b, label in budgets:
        if b < lb:
            continue
        row = {"budget": label, "budget_bytes": b, "pct_of_peak": 100.0 * b / peak, "x_lower_bound": b / lb,
               "planners": {}}
        for pl in planners:
            args = ["--budget=%d" % b]
            args += ["--planner=default", "--fuse-elementwise"] if pl == FUSE else ["--planner=" + pl]
            t0 = time.time()
            e = entry_of(*run_opt(opt_bin, mlir, args, stem), budget=b)
            e["wall_s"] = round(time.time() - t0, 3)
            row["planners"][pl] = e
        res["rows"].append(row)
        print("%s %s (%d bytes): %s" % (name, label, b, ", ".join("%s %s" % (pl, cell(row["planners"][pl]))
                                                                    for pl in planners)), flush=True)
    return res


# ---------------------------------------------------------------------------------------------
# Rendering


def cell(e):
    if e is None:
        return "-"
    if not e.get("met"):
        s = "not met"
        if e.get("peak_bytes_after") is not None:
            s += " (%d)" % e["peak_bytes_after"]
        return s
    p = e.get("recompute_pct_flops")
    return "%.1f%%" % p if p is not None else "met"


def fmt_s(x):
    return "-" if x is None else "%.3g" % x


def bound_cell(e):
    if e is None:
        return "-"
    if proven_infeasible(e):
        return "infeasible (proven)"
    return fmt_s(e.get("recompute_cost_bound"))


def summarize(inp, planners):
    """Issue 37's targets on one input, for the default planner (and the best of all planners)."""
    lb, peak = inp["lower_bound_bytes"], inp["peak_bytes"]
    s = {"input": inp["input"], "peak_bytes": peak, "lower_bound_bytes": lb, "lb_pct_of_peak": 100.0 * lb / peak}
    for who in ("default", "any"):
        names = ["default"] if who == "default" else planners
        met = [r["budget_bytes"] for r in inp["rows"]
               if any(r["planners"].get(p, {}).get("met") for p in names)]
        s["smallest_met_" + who] = min(met) if met else None
    # The default planner's floor: the smallest budget known to work, of the sweep's met budgets
    # and those remat-opt's messages name on a miss (each checked by a plan that meets it).
    known = [r["planners"].get("default", {}).get("smallest_budget_known_bytes") for r in inp["rows"]]
    known = [k for k in known if k] + ([s["smallest_met_default"]] if s["smallest_met_default"] else [])
    s["smallest_known_default"] = min(known) if known else None
    # (a) every budget down to 1.1x LB met by default, or proven infeasible by the bound.
    target = math.ceil(TARGET_LB_FACTOR * lb)
    missed, infeasible = [], []
    for r in inp["rows"]:
        if r["budget_bytes"] < target:
            continue
        e = r["planners"].get("default", {})
        if e.get("met"):
            continue
        (infeasible if proven_infeasible(e) else missed).append(r["budget"])
    s["missed_down_to_1.1xLB"], s["infeasible_down_to_1.1xLB"] = missed, infeasible
    s["missed_met_by_fuse"] = [r["budget"] for r in inp["rows"] if r["budget"] in missed
                               and r["planners"].get(FUSE, {}).get("met")]
    s["target_a"] = not missed
    # (b) at 35% of the peak.
    s["forward_pct"], s["target_b_forward"] = inp.get("forward_pct_flops"), None
    r35 = next((r for r in inp["rows"] if r["budget"] == "%d%%" % TARGET_PCT), None)
    b35 = int(peak * TARGET_PCT / 100.0)
    s["pct35_bytes"], s["pct35_x_lb"] = b35, b35 / lb
    if r35 is None:
        s["pct35"], s["target_b"] = "under the lower bound" if b35 < lb else "not run", None
    else:
        e = r35["planners"].get("default", {})
        s["pct35_recompute_pct"] = e.get("recompute_pct_flops") if e.get("met") else None
        s["pct35_met"] = bool(e.get("met"))
        if b35 < TARGET_MARGIN * lb:
            s["target_b"] = None  # the target does not apply: 35% is under 1.5x the bound
        else:
            s["target_b"] = bool(e.get("met")) and e.get("recompute_pct_flops", 1e9) <= TARGET_RECOMPUTE_PCT
        # The same against one forward pass of this step (the "~33%" is that share when
        # the backward costs twice the forward; exports differ).
        fwd = s["forward_pct"]
        s["target_b_forward"] = (None if s["target_b"] is None or fwd is None else
                                 bool(e.get("met")) and e.get("recompute_pct_flops", 1e9) <= fwd)
        fe = r35["planners"].get(FUSE)
        if fe is not None:
            s["pct35_fuse_recompute_pct"] = fe.get("recompute_pct_flops") if fe.get("met") else None
    return s


def render(data, md_path):
    planners = data["planners"]
    L = ["# Time-memory curves: remat's planners on the steps users bring", "",
         "Made by `bench/curves.py` (issue 37, deliverable 4; bench/README.md). Generated file: "
         "`--rerender` rewrites it from `curves.json`.", "",
         "- machine: %s" % data["machine"],
         "- remat commit: %s (%s, build type %s)" % (data["git"], data.get("remat_opt", "?"),
                                                   data.get("build_type", "?")), "- date: %s" % data["date"],
         "- command: `%s` (%s s, one remat-opt at a time)" % (data["command"], data.get("wall_s", "?")), "- planners: %s" % ", ".join(planners), "",
         "Per input: budget (label, bytes, %% of the unplanned peak, x the lower bound LB), then per planner "
         "the recompute as a %% of the step's flops (recompute_flops / baseline_flops) when the budget is met, "
         "or *not met (planned peak)*; *bound* is the default planner's recompute_cost_bound (seconds, h200 "
         "profile; *infeasible (proven)*: no schedule fits), *gap* its optimality_gap, *plan s* its "
         "plan_time_s, *smallest known* the smallest budget known to work from remat-opt's message when the "
         "default planner misses. `%s` is the default planner with `--fuse-elementwise`: its flops are the "
         "fused step's when the fused plan is kept, and the fused step has a lower bound of its own, which "
         "can be under the input's LB: its plans can then reach peaks under LB. The plot (`curves.png`) has the peak each met plan reached (x, %% of the unplanned "
         "peak) against its recompute (y, %% of flops), the input's LB dashed." % FUSE, ""]
    summaries = []
    for inp in data["inputs"]:
        if "error" in inp:
            L += ["## %s" % inp["input"], "", "no report: %s" % inp["error"], ""]
            continue
        summaries.append(summarize(inp, planners))
        L += ["## %s" % inp["input"], "",
              "%s ops, peak %d bytes, lower bound %d bytes (%.1f%% of the peak), %.4g flops%s" % (
                  inp["num_ops"], inp["peak_bytes"], inp["lower_bound_bytes"],
                  100.0 * inp["lower_bound_bytes"] / inp["peak_bytes"], inp["baseline_flops"] or 0,
                  ("; under the bound, not run: " + ", ".join(inp["skipped_under_lower_bound"]))
                  if inp.get("skipped_under_lower_bound") else ""), "",
              "| budget | bytes | % peak | x LB | " + " | ".join(planners) + " | bound | gap | plan s | smallest known |",
              "|---|---:|---:|---:|" + "---:|" * len(planners) + "---:|---:|---:|---:|"]
        for r in inp["rows"]:
            d = r["planners"].get("default")
            gap = d.get("optimality_gap") if d else None
            L.append("| %s | %d | %.1f | %.2f | %s | %s | %s | %s | %s |" % (
                r["budget"], r["budget_bytes"], r["pct_of_peak"], r["x_lower_bound"],
                " | ".join(cell(r["planners"].get(p)) for p in planners), bound_cell(d),
                "-" if gap is None else "%.1f%%" % (100 * gap), fmt_s(d.get("plan_time_s") if d else None),
                d.get("smallest_budget_known_bytes", "-") if d else "-"))
        L.append("")
    L += ["## Summary: issue 37's targets", "",
          "Default planner. (a) *smallest met*: the smallest budget of the sweep the default planner meets "
          "(and any planner, %s included), as x LB; *smallest known*: the least of that and the smallest "
          "budgets known to work that remat-opt names when the default planner misses (each one a budget the "
          "default planner meets, found between the sweep's budgets); *down to 1.1x LB*: every budget of the sweep at or above 1.1x LB is "
          "met or proven infeasible by the recompute cost bound (else the budgets missed). (b) at 35%% of "
          "the peak: the recompute %% of the step's flops (default; %s), and the target (<= %g%%) where that "
          "budget is >= %gx LB (*n/a* where it is not); *one forward*: the flops of the ops the loss depends "
          "on (the manifest's *loss* result), as a %% of the step's (the issue's ~33%% is that share where the backward costs twice the "
          "forward), and the target against it." % (FUSE, FUSE, TARGET_RECOMPUTE_PCT, TARGET_MARGIN), "",
          "| input | LB % peak | smallest met (default) | x LB | smallest met (any) | x LB | smallest known (default) "
          "| x LB | down to 1.1x LB "
          "| 35% x LB | 35%: recompute % | " + FUSE + " | target (b) | one forward | (b) against it |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---|"]
    for s in summaries:
        lb = s["lower_bound_bytes"]

        def xl(v):
            return "-" if v is None else "%.2f" % (v / lb)

        if s["target_a"]:
            a_cell = "yes" + (" (infeasible: %s)" % ", ".join(s["infeasible_down_to_1.1xLB"])
                              if s["infeasible_down_to_1.1xLB"] else "")
        else:
            a_cell = "**no**: missed " + ", ".join(s["missed_down_to_1.1xLB"])
            if s.get("missed_met_by_fuse"):
                a_cell += " (%s meets %s)" % (FUSE, ", ".join(s["missed_met_by_fuse"]))
        if "pct35_met" not in s:
            p35, f35 = s.get("pct35", "-"), "-"
        else:
            p35 = "%.1f%%" % s["pct35_recompute_pct"] if s["pct35_met"] else "not met"
            f35 = ("-" if "pct35_fuse_recompute_pct" not in s else "not met"
                   if s["pct35_fuse_recompute_pct"] is None else "%.1f%%" % s["pct35_fuse_recompute_pct"])
        b_cell = "n/a" if s["target_b"] is None else "met" if s["target_b"] else "**not met**"
        fwd = s.get("forward_pct")
        bf = s.get("target_b_forward")
        bf_cell = "n/a" if bf is None else "met" if bf else "**not met**"
        L.append("| %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %s |" % (
            s["input"], s["lb_pct_of_peak"], s["smallest_met_default"] or "-", xl(s["smallest_met_default"]),
            s["smallest_met_any"] or "-", xl(s["smallest_met_any"]), s["smallest_known_default"] or "-",
            xl(s["smallest_known_default"]), a_cell, s["pct35_x_lb"], p35, f35, b_cell,
            "-" if fwd is None else "%.1f%%" % fwd, bf_cell))
    na = [s["input"] for s in summaries if not s["target_a"]]
    nb = [s["input"] for s in summaries if s["target_b"] is False]
    applies = [s for s in summaries if s["target_b"] is not None]
    L += ["", "**Target (a)** (every budget down to 1.1x LB met or proven infeasible, default planner): "
          + ("met on all %d inputs." % len(summaries) if not na else
             "**not met** on %d of %d inputs: %s." % (len(na), len(summaries), ", ".join(na))),
          "", "**Target (b)** (<= %g%% of the flops recomputed at 35%% of the peak where that is >= %gx LB): "
          % (TARGET_RECOMPUTE_PCT, TARGET_MARGIN)
          + ("applies to %d inputs, " % len(applies))
          + ("met on all of them." if not nb else "**not met** on %d: %s." % (len(nb), ", ".join(nb))), ""]
    nf = [s["input"] for s in summaries if s.get("target_b_forward") is False]
    af = [s for s in summaries if s.get("target_b_forward") is not None]
    if af:
        L += ["Against one forward pass of each step (*one forward*): applies to %d inputs, " % len(af)
              + ("met on all of them." if not nf else "**not met** on %d: %s." % (len(nf), ", ".join(nf))), ""]
    data["summary"] = summaries
    with open(md_path, "w") as f:
        f.write("\n".join(L))


def plot(data, png_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    inps = [i for i in data["inputs"] if "error" not in i]
    if not inps:
        return
    cols = min(4, len(inps))
    rows = (len(inps) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    styles = {"default": ("C0", "o"), "sqrt": ("C1", "s"), "greedy": ("C2", "^"), FUSE: ("C3", "x")}
    for k, inp in enumerate(inps):
        ax = axes[k // cols][k % cols]
        for pl in data["planners"]:
            pts = sorted((100.0 * e["peak_bytes_after"] / inp["peak_bytes"], e["recompute_pct_flops"])
                         for e in (r["planners"].get(pl, {}) for r in inp["rows"])
                         if e.get("met") and e.get("recompute_pct_flops") is not None)
            if pts:
                c, m = styles.get(pl, (None, "."))
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=m, color=c, ms=3.5, lw=1, label=pl)
        ax.axvline(100.0 * inp["lower_bound_bytes"] / inp["peak_bytes"], color="k", ls="--", lw=0.8, label="LB")
        ax.set_title(inp["input"], fontsize=9)
        ax.set_xlim(0, 102)
        ax.tick_params(labelsize=7)
        if k % cols == 0:
            ax.set_ylabel("recompute % of flops", fontsize=8)
        if k // cols == rows - 1:
            ax.set_xlabel("peak reached, % of unplanned peak", fontsize=8)
        if k == 0:
            ax.legend(fontsize=7)
    for k in range(len(inps), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle("remat planners: recompute vs. peak (%s, %s)" % (data["git"], data["date"][:10]), fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    fig.savefig(png_path, dpi=80)


def dump_json(data, path):
    """The JSON with one budget row per line: a third of the size of an indented dump, and
    a re-run's diff still shows which rows changed."""
    rows = {}
    for k, inp in enumerate(data["inputs"]):
        for j, r in enumerate(inp.get("rows", [])):
            rows["@row %d %d@" % (k, j)] = json.dumps(r, separators=(",", ":"))
    shallow = dict(data, inputs=[dict(inp, rows=["@row %d %d@" % (k, j) for j in range(len(inp.get("rows", [])))])
                                 if "rows" in inp else inp for k, inp in enumerate(data["inputs"])])
    text = json.dumps(shallow, indent=1)
    for key, row in rows.items():
        text = text.replace('"%s"' % key, row, 1)
    with open(path, "w") as f:
        f.write(text + "\n")


def write_outputs(data, out, no_plot):
    render(data, out + ".md")
    dump_json(data, out + ".json")
    if not no_plot:
        try:
            plot(data, out + ".png")
        except ImportError:
            print("curves.py: no matplotlib here (bench/.venv has it); %s.png not written" % out, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", default="zoo,hub,examples,jax")
    ap.add_argument("--only", help="names or shell patterns, comma-separated (zoo/gpt2.ci, examples/*)")
    ap.add_argument("--planners", default="default,sqrt,greedy")
    ap.add_argument("--budgets", default=DEFAULT_BUDGETS)
    ap.add_argument("--no-fuse", action="store_true", help="no default+fuse curve")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "curves"))
    ap.add_argument("--work", default=os.path.join(BENCH, "work", "curves"))
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--rerender", action="store_true")
    a = ap.parse_args()
    if a.rerender:
        data = json.load(open(a.out + ".json"))
        write_outputs(data, a.out, a.no_plot)
        return 0
    opt_bin = os.path.join(a.build, "bin", "remat-opt")
    if not os.path.exists(opt_bin):
        print("curves.py: no remat-opt at %s (build first, or --build DIR)" % opt_bin, file=sys.stderr)
        return 1
    planners = [p for p in a.planners.split(",") if p]
    for p in planners:
        if p not in ("default", "sqrt", "greedy"):
            print("curves.py: --planners: unknown planner %r (default, sqrt, greedy)" % p, file=sys.stderr)
            return 1
    try:
        for label in a.budgets.split(","):
            budget_bytes(label, 100, 1)
    except ValueError as e:
        print("curves.py: --budgets: %s" % e, file=sys.stderr)
        return 1
    if not a.no_fuse and "--fuse-elementwise" in sh([opt_bin, "--help"]).stdout:
        planners.append(FUSE)
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    todo = inputs(a.inputs.split(","), a.work)
    if a.only:
        pats = a.only.split(",")
        todo = [(n, p) for n, p in todo if any(fnmatch.fnmatchcase(n, q) for q in pats)]
    if not todo:
        print("curves.py: no input matches --inputs %s --only %s" % (a.inputs, a.only), file=sys.stderr)
        return 1
    data = {"machine": "%s, %d cores" % (machine.cpu_model(), os.cpu_count()), "git": machine.git_rev(ROOT),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "bench/.venv/bin/python bench/curves.py " + " ".join(sys.argv[1:]),
            "remat_opt": os.path.relpath(opt_bin, ROOT), "build_type": build_type(a.build), "planners": planners, "budgets": a.budgets.split(","),
            "inputs": []}
    t0 = time.time()
    for name, mlir in todo:
        data["inputs"].append(sweep(name, mlir, a, opt_bin, planners, a.work))
        data["wall_s"] = round(time.time() - t0, 1)
        dump_json(data, a.out + ".json")  # after every input: a long run can be cut
    write_outputs(data, a.out, a.no_plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
