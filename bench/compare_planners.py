#!/usr/bin/env python3
"""Planner comparison: sqrt, greedy and default against the MILP optimum.

    python3 bench/compare_planners.py [--quick] [--time-limit S] [--search]

For each bench graph (scripts/gen_examples.py) and budget (90/70/50/35% of the
step's peak and 1.1 x its lower bound, those at or above the lower bound):
runs `remat-opt --planner=sqrt|greedy|default --budget=BYTES` and bench/milp.py
(Checkmate's MILP, HiGHS), replays the MILP's plan with `remat-opt --plan-file`,
runs the rewritten step with remat-run and checks it (outputs bit-identical to
the original step, measured peak <= budget, planned = rewritten = measured
peak). Then the scaling run: default on a ~10,000-op residual stack, plan and
pass time against the parse time of the same run. Writes bench/results/planners.md
(and .json). --search looks for the largest graph of each family whose MILP is
proven optimal within 10 minutes at every budget.

Creates bench/.venv (HiGHS from bench/requirements.txt) on first use.
"""
import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
KNOWN_PLANS = os.path.join(BENCH, "results", "known-plans")  # schedules known from elsewhere, per graph and budget
VENV = os.path.join(BENCH, ".venv")
VENV_PY = os.path.join(VENV, "bin", "python")


def ensure_venv():
    """Re-executes this script inside bench/.venv, creating it if needed."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(VENV_PY):
        print("creating %s (HiGHS from bench/requirements.txt)" % VENV, flush=True)
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    try:
        subprocess.check_call([VENV_PY, "-c", "import highspy"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        subprocess.check_call([VENV_PY, "-m", "pip", "install", "-q", "-r", os.path.join(BENCH, "requirements.txt")])
    os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:])


# name, generator arguments. Small enough for the MILP; the largest ones the
# solver proves optimal within 10 minutes are found with --search.
FULL_GRAPHS = [
    ("mlp-d3", "mlp --depth 3 --batch 64"),
    ("mlp-d5", "mlp --depth 5 --batch 64"),
    ("resnet-d2", "resnet --depth 2 --batch 64 --width 16"),
    ("resnet-d3", "resnet --depth 3 --batch 64 --width 16"),
    ("resnet-d4", "resnet --depth 4 --batch 64 --width 16"),
    ("cnn-d2", "cnn --depth 2 --batch 2 --image 8"),
    ("cnn-d3", "cnn --depth 3 --batch 2 --image 8"),
    ("transformer-d1", "transformer --depth 1 --batch 2 --seq 8"),
]
QUICK_GRAPHS = [
    ("mlp-d3", "mlp --depth 3 --batch 64"),
    ("resnet-d2", "resnet --depth 2 --batch 64 --width 16"),
]
SEARCH_FAMILIES = [
    ("mlp", "mlp --batch 64 --depth %d", [3, 4, 5, 6, 8]),
    ("resnet", "resnet --batch 64 --width 16 --depth %d", [2, 3, 4, 5, 6, 8, 12, 16]),
    ("cnn", "cnn --batch 2 --image 8 --depth %d", [2, 3, 4]),
    ("transformer", "transformer --batch 2 --seq 8 --depth %d", [1, 2]),
]
SCALING = ("resnet-d256", "resnet --depth 256 --batch 64 --width 16")
PERCENTS = [90, 70, 50, 35]
PLANNERS = ["sqrt", "greedy", "default"]


def log(msg):
    print(msg, flush=True)


class Runner:
    def __init__(self, build, work, commands):
        self.opt = os.path.join(build, "bin", "remat-opt")
        self.run_bin = os.path.join(build, "bin", "remat-run")
        self.work = work
        self.commands = commands  # every command run, for the report

    def note(self, argv):
        self.commands.append(" ".join(shlex.quote(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a)
                                      for a in argv))

    def sh(self, argv, check=True, record=True):
        if record:
            self.note([a.split("=", 1)[0] + "=" + os.path.relpath(a.split("=", 1)[1], ROOT)
                       if "=" in a and a.split("=", 1)[1].startswith(ROOT) else a for a in argv])
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and p.returncode != 0:
            raise RuntimeError("%s failed (%d): %s" % (argv[0], p.returncode, p.stderr.strip()[-2000:]))
        return p

    def generate(self, name, spec):
        path = os.path.join(self.work, name + ".mlir")
        self.sh([sys.executable, os.path.join(ROOT, "scripts", "gen_examples.py")] + spec.split() + ["-o", path])
        return path

    def export(self, mlir):
        g = mlir[:-5] + ".graph.json"
        self.sh([self.opt, "--estimate", "--export-graph=" + g, mlir], record=True)
        return json.load(open(g))["functions"][0]

    def plan(self, mlir, tag, args):
        out = "%s.%s.mlir" % (mlir[:-5], tag)
        rep = "%s.%s.json" % (mlir[:-5], tag)
        t0 = time.perf_counter()
        p = self.sh([self.opt] + args + [mlir, "-o", out, "--report=json", "--report-file=" + rep], check=False)
        wall = time.perf_counter() - t0
        r = {"rc": p.returncode, "wall_s": wall, "stderr": p.stderr.strip()[-500:]}
        if os.path.exists(rep) and os.path.getsize(rep):
            try:
                r.update(json.load(open(rep))["functions"][0])
            except (ValueError, KeyError, IndexError):
                pass
        r["ir"] = out if p.returncode == 0 else None
        if os.path.exists(rep):
            os.unlink(rep)
        return r

    def execute(self, mlir):
        p = self.sh([self.run_bin, "--json", mlir])
        return json.loads(p.stdout)


def machine():
    cpu = cpu_model()
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = "%.1f GiB" % (int(line.split()[1]) / 1048576)
    except OSError:
        pass
    import highspy  # noqa
    try:
        from importlib.metadata import version
        hv = version("highspy")
    except Exception:
        hv = "?"
    git = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "lib", "include", "tools"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.split("\n")
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": mem, "python": platform.python_version(),
            "highspy": hv, "git": git, "uncommitted_sources": [l[3:] for l in dirty if l.strip()]}


def budgets_for(fn):
    peak, lb = fn["peak_bytes"], fn["lower_bound_bytes"]
    out = []
    for pct in PERCENTS:
        b = int(peak * pct / 100.0)
        if lb <= b < peak:
            out.append(("%d%%" % pct, b))
    b = int(1.1 * lb)
    if b < peak and all(b != x for _, x in out):
        out.append(("1.1xLB", b))
    return out


def fmt_s(x):
    return "%.4g" % x if x is not None else "-"


def gap(x, opt):
    if x is None or opt is None:
        return None
    if opt == 0:
        return 0.0 if x == 0 else float("inf")
    g = 100.0 * (x - opt) / opt
    return 0.0 if abs(g) < 1e-6 else g  # equal up to the reports' 6 digits


def fmt_gap(g):
    if g is None:
        return "-"
    if g == float("inf"):
        return "inf"
    return "%+.1f%%" % g


def run_graph(R, milp, name, spec, time_limit, moves_limit):
    log("== %s: scripts/gen_examples.py %s" % (name, spec))
    mlir = R.generate(name, spec)
    fn = R.export(mlir)
    base = R.execute(mlir)
    nodes, extra, info = milp.coarsen(fn)
    g = {"name": name, "spec": spec, "ops": len(fn["ops"]), "milp_nodes": info["nodes"],
         "milp_edges": info["edges"], "peak_bytes": fn["peak_bytes"], "lower_bound_bytes": fn["lower_bound_bytes"],
         "measured_peak_bytes": base["peak_bytes"], "rows": []}
    log("   %d ops, %d MILP nodes, peak %d bytes (measured %d), lower bound %d"
        % (g["ops"], g["milp_nodes"], fn["peak_bytes"], base["peak_bytes"], fn["lower_bound_bytes"]))
    checksums = [o["checksum"] for o in base["outputs"]]
    for label, budget in budgets_for(fn):
        row = {"budget": label, "budget_bytes": budget, "planners": run_planners(R, mlir, budget, checksums)}
        # The optimum.
        R.note([VENV_PY, os.path.join(BENCH, "milp.py"), mlir[:-5] + ".graph.json", "--budget", str(budget),
                "--time-limit", str(time_limit), "--plan-out",
                os.path.join(R.work, "%s.%s.plan" % (name, label.replace("%", "pct")))])
        lines, st = milp.solve_graph(fn, budget, time_limit, moves_time_limit=moves_limit)
        cm = st["checkmate"]
        opt = {"status": cm["status"], "optimal": cm["optimal"], "infeasible": cm["infeasible"],
               "objective_s": cm["objective_s"], "bound_s": cm["bound_s"], "mip_gap": cm["mip_gap"],
               "solve_time_s": cm["solve_time_s"], "variables": cm["variables"],
               "binary_variables": cm["binary_variables"], "constraints": cm["constraints"],
               "nonzeros": cm["nonzeros"], "bb_nodes": cm["bb_nodes"]}
        if "moves" in st:
            opt["moves"] = {k: st["moves"][k] for k in ("status", "objective_s", "bound_s", "solve_time_s")}
        if lines is not None:
            plan = os.path.join(R.work, "%s.%s.plan" % (name, label.replace("%", "pct")))
            write_plan(plan, "# %s budget %d: %s" % (name, budget, cm["status"]), lines)
            replay(R, mlir, plan, budget, checksums, st["model_peak_bytes"], cm["objective_s"], opt)
        finish_row(g, row, opt, label, budget, lines is not None)
    return g


def run_planners(R, mlir, budget, checksums):
    """sqrt, greedy, default at budget; default's step is run and checked."""
    res = {}
    for p in PLANNERS:
        r = R.plan(mlir, p, ["--planner=" + p, "--budget=%d" % budget])
        met = r["rc"] == 0 and r.get("budget_met", False)
        res[p] = {
            "met": met, "rc": r["rc"], "recompute_time_s": r.get("recompute_time_s"),
            "peak_bytes_after": r.get("peak_bytes_after"), "plan_time_s": r.get("plan_time_s"),
            "pass_time_s": r.get("pass_time_s"), "parse_time_s": r.get("parse_time_s"), "wall_s": r["wall_s"],
            "error": None if met else r["stderr"]}
        if p == "default" and met:
            run = R.execute(r["ir"])
            res[p]["measured_peak_bytes"] = run["peak_bytes"]
            res[p]["outputs_identical"] = [o["checksum"] for o in run["outputs"]] == checksums
    return res


