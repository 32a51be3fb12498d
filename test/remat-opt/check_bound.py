"""Plans each input at each budget (remat-opt --report=json, MLIR or --graph)
and counts the functions whose recompute_cost_bound exceeds the recompute
cost of a plan within the budget (relative 1e-5: recompute_time_s is
printed to 6 digits).

    check_bound.py --opt REMAT_OPT [--graph] [--planners P,...] --budgets B,... --out PREFIX INPUT...
"""
import argparse
import json
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--opt", required=True)
ap.add_argument("--graph", action="store_true")
ap.add_argument("--planners", default="default")
ap.add_argument("--budgets", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("inputs", nargs="+")
a = ap.parse_args()
reports = met = bounded = above = positive = 0
for i, path in enumerate(a.inputs):
    for b in a.budgets.split(","):
        for p in a.planners.split(","):
            rep = "%s.%d.%s.%s.json" % (a.out, i, b.rstrip("%"), p)
            if a.graph:
                cmd = [a.opt, "--graph=" + path, "--budget=" + b, "--planner=" + p, "--report=json",
                       "--report-file=" + rep]
            else:
                cmd = [a.opt, "--budget=" + b, "--planner=" + p, path, "-o", "/dev/null", "--report=json",
                       "--report-file=" + rep]
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for f in json.load(open(rep))["functions"]:
                reports += 1
                cost = f.get("recompute_cost", f.get("recompute_time_s"))
                bound = f.get("recompute_cost_bound")
                met += bool(f["budget_met"])
                if bound is None:
                    print("%s %s: no bound: %s" % (path, b, f.get("recompute_cost_bound_note")))
                    continue
                bounded += 1
                positive += bound > 0
                if f["budget_met"] and bound > cost * (1 + 1e-5):
                    above += 1
                    print("%s %s %s: bound %r above the plan's cost %r" % (path, b, p, bound, cost))
print("%d reports, %d with a plan within the budget, %d bounded, %d above the plan's cost, %d with a bound > 0"
      % (reports, met, bounded, above, positive))
