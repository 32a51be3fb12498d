#!/usr/bin/env python3
"""CP-SAT's least-peak search started from a planner's schedule.

    bench/.venv/bin/python bench/min_peak_from_plan.py ORIGINAL.json REWRITTEN.json
        [--time-limit 1200] [--workers 1] [--plan-out P.txt]

ORIGINAL.json and REWRITTEN.json: `remat-opt --estimate --export-graph=` of the step and
of a planner's rewritten step (e.g. default's at a budget it cannot meet: run it at the
peak it reaches). The rewritten step is mapped onto milp.py's coarse graph
(bench/plan_map.py), and bench/optimum.py's model (--model exact, --reads latest, the
peak as the objective, as `optimum.py --min-peak`) is solved with that schedule as a
hint and copy limits that admit it (the most executions of a node + 1). Prints each
schedule found (peak, CP-SAT's bound), the final status, and writes the best schedule
as a plan file (replayable with remat-opt --plan-file). Used on examples/transformer.mlir
at 1.1x its lower bound (issue 22, item 5; bench/README.md).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import milp  # noqa: E402
import optimum  # noqa: E402
import plan_map  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("original")
    ap.add_argument("rewritten")
    ap.add_argument("--time-limit", type=float, default=1200.0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--plan-out")
    a = ap.parse_args()
    from ortools.sat.python import cp_model
    f0 = json.load(open(a.original))["functions"][0]
    f1 = json.load(open(a.rewritten))["functions"][0]
    s = plan_map.schedule(f0, f1)
    nodes, extra, runs = s["nodes"], s["extra"], s["runs"]
    print("start: peak %d, recompute %.6g s, at most %d executions of a node"
          % (s["peak"], s["cost"], max(s["executions"])), flush=True)
    lu = milp.last_uses(nodes)
    copies = max(s["executions"]) + 1
    C = [1 if n.pinned else min(copies, max(i, lu[i]) - i + 1) for i, n in enumerate(nodes)]
    model = optimum.Model(nodes, extra, (f0["lower_bound_bytes"], f0["peak_bytes"]), "exact", C,
                          optimum.cost_unit(nodes), "latest")
    if not model.hint(runs):
        sys.exit("min_peak_from_plan.py: the schedule does not fit the copy limits")

    class Progress(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.t0 = time.time()

        def on_solution_callback(self):
            print("%.0f s: peak %d, bound %d" % (time.time() - self.t0, self.ObjectiveValue(),
                                                 self.BestObjectiveBound()), flush=True)

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = a.time_limit
    solver.parameters.num_workers = a.workers
    solver.parameters.random_seed = 0
    st = solver.Solve(model.m, Progress())
    print("status %s" % solver.StatusName(st), flush=True)
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        r = model.runs(solver)
        peak, cost, alive, _ = milp.simulate(nodes, r, extra)
        print("best: peak %d, recompute %.6g s; CP-SAT bound %d (copy-limited model)"
              % (peak, cost, solver.BestObjectiveBound()), flush=True)
        if a.plan_out:
            with open(a.plan_out, "w") as f:
                f.write("# min_peak_from_plan.py %s %s: peak %d, recompute %r s\n"
                        % (a.original, a.rewritten, peak, cost))
                for l in milp.plan_lines(nodes, r, alive):
                    f.write("%d %d %d\n" % tuple(l))
    return 0


if __name__ == "__main__":
    sys.exit(main())