def write_plan(path, header, lines):
    with open(path, "w") as f:
        f.write(header + "\n")
        for l in lines:
            f.write("%d %d %d\n" % tuple(l))


def replay(R, mlir, plan, budget, checksums, model_peak, objective_s, opt):
    """Replays an optimal plan with remat-opt --plan-file, runs it with
    remat-run and checks it; fills opt."""
    rep = R.plan(mlir, "milp", ["--plan-file=" + plan])
    opt["plan_file"] = os.path.relpath(plan, ROOT)
    opt["plan_lines"] = sum(1 for l in open(plan) if l.strip() and not l.startswith("#"))
    opt["model_peak_bytes"] = model_peak
    opt["replay_rc"] = rep["rc"]
    opt["replay_error"] = rep["stderr"] if rep["rc"] else None
    if rep["rc"] == 0:
        run = R.execute(rep["ir"])
        opt.update({
            "recompute_time_s": rep["recompute_time_s"],
            "peak_bytes_planned": rep["peak_bytes_planned"], "peak_bytes_after": rep["peak_bytes_after"],
            "measured_peak_bytes": run["peak_bytes"],
            "outputs_identical": [o["checksum"] for o in run["outputs"]] == checksums})
        opt["verified"] = (opt["outputs_identical"] and run["peak_bytes"] <= budget
                           and rep["peak_bytes_planned"] == rep["peak_bytes_after"] == run["peak_bytes"])
        opt["model_matches_simulator"] = (model_peak == rep["peak_bytes_planned"]) if model_peak is not None else None
        # report figures have 6 significant digits
        opt["objective_matches_replay"] = abs(rep["recompute_time_s"] - objective_s) <= \
            1e-5 * max(abs(objective_s), 1e-12)
    else:
        opt["verified"] = False


def compute_gaps(row):
    """Default's gap to the optimum, from the row's measured figures."""
    opt = row["optimum"]
    d = row["planners"]["default"]
    dcost = d["recompute_time_s"] if d["met"] else None
    known = row.get("known")
    row["default_gap_known_pct"] = (gap(dcost, known["recompute_time_s"])
                                    if known and known.get("verified") and dcost is not None else None)
    replayed = opt.get("recompute_time_s") if opt.get("verified") else None
    # The replayed plan is the optimum's when the MILP proved it (and, for a
    # plan recovered with the objective floor, the recovery reached the floor).
    rs = opt.get("resolve")
    opt["plan_optimal"] = bool(opt["optimal"] and replayed is not None and (rs is None or rs["status"] == "Optimal"))
    # The optimum is known exactly when its plan replays, runs, fits and costs
    # the proven objective.
    exact = opt["plan_optimal"] and opt.get("objective_matches_replay")
    row["default_gap_pct"] = gap(dcost, replayed) if exact else None
    # Proven, but no exact replay: the replayed plan costs less than the MILP
    # objective (the simulator erased originals whose every use moved to a
    # clone: a free move for remat, paid as a recompute in Checkmate's model),
    # or the recovery did not reach the floor. remat's own optimum is at most
    # the objective and at most the cost of any verified replay, so default's
    # gap is at least its gap to the smaller of the two.
    row["default_gap_min_pct"] = None
    row["default_gap_vs_objective_pct"] = None
    if opt["optimal"] and not exact and dcost is not None:
        best = min(x for x in (replayed, opt["objective_s"]) if x is not None)
        row["default_gap_min_pct"] = gap(dcost, best)
        row["default_gap_vs_objective_pct"] = gap(dcost, opt["objective_s"])
    # Unproven: the optimum lies between the bound and the best found, so
    # default is at most this far above it.
    row["default_gap_upper_pct"] = None
    row["default_gap_lower_pct"] = None
    if not opt["optimal"] and d["met"] and opt["bound_s"] is not None and opt["bound_s"] > 0:
        row["default_gap_upper_pct"] = gap(dcost, opt["bound_s"])
        best = opt.get("recompute_time_s") if opt.get("verified") else opt.get("best_found_s")
        row["default_gap_lower_pct"] = gap(dcost, best) if best else None


def finish_row(g, row, opt, label, budget, has_plan):
    row["optimum"] = opt
    compute_gaps(row)
    g["rows"].append(row)
    cells = []
    for p in PLANNERS:
        x = row["planners"][p]
        cells.append("%s %s" % (p, fmt_s(x["recompute_time_s"]) if x["met"] else "not met"))
    log("   %-7s %9d B  %s | opt %s (%s, %.1fs, %s) | default gap %s"
        % (label, budget, "  ".join(cells), fmt_s(opt.get("recompute_time_s", opt["objective_s"])),
           opt["status"], opt["solve_time_s"],
           "verified" if opt.get("verified") else "NOT verified" if has_plan else "no plan",
           fmt_gap(row["default_gap_pct"])))


def run_from_search(R, milp, searched, time_limit, previous=None):
    """The table over the size search's graphs and budgets (milp-search.json):
    the planners at each budget; the search's status, objective and bound as
    the optimum's proof. The optimal plan of each proven entry is recovered and
    replayed: from the entry's plan file when the search wrote one, else by
    solving the same model again with the proven bound as an objective floor
    (milp.build_and_solve), which stops at the first schedule reaching it."""
    graphs = []
    groups = []
    for e in searched["entries"]:
        if not groups or (groups[-1][0]["family"], groups[-1][0]["depth"]) != (e["family"], e["depth"]):
            groups.append([])
        groups[-1].append(e)
    for entries in groups:
        e0 = entries[0]
        name = "search-%s-d%d" % (e0["family"], e0["depth"])
        log("== %s: scripts/gen_examples.py %s" % (name, e0["spec"]))
        mlir = R.generate(name, e0["spec"])
        fn = R.export(mlir)
        base = R.execute(mlir)
        nodes, extra, info = milp.coarsen(fn)
        g = {"name": name, "spec": e0["spec"], "family": e0["family"], "depth": e0["depth"], "ops": len(fn["ops"]),
             "milp_nodes": info["nodes"], "milp_edges": info["edges"], "peak_bytes": fn["peak_bytes"],
             "lower_bound_bytes": fn["lower_bound_bytes"], "measured_peak_bytes": base["peak_bytes"], "rows": []}
        log("   %d ops, %d MILP nodes, peak %d bytes (measured %d), lower bound %d"
            % (g["ops"], g["milp_nodes"], fn["peak_bytes"], base["peak_bytes"], fn["lower_bound_bytes"]))
        checksums = [o["checksum"] for o in base["outputs"]]
        budgets = dict(budgets_for(fn))
        same = g["ops"] == e0["ops"] and g["milp_nodes"] == e0["milp_nodes"]
        # Percent budgets pin the peak; a group's other budgets (1.1xLB) are the
        # search's bytes, kept as they were: the bound they were derived from
        # changed since (docs/memory-model.md), the graph did not.
        pct = [e for e in entries if e["budget"].endswith("%")]
        peak_same = bool(pct) and all(budgets.get(e["budget"]) == e["budget_bytes"] for e in pct)
        for e in entries:
            label, budget = e["budget"], e["budget_bytes"]
            # The search's graph must be this one (same generator, same export).
            if label.endswith("%"):
                same_graph = same and budgets.get(label) == budget
            else:
                same_graph = same and peak_same
            row = {"budget": label, "budget_bytes": budget, "planners": run_planners(R, mlir, budget, checksums)}
            opt = {k: e.get(k) for k in ("status", "optimal", "infeasible", "objective_s", "bound_s", "mip_gap",
                                         "solve_time_s", "variables", "binary_variables", "constraints",
                                         "nonzeros", "bb_nodes")}
            opt["proof"] = "milp-search.json (remat %s)" % e.get("git", searched["git"])
            opt["same_graph"] = same_graph
            if not same_graph:
                log("   %s: the graph differs from the search's; its optimum is not used" % label)
                opt["optimal"] = False
            has_plan = False
            if opt["optimal"]:
                plan = os.path.join(R.work, "%s.%s.plan" % (name, label.replace("%", "pct")))
                prev = e.get("plan_file") and os.path.join(ROOT, e["plan_file"])
                model_peak = None
                before = (previous or {}).get((name, label, budget), {})
                if prev and os.path.exists(prev):
                    plan = prev
                    opt["plan_from"] = "search"
                elif before.get("plan_file") and os.path.exists(os.path.join(ROOT, before["plan_file"])) \
                        and before.get("resolve"):
                    # Recovered by an earlier table run (--reuse-plans).
                    plan = os.path.join(ROOT, before["plan_file"])
                    opt["plan_from"] = before["plan_from"] + " (%s)" % previous["_run"]
                    opt["resolve"] = before["resolve"]
                    model_peak = before.get("model_peak_bytes")
                    log("   %s: plan recovered earlier (%s, %.1f s), reused"
                        % (label, before["resolve"]["status"], before["resolve"]["solve_time_s"]))
                else:
                    R.note([VENV_PY, os.path.join(BENCH, "milp.py"), mlir[:-5] + ".graph.json", "--budget",
                            str(budget), "--time-limit", str(time_limit), "--objective-floor", repr(e["bound_s"]),
                            "--plan-out", plan])
                    lines, st = milp.solve_graph(fn, budget, time_limit, objective_floor=e["bound_s"])
                    cm = st["checkmate"]
                    opt["plan_from"] = "re-solve with the proven bound as objective floor"
                    opt["resolve"] = {k: cm[k] for k in ("status", "objective_s", "bound_s", "solve_time_s",
                                                         "bb_nodes", "nonzeros")}
                    log("   %s: plan recovered (%s, %.1f s; search proof %.1f s)"
                        % (label, cm["status"], cm["solve_time_s"], e["solve_time_s"]))
                    if lines is not None:
                        write_plan(plan, "# %s budget %d: optimum %r s (proven by the size search), plan %s"
                                   % (name, budget, e["objective_s"], cm["status"]), lines)
                        model_peak = st["model_peak_bytes"]
                    else:
                        plan = None
                if plan:
                    has_plan = True
                    replay(R, mlir, plan, budget, checksums, model_peak, e["objective_s"], opt)
            elif not opt["infeasible"] and e.get("objective_s") is not None:
                opt["best_found_s"] = e["objective_s"]  # no plan kept: not replayed
            # A schedule known from elsewhere (an earlier solve under other costs) bounds remat's
            # optimum from above where the MILP proves nothing: replayed, run and checked too.
            known = os.path.join(KNOWN_PLANS, "%s.%s.plan" % (name, label.replace("%", "pct")))
            if not opt["optimal"] and os.path.exists(known):
                row["known"] = {}
                replay(R, mlir, known, budget, checksums, None, 0.0, row["known"])
            finish_row(g, row, opt, label, budget, has_plan)
        graphs.append(g)
    return graphs


def run_scaling(R, repeats):
    name, spec = SCALING
    log("== scaling: %s (scripts/gen_examples.py %s)" % (name, spec))
    mlir = R.generate(name, spec)
    res = {"name": name, "spec": spec, "runs": []}
    for label in ["70%", "50%"]:
        for k in range(repeats):
            r = R.plan(mlir, "default", ["--planner=default", "--budget=" + label])
            res["num_ops"] = r.get("num_ops")
            x = {"budget": label, "rc": r["rc"], "budget_met": r.get("budget_met"),
                 "plan_time_s": r.get("plan_time_s"), "pass_time_s": r.get("pass_time_s"),
                 "parse_time_s": r.get("parse_time_s"), "wall_s": r["wall_s"],
                 "recompute_time_s": r.get("recompute_time_s"), "peak_bytes_before": r.get("peak_bytes_before"),
                 "peak_bytes_after": r.get("peak_bytes_after"), "budget_bytes": r.get("budget_bytes")}
            res["runs"].append(x)
            log("   %s run %d: plan %.3fs, pass %.3fs, parse %.3fs (plan/parse %.2f, pass/parse %.2f), wall %.2fs"
                % (label, k + 1, x["plan_time_s"], x["pass_time_s"], x["parse_time_s"],
                   x["plan_time_s"] / x["parse_time_s"], x["pass_time_s"] / x["parse_time_s"], x["wall_s"]))
    return res


def parse_only(text):
    """--only: comma-separated FAMILY:DEPTHS:LEVELS, DEPTHS and LEVELS
    '/'-separated lists (e.g. resnet:2/3:90%/70%), each the product of its
    depths and levels -> set of (family, depth, budget label)."""
    fams = [f for f, _, _ in SEARCH_FAMILIES]
    out = set()
    for item in text.split(","):
        parts = item.strip().split(":")
        if len(parts) != 3 or parts[0] not in fams:
            sys.exit("--only: %r is not FAMILY:DEPTHS:LEVELS with FAMILY in %s" % (item, ",".join(fams)))
        for d in parts[1].split("/"):
            for level in parts[2].split("/"):
                out.add((parts[0], int(d), level))
    return out


def search(R, milp, time_limit, git, families=None, depths_override=None, previous=(), save=None, only=None):
    """Per family and budget level, the largest graph whose MILP is proven
    (optimal or infeasible) within time_limit. Depths ascend; a budget level
    stops at its first unproven depth. Optimal plans are written to the work
    directory (entry plan_file). With only (a set of (family, depth, budget
    label)), exactly those solves, none skipped after an unproven one."""
    out = []
    for fam, pattern, depths in SEARCH_FAMILIES:
        if families and fam not in families:
            continue
        if depths_override:
            depths = depths_override
        if only is not None:
            depths = sorted({d for f, d, _ in only if f == fam})
        # Levels already unproven at a smaller depth (earlier runs) stay stopped.
        failed = {e["budget"] for e in previous
                  if e["family"] == fam and not (e["optimal"] or e["infeasible"]) and e["depth"] < min(depths)}
        for d in depths:
            name = "search-%s-d%d" % (fam, d)
            spec = pattern % d
            mlir = R.generate(name, spec)
            fn = R.export(mlir)
            nodes, extra, info = milp.coarsen(fn)
            if only is not None:
                todo = [(l, b) for l, b in budgets_for(fn) if (fam, d, l) in only]
                missing = sorted(l for f, dd, l in only if (f, dd) == (fam, d) and l not in [x for x, _ in todo])
                if missing:
                    sys.exit("--only: %s depth %d has no budget level %s (levels: %s)"
                             % (fam, d, ", ".join(missing), ", ".join(l for l, _ in budgets_for(fn))))
            else:
                todo = [(l, b) for l, b in budgets_for(fn) if l not in failed]
            if not todo:
                break
            for label, budget in todo:
                plan = os.path.join(R.work, "%s.%s.plan" % (name, label.replace("%", "pct")))
                log("   search %s d=%d (%d ops, %d nodes) %s (%d B): solving (limit %.0f s) ..."
                    % (fam, d, len(fn["ops"]), info["nodes"], label, budget, time_limit))
                R.note([VENV_PY, os.path.join(BENCH, "milp.py"), mlir[:-5] + ".graph.json", "--budget", str(budget),
                        "--time-limit", str(time_limit), "--plan-out", plan])
                lines, st = milp.solve_graph(fn, budget, time_limit)
                cm = st["checkmate"]
                e = {"family": fam, "depth": d, "spec": spec, "ops": len(fn["ops"]), "milp_nodes": info["nodes"],
                     "budget": label, "budget_bytes": budget, "status": cm["status"], "optimal": cm["optimal"],
                     "infeasible": cm["infeasible"], "solve_time_s": cm["solve_time_s"],
                     "variables": cm["variables"], "binary_variables": cm["binary_variables"],
                     "constraints": cm["constraints"], "nonzeros": cm["nonzeros"], "bb_nodes": cm["bb_nodes"],
                     "objective_s": cm["objective_s"], "bound_s": cm["bound_s"], "mip_gap": cm["mip_gap"],
                     "git": git}
                # The plan (the table replays it instead of solving again).
                if lines is not None and cm["optimal"]:
                    write_plan(plan, "# %s budget %d: %s, objective %r s" % (name, budget, cm["status"],
                                                                            cm["objective_s"]), lines)
                    e["plan_file"] = os.path.relpath(plan, ROOT)
                out.append(e)
                if save:
                    save(out)  # after every solve: an interrupted search keeps what it proved
                log("   search %s d=%d (%d ops, %d nodes) %s (%d B): %s in %.1fs"
                    % (fam, d, e["ops"], info["nodes"], label, budget, cm["status"], cm["solve_time_s"]))
                if not (cm["optimal"] or cm["infeasible"]):
                    failed.add(label)
    return out


def search_summary(searched):
    """(family, budget label) -> largest proven entry, and the first failure."""
    best, fail = {}, {}
    for e in searched:
        key = (e["family"], e["budget"])
        if e["optimal"] or e["infeasible"]:
            if key not in best or e["milp_nodes"] > best[key]["milp_nodes"]:
                best[key] = e
        elif key not in fail:
            fail[key] = e
    return best, fail


def fmt_num(x, f="%d"):
    return f % x if x is not None else "-"


def write_markdown(path, meta, graphs, scaling, searched):
    L = []
    w = L.append
    fs = meta.get("from_search")
    w("# Planner comparison: sqrt, greedy, default against the MILP optimum")
    w("")
    w("Generated by `%s` on %s%s." % (meta["command"], meta["date"],
                                      "; this text rewritten from the .json by `%s`" % meta["rerendered"]
                                      if meta.get("rerendered") else ""))
    w("")
    for f in meta.get("refreshed", []):
        w("Column *%s* re-run alone by `%s` on %s (remat at `%s`; %d rows changed, %d unchanged; every plan "
          "that fits run by remat-run: outputs bit-identical, measured peak <= budget); the other columns are "
          "the run above." % (f["planner"], f["command"], f["date"], f["git"], f["changed"], f["unchanged"]))
        w("")
    m = meta["machine"]
    w("Machine: %s, %s cores, %s; Python %s, highspy %s; remat at `%s`%s."
      % (m["cpu"], m["cores"], m["memory"], m["python"], m["highspy"], m["git"],
         " (uncommitted changes in: %s)" % ", ".join(m["uncommitted_sources"]) if m["uncommitted_sources"] else ""))
    w("")
    if fs:
        w("Graphs and budgets: those of the MILP size search, `bench/results/milp-search.json` (`%s`, %s, "
          "remat `%s`, HiGHS time limit %s s per solve). The columns *MILP status (s)*, the objective, bound "
          "and model size are that search's solve, the optimum's proof; the planners, the replays and the "
          "runs are this run's. Each proven optimum's plan is replayed and run: the plan file the search "
          "wrote where it kept one, else the plan recovered by solving the same model again with the "
          "search's proven bound as a lower bound on the objective (`milp.py --objective-floor`: HiGHS stops "
          "at the first schedule that reaches it; *plan recovery s* in the sizes table). A row is used only "
          "if this run's graph has the search's op count, MILP node count and percent budgets in bytes. "
          "*1.1xLB* budgets are the search's bytes: 1.1x the lower bound remat reported then, a number that "
          "was not a bound (plans may defer returned values; docs/memory-model.md). The valid bound remat "
          "reports now is lower; the bytes are kept so that the search's proofs still apply.%s"
          % (searched["command"], searched["date"], searched["git"], searched["time_limit"],
             " The recovered plans (and their recovery times) are those of the run %s, replayed and run again "
             "here (`--reuse-plans`)." % meta["plans_reused_from"] if meta.get("plans_reused_from") else ""))
        w("")
    w("Costs are the planners' `recompute_time_s` (roofline seconds of re-executed ops, h200 profile, the "
      "objective every planner minimises). **optimum** = Checkmate's MILP (every original op stays; "
      "clones are extra) solved by HiGHS, its plan replayed with `remat-opt --plan-file` (the cost shown "
      "is the replay's) and run with remat-run: outputs bit-identical to the original step, measured peak "
      "<= budget, planned = rewritten = measured peak (column *verified*). `gap` = (default - optimum) / "
      "optimum where the optimum is proven and its replayed cost equals the proven objective; where it is "
      "not proven, `a..b` brackets default's gap between the best schedule found and the solver's proven "
      "lower bound (`<= b`: none found; *(MILP's model)* when default is under the bound: Checkmate's model "
      "pays moves as recomputes, remat does not); `>= x vs a known schedule` where a schedule from elsewhere "
      "(bench/results/known-plans/, e.g. the optimum under earlier costs) replays, runs and fits: remat's "
      "optimum is at most its cost; `>= a (MILP objective: b)` where the proven optimum's plan replays "
      "cheaper than the MILP objective (moves, below the table): remat's own optimum is then at most both, "
      "and default's gap to it at least a and b. `plan s` = default's `plan_time_s` (planner search), `pass s` = "
      "its `pass_time_s` (graph and in-place analysis, search, rewrite; not the naming of decisions for the "
      "report, `naming_time_s`), `parse s` = `parse_time_s` of the same "
      "run (single timings vary by about 2x: the machine's cores were shared with other jobs). A budget no "
      "planner meets and the MILP proves infeasible cannot be met by any schedule of this kind.")
    w("")
    w("| graph | ops / MILP nodes | budget | bytes | sqrt | greedy | default | optimum | MILP status (s) | verified | gap | plan s | pass s | parse s |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for g in graphs:
        for r in g["rows"]:
            cells = []
            o = r["optimum"]
            known = o["optimal"] and o.get("verified") and o.get("objective_matches_replay")
            ocost = o.get("recompute_time_s") if known else None
            for p in PLANNERS:
                x = r["planners"][p]
                if not x["met"]:
                    cells.append("not met (peak %s)" % x["peak_bytes_after"] if x["peak_bytes_after"] else "not met")
                else:
                    gp = gap(x["recompute_time_s"], ocost)
                    cells.append("%s%s" % (fmt_s(x["recompute_time_s"]),
                                           " (%s)" % fmt_gap(gp) if gp is not None and p != "default" else ""))
            if o["infeasible"]:
                ocell = "infeasible"
            elif o.get("recompute_time_s") is not None:
                ocell = fmt_s(o["recompute_time_s"]) + ("" if o["optimal"] else " (best found, bound %s)"
                                                        % fmt_s(o["bound_s"]))
                if o["optimal"] and not o.get("plan_optimal"):
                    ocell += (" (MILP objective %s; the plan recovery hit its time limit: the replayed plan is "
                              "the best it found, cheaper through moves)" % fmt_s(o["objective_s"]))
                elif o["optimal"] and o.get("objective_matches_replay") is False:
                    ocell += " (MILP objective %s; the optimal plan replays cheaper: moves)" % fmt_s(o["objective_s"])
            elif o.get("best_found_s") is not None:
                ocell = "- (best found %s, bound %s)" % (fmt_s(o["best_found_s"]), fmt_s(o["bound_s"]))
            else:
                ocell = "none found" + (" (bound %s)" % fmt_s(o["bound_s"]) if o.get("bound_s") else "")
            d = r["planners"]["default"]
            if r["default_gap_pct"] is not None:
                gcell = fmt_gap(r["default_gap_pct"])
                if r["default_gap_pct"] > 5.0:
                    gcell = "**%s**" % gcell
            elif r.get("default_gap_min_pct") is not None:
                gcell = ">= %s (MILP objective: %s)" % (fmt_gap(r["default_gap_min_pct"]),
                                                       fmt_gap(r["default_gap_vs_objective_pct"]))
                if r["default_gap_vs_objective_pct"] > 5.0:
                    gcell = "**%s**" % gcell
            elif r.get("default_gap_upper_pct") is not None:
                gcell = ("%s..%s" % (fmt_gap(r["default_gap_lower_pct"]), fmt_gap(r["default_gap_upper_pct"]))
                         if r.get("default_gap_lower_pct") is not None else "<= %s" % fmt_gap(r["default_gap_upper_pct"]))
                if r.get("default_gap_upper_pct") < 0:
                    gcell += " (MILP's model)"
            else:
                gcell = "-"
            if r.get("default_gap_known_pct") is not None:
                kc = ">= %s vs a known schedule (%s)" % (fmt_gap(r["default_gap_known_pct"]),
                                                         fmt_s(r["known"]["recompute_time_s"]))
                gcell += "; " + ("**%s**" % kc if r["default_gap_known_pct"] > 5.0 else kc)
            w("| %s | %d / %d | %s | %d | %s | %s | %s | %s | %s (%.1f) | %s | %s | %s | %s | %s |"
              % (g["name"], g["ops"], g["milp_nodes"], r["budget"], r["budget_bytes"], cells[0], cells[1], cells[2],
                 ocell, o["status"], o["solve_time_s"],
                 ("yes" if o.get("plan_optimal") or not o["optimal"] else "yes (not the optimum's plan)")
                 if o.get("verified") else ("-" if o.get("plan_file") is None else "NO"),
                 gcell, fmt_s(d["plan_time_s"]), fmt_s(d["pass_time_s"]), fmt_s(d["parse_time_s"])))
    w("")
    # Gap summary.
    gaps = [(g["name"], r["budget"], r["default_gap_pct"]) for g in graphs for r in g["rows"]
            if r["default_gap_pct"] is not None]
    cheaper = [(g["name"], r["budget"], r["default_gap_min_pct"], r["default_gap_vs_objective_pct"],
                r["planners"]["default"]["recompute_time_s"],
                r["optimum"].get("recompute_time_s") if r["optimum"].get("verified") else None,
                r["optimum"].get("plan_optimal"))
               for g in graphs for r in g["rows"] if r.get("default_gap_min_pct") is not None]
    unmet = [(g["name"], r["budget"]) for g in graphs for r in g["rows"]
             if not r["planners"]["default"]["met"] and r["optimum"]["optimal"] and r["optimum"].get("verified")]
    proven = [(g["name"], r["budget"]) for g in graphs for r in g["rows"] if r["optimum"]["optimal"]]
    over = [x for x in gaps if x[2] > 5.0]
    # Where the optimal plan replays cheaper than the MILP objective (moves),
    # remat's own optimum is at most that replay: default misses when it is
    # more than 5% above the cheaper of the two.
    cheaper_over = [x for x in cheaper if x[2] > 5.0]
    # Unproven budgets where a verified known schedule is cheaper than default:
    # remat's optimum is at most that schedule, so default is at least that far above it.
    known_over = [(g["name"], r["budget"], r["default_gap_known_pct"], r["known"]["recompute_time_s"],
                   r["known"]["plan_file"]) for g in graphs for r in g["rows"]
                  if r.get("default_gap_known_pct") is not None and r["default_gap_known_pct"] > 5.0]
    misses = len(over) + len(cheaper_over) + len(unmet) + len(known_over)
    if proven:
        w("**Target (default within 5%% of the optimum wherever it is known): %s.** %d budgets have a proven "
          "optimum.%s%s%s%s"
          % ("met" if not misses else "MISSED on %d of them" % misses, len(proven),
             " On %d, the optimal plan replays at exactly the MILP objective; default's gap there: %s%s."
             % (len(gaps), "+0.0% on all" if all(x[2] == 0 for x in gaps) else
                "worst %s %s (%s)" % max(gaps, key=lambda x: x[2]),
                (", above 5%%: %s" % ", ".join("%s %s (%s)" % (a, b, fmt_gap(c)) for a, b, c in over))
                if over else "") if gaps else "",
             (" On %d others, the optimal plan replays cheaper than its MILP objective (moves, below); "
              "default's gap to the cheaper of the two (remat's own optimum is at most that): %s."
              % (len(cheaper), ", ".join("%s %s %s" % (x[0], x[1], fmt_gap(x[2])) for x in cheaper)))
             if cheaper else "",
             (" Budgets the optimum meets and default does not: %s." % ", ".join("%s %s" % u for u in unmet))
             if unmet else "",
             (" Not proven, but a verified schedule is known that default exceeds by more than 5%% (remat's "
              "optimum is at most its cost, so default is at least that far above the optimum, counted as a "
              "miss): %s." % ", ".join("%s %s: %s (schedule %s, %s)" % (a, b, fmt_gap(c), fmt_s(k), f)
                                       for a, b, c, k, f in known_over)) if known_over else ""))
        w("")
    if cheaper:
        w("**Proven optima without an exact replay** (remat's own optimum is at most the MILP objective and at "
          "most the cost of any verified replay, so default is at least this far above it): %s. The replayed "
          "plans cost less than the MILP objective because the simulator erases an original whose every use "
          "moved to a clone, so that clone is a free *move* in remat (here: weight gradients and the loss, "
          "read only by the return, computed again right before it), while Checkmate's model pays it as a "
          "recompute."
          % "; ".join("%s %s: default %s vs the objective, %s vs the replayed plan%s"
                      % (a, b, fmt_gap(dd), ("%s (the replayed plan costs 0)" % fmt_gap(gap(dc, rc)) if rc == 0
                                             else fmt_gap(gap(dc, rc))) if rc is not None else "-",
                         "" if po else " (not the optimum's plan: its recovery hit the time limit)")
                      for a, b, c, dd, dc, rc, po in cheaper))
        w("")
    # A plan that does not replay, run or fit, or that costs more than the
    # objective (the model would be wrong).
    bad = [(g["name"], r["budget"]) for g in graphs for r in g["rows"]
           if r["optimum"].get("plan_file") and not (
               r["optimum"].get("verified") and (r["optimum"].get("objective_matches_replay")
                                                 or r["optimum"]["recompute_time_s"] < r["optimum"]["objective_s"]))]
    if bad:
        w("**Optimal plans that did not replay, run, fit, or that cost more than the MILP objective:** %s."
          % ", ".join("%s %s" % x for x in bad))
        w("")
    # Solver sizes.
    w("## MILP sizes and status")
    w("")
    w("HiGHS, one thread, time limit %s s per solve, relative gap tolerance 0 (absolute 1e-15 s). Model: "
      "bench/milp.py (bench/README.md, *The MILP*).%s" % (meta["time_limit"], " Status, objective, bound, "
      "size and *solve s* are the size search's; *plan recovery s* is this run's solve with the proven "
      "bound as objective floor, which recovers an optimal plan." if fs else ""))
    w("")
    w("| graph | budget | variables (binary) | constraints | nonzeros | status | objective s | bound s | MIP gap | B&B nodes | solve s |%s model peak = simulator peak | objective = replayed cost |"
      % (" plan recovery s |" if fs else ""))
    w("|---|---|---|---|---|---|---|---|---|---|---|%s---|---|" % ("---|" if fs else ""))
    for g in graphs:
        for r in g["rows"]:
            o = r["optimum"]
            rs = o.get("resolve")
            w("| %s | %s | %d (%d) | %d | %s | %s | %s | %s | %s | %s | %.1f |%s %s | %s |"
              % (g["name"], r["budget"], o["variables"], o["binary_variables"], o["constraints"],
                 fmt_num(o.get("nonzeros")), o["status"], fmt_s(o["objective_s"]), fmt_s(o["bound_s"]),
                 "%.2g" % o["mip_gap"] if o["mip_gap"] is not None else "-", fmt_num(o.get("bb_nodes")),
                 o["solve_time_s"],
                 (" %s |" % ("%.1f (%s)" % (rs["solve_time_s"], rs["status"]) if rs else
                             "kept by the search" if o.get("plan_from") == "search" else "-")) if fs else "",
                 {True: "yes", False: "NO"}.get(o.get("model_matches_simulator"), "-"),
                 {True: "yes", False: "NO"}.get(o.get("objective_matches_replay"), "-")))
    w("")
    if searched:
        best, fail = search_summary(searched["entries"])
        w("## Largest graphs the MILP proves within %s s" % searched["time_limit"])
        w("")
        w("From `%s` (%s, remat `%s`): per family and budget level, depths ascending, a level stops at its "
          "first depth not proven (optimal or infeasible) within the limit. Sizes: top-level ops / MILP nodes; "
          "model size of the largest proven solve." % (searched["command"], searched["date"], searched["git"]))
        w("")
        rows = {(g.get("family"), g.get("depth"), r["budget"]): r for g in graphs for r in g["rows"]}
        w("| family | budget | largest proven | ops / nodes | variables (binary) / constraints | status, solve s | plan replayed, run, fits | default gap | first not proven (best, bound) |")
        w("|---|---|---|---|---|---|---|---|---|")
        fams = []
        for e in searched["entries"]:
            if (e["family"], e["budget"]) not in fams:
                fams.append((e["family"], e["budget"]))
        for key in fams:
            b, f = best.get(key), fail.get(key)
            r = rows.get((key[0], b["depth"], key[1])) if b else None
            o = r["optimum"] if r else {}
            deepest = max(e["depth"] for e in searched["entries"] if e["family"] == key[0])
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |"
              % (key[0], key[1], "`%s`" % b["spec"] if b else "none",
                 "%d / %d" % (b["ops"], b["milp_nodes"]) if b else "-",
                 "%d (%d) / %d" % (b["variables"], b["binary_variables"], b["constraints"]) if b else "-",
                 "%s, %.0f" % (b["status"], b["solve_time_s"]) if b else "-",
                 ("yes (measured peak %d <= %d%s)" % (o["measured_peak_bytes"], r["budget_bytes"],
                                                       "" if o.get("objective_matches_replay") else
                                                       "; replays cheaper than the objective: moves")
                  if o.get("plan_optimal") else
                  "NO: plan recovery hit its time limit (a non-optimal plan replayed and fit)"
                  if o.get("verified") else "NO") if r and b["optimal"] else "-",
                 fmt_gap(r["default_gap_pct"]) if r and r["default_gap_pct"] is not None else
                 ">= %s" % fmt_gap(r["default_gap_min_pct"]) if r and r.get("default_gap_min_pct") is not None
                 else "-",
                 "depth %d, %d nodes: %s (%s, %s)" % (f["depth"], f["milp_nodes"], f["status"],
                                                      fmt_s(f["objective_s"]), fmt_s(f["bound_s"]))
                 if f else "none up to depth %d (the largest searched)" % deepest))
        w("")
    if scaling:
        w("## Pass time on a %d-op step" % (scaling.get("num_ops") or 0))
        w("")
        w("`scripts/gen_examples.py %s`, planner default. `plan` = planner search (`plan_time_s`), "
          "`pass` = the whole pass (graph and in-place analysis, search, rewrite; `pass_time_s`; the rewritten "
          "function's peak is the plan's exact simulation, checked against a fresh analysis by remat-opt after the "
          "pass; naming the decisions' values for the report is `naming_time_s`, not included), `parse` = parsing "
          "the same file in the same run (`parse_time_s`). remat's own in-place analysis "
          "decides this step (docs/memory-model.md; before 2026-12-01 only such generated steps escaped MLIR's "
          "One-Shot analysis, which took 0.083 s here, about the parse time, in an instrumented run). The target "
          "holds on this step, not on every step: on the torch-mlir exports, denser in planning work per op "
          "(figures of 2026-11-30, with MLIR's analysis then), `--budget=70%%` took pass 0.081 s / parse 0.016 s on gpt2.bench (1,367 ops), 0.068 / 0.030 on "
          "resnet18.ci, 0.045 / 0.017 on vit.ci (same machine, 2026-11-30)." % scaling["spec"])
        w("")
        w("| budget | run | plan s | pass s | parse s | plan / parse | pass / parse | remat-opt wall s | budget met |")
        w("|---|---|---|---|---|---|---|---|---|")
        for k, x in enumerate(scaling["runs"]):
            w("| %s | %d | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f | %s |"
              % (x["budget"], k % meta["repeats"] + 1, x["plan_time_s"], x["pass_time_s"], x["parse_time_s"],
                 x["plan_time_s"] / x["parse_time_s"], x["pass_time_s"] / x["parse_time_s"], x["wall_s"],
                 x["budget_met"]))
        pr = [x["plan_time_s"] / x["parse_time_s"] for x in scaling["runs"]]
        sr = [x["pass_time_s"] / x["parse_time_s"] for x in scaling["runs"]]
        w("")
        w("Median plan time %.3f s (target < 1 s), plan/parse %.2f (target <= 1); median pass time %.3f s, "
          "pass/parse %.2f." % (statistics.median(x["plan_time_s"] for x in scaling["runs"]), statistics.median(pr),
                                statistics.median(x["pass_time_s"] for x in scaling["runs"]), statistics.median(sr)))
        w("")
    w("## Commands")
    w("")
    w("Every command is in the .json next to this file (`meta.commands`). Generators, then those of the "
      "first graph's first budget (the other rows differ in file names and budgets):")
    w("")
    w("```")
    cmds = meta["commands"]
    for c in cmds:
        if "gen_examples.py" in c:
            w(c)
    first = [c for c in cmds if "gen_examples.py" not in c]
    shown = 0
    for c in first:
        w(c)
        shown += 1
        if "remat-run" in c and shown > 6:
            break
    w("```")
    w("")
    open(path, "w").write("\n".join(L))


def main():
    ensure_venv()
    sys.path.insert(0, BENCH)
    import milp

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="two small graphs, 20 s per solve, no scaling repeats")
    ap.add_argument("--time-limit", type=float, help="seconds per MILP solve (default 60, --quick 20)")
    ap.add_argument("--moves-time-limit", type=float, default=0.0,
                    help="also try the exact model with moves for this many seconds per budget (default off)")
    ap.add_argument("--search", action="store_true",
                    help="only the search: per family and budget level, the largest graph the MILP proves "
                         "within --search-time-limit; writes bench/results/milp-search.json, which the table "
                         "run then includes (hours)")
    ap.add_argument("--search-time-limit", type=float, default=600.0)
    ap.add_argument("--families", help="with --search: comma-separated subset (mlp,resnet,cnn,transformer); "
                                       "their entries replace those in milp-search.json")
    ap.add_argument("--depths", help="with --search --families: only these depths (comma-separated); "
                                     "entries of other depths are kept")
    ap.add_argument("--only", help="with --search: exactly these solves, FAMILY:DEPTHS:LEVELS comma-separated, "
                                   "DEPTHS and LEVELS '/'-separated (e.g. 'mlp:3:90%%/1.1xLB,resnet:2/3:90%%'); "
                                   "none is skipped after an unproven one; their entries replace those in "
                                   "milp-search.json, the others are kept")
    ap.add_argument("--from-search", action="store_true",
                    help="the table over the graphs and budgets of results/milp-search.json instead of the fixed "
                         "graph list: the search's solves are the optimum's proof; each proven optimum's plan is "
                         "replayed (recovered with the proven bound as objective floor when the search kept no "
                         "plan file)")
    ap.add_argument("--search-json", default=os.path.join(BENCH, "results", "milp-search.json"),
                    help="the size search's results (default bench/results/milp-search.json)")
    ap.add_argument("--reuse-plans", action="store_true",
                    help="with --from-search: reuse the plans the previous run recovered (its .json and plan files) "
                         "instead of solving again")
    ap.add_argument("--rerender", action="store_true",
                    help="rewrite the markdown report from its .json (measured figures) without running anything")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--graphs", help="comma-separated subset of the graph names")
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"), help="build tree with bin/remat-opt")
    ap.add_argument("--work", default=os.path.join(BENCH, "work"), help="scratch directory (gitignored)")
    ap.add_argument("--out", help="markdown report (default bench/results/planners.md, quick: planners-quick.md)")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.build, "bin", "remat-opt")):
        sys.exit("no %s/bin/remat-opt: build it first:\n  cmake -G Ninja -S %s -B %s -DCMAKE_BUILD_TYPE=Release "
                 "&& ninja -C %s" % (a.build, ROOT, a.build, a.build))
    time_limit = a.time_limit or (20.0 if a.quick else 60.0)
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(os.path.join(BENCH, "results"), exist_ok=True)
    out = a.out or os.path.join(BENCH, "results", "planners-quick.md" if a.quick else "planners.md")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    if a.rerender:
        doc = json.load(open(out[:-3] + ".json"))
        for g in doc["graphs"]:
            for r in g["rows"]:
                compute_gaps(r)
        doc["meta"]["rerendered"] = "python3 bench/compare_planners.py " + " ".join(sys.argv[1:])
        searched = json.load(open(a.search_json)) if doc["meta"].get("from_search") else None
        write_markdown(out, doc["meta"], doc["graphs"], doc["scaling"], searched)
        json.dump(doc, open(out[:-3] + ".json", "w"), indent=1)
        log("rewrote %s from its .json" % os.path.relpath(out, ROOT))
        return
    commands = []
    R = Runner(a.build, a.work, commands)
    meta = {"command": "python3 bench/compare_planners.py " + " ".join(sys.argv[1:]),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "machine": machine(), "time_limit": time_limit,
            "search_time_limit": a.search_time_limit, "repeats": 1 if a.quick else 3}
    m = meta["machine"]
    log("machine: %s, %s cores, %s; highspy %s; remat %s" % (m["cpu"], m["cores"], m["memory"], m["highspy"],
                                                            m["git"]))
    if m["uncommitted_sources"]:
        log("note: uncommitted changes in %s" % ", ".join(m["uncommitted_sources"]))
    log("command: %s" % meta["command"])
    graphs = QUICK_GRAPHS if a.quick else FULL_GRAPHS
    if a.graphs:
        want = a.graphs.split(",")
        graphs = [g for g in FULL_GRAPHS + [x for x in QUICK_GRAPHS if x not in FULL_GRAPHS] if g[0] in want]
    t0 = time.perf_counter()
    search_json = a.search_json
    if a.search:
        if a.depths and not a.families:
            sys.exit("--depths needs --families")
        if a.only and (a.families or a.depths):
            sys.exit("--only replaces --families and --depths")
        only = parse_only(a.only) if a.only else None
        fams = sorted({f for f, _, _ in only}) if only else a.families.split(",") if a.families else None
        depths = [int(x) for x in a.depths.split(",")] if a.depths else None
        old = json.load(open(search_json)) if fams and os.path.exists(search_json) else None
        previous = old["entries"] if old else ()

        def save(entries):
            doc = {"command": meta["command"], "date": meta["date"], "git": m["git"], "machine": m,
                   "time_limit": a.search_time_limit, "entries": entries, "commands": commands}
            if old:
                # Replace only the searched families (with --depths, only those
                # depths); entries of earlier runs keep the commit they ran at.
                for e in old["entries"]:
                    e.setdefault("git", old["git"])
                done = {(e["family"], e["depth"], e["budget"]) for e in entries}
                kept = [e for e in old["entries"] if (e["family"], e["depth"], e["budget"]) not in done
                        and (depths or only or e["family"] not in fams)]
                order = [f for f, _, _ in SEARCH_FAMILIES]
                doc["entries"] = sorted(kept + entries, key=lambda e: (order.index(e["family"]), e["depth"]))
                doc["command"] = old["command"] + "; " + meta["command"]
                doc["date"] = old["date"] + "; " + meta["date"]
                doc["git"] = ", ".join(sorted({e["git"] for e in doc["entries"]}))
                doc["commands"] = old.get("commands", []) + commands
            tmp = search_json + ".tmp"
            json.dump(doc, open(tmp, "w"), indent=1)
            os.replace(tmp, search_json)

        save(search(R, milp, a.search_time_limit, m["git"], fams, depths, previous, save, only))
        log("wrote %s (%.0f s)" % (os.path.relpath(search_json, ROOT), time.perf_counter() - t0))
        return
    searched = json.load(open(search_json)) if os.path.exists(search_json) and not a.quick else None
    if a.from_search:
        if not searched:
            sys.exit("--from-search: no %s (run --search first)" % os.path.relpath(search_json, ROOT))
        meta["time_limit"] = a.search_time_limit
        meta["from_search"] = True
        previous = None
        if a.reuse_plans and os.path.exists(out[:-3] + ".json"):
            pdoc = json.load(open(out[:-3] + ".json"))
            previous = {(g["name"], r["budget"], r["budget_bytes"]): r["optimum"]
                        for g in pdoc["graphs"] for r in g["rows"]}
            previous["_run"] = "`%s`, %s" % (pdoc["meta"]["command"], pdoc["meta"]["date"])
            meta["plans_reused_from"] = previous["_run"]
        results = run_from_search(R, milp, searched, a.search_time_limit, previous)
    else:
        results = [run_graph(R, milp, n, s, time_limit, a.moves_time_limit) for n, s in graphs]
    scaling = None if a.no_scaling else run_scaling(R, meta["repeats"])
    meta["commands"] = commands
    meta["total_s"] = time.perf_counter() - t0
    write_markdown(out, meta, results, scaling, searched)
    json.dump({"meta": meta, "graphs": results, "scaling": scaling}, open(out[:-3] + ".json", "w"), indent=1)
    log("wrote %s (%.0f s)" % (os.path.relpath(out, ROOT), meta["total_s"]))


if __name__ == "__main__":
    main()
