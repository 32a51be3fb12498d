#!/usr/bin/env python3
"""A rewritten step (any planner's output) as a schedule of milp.py's coarse graph.

    plan_map.py ORIGINAL.json REWRITTEN.json [--plan-out P.txt]

Both graphs from `remat-opt --estimate --export-graph=...` (the original step and the
planner's rewritten one). remat-opt prints no locations, so the rewritten ops are
matched to the original's by dataflow (op_map: same op name, reads matching position by
position, refined from the readers back); every rewritten op that maps to a node's last
op that allocates or writes is one execution of that node, in program order. The
executions are laid out as milp.py's runs (stage t = the clones anchored at node t's
first op, in node order, then node t): stages are assigned greedily in program order
(a new stage where the node index does not increase), originals free to move (the
exact model with moves). milp.py's simulate() then gives the schedule's peak, recompute
cost and alive instances; run alone, this prints them with the report's numbers, and
--plan-out writes the schedule as a plan file (replayable with remat-opt --plan-file).

Used by bench/plan_bound_check.py (a plan's executions fixed in recompute_bound.py's
relaxation) and to hand a planner's plan to the solvers as a start.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import milp  # noqa: E402


class MapError(Exception):
    pass


def op_map(orig_fn, new_fn, rounds=6):
    """Candidate original ops of each rewritten op: same name, same number of reads, each
    read a candidate of the original read at that position (arguments by position; ops
    without reads by name and result bytes), refined backwards from the readers; the
    rewritten step's printout has no locations, so the dataflow is the only key."""
    ov, nv = orig_fn["values"], new_fn["values"]
    oargs = [v["id"] for v in ov if v["def"] < 0]
    nargs = [v["id"] for v in nv if v["def"] < 0]
    if len(oargs) != len(nargs):
        raise MapError("argument counts differ")
    by_name = {}
    for o in orig_fn["ops"]:
        by_name.setdefault((o["name"], len(o["reads"]), len(o["results"])), []).append(o)
    vc = {n: {o} for n, o in zip(nargs, oargs)}  # rewritten value -> candidate original values
    oc = {}
    for _ in range(rounds):
        changed = False
        for o in new_fn["ops"]:
            cands = []
            for c in by_name.get((o["name"], len(o["reads"]), len(o["results"])), []):
                if not o["reads"] and [ov[r]["bytes"] for r in c["results"]] != [nv[r]["bytes"] for r in o["results"]]:
                    continue
                if all(cr in vc.get(r, ()) for r, cr in zip(o["reads"], c["reads"])):
                    cands.append(c["id"])
            if o["id"] in oc:
                cands = [c for c in cands if c in oc[o["id"]]]
            if oc.get(o["id"]) != set(cands):
                changed = True
            oc[o["id"]] = set(cands)
            for k, r in enumerate(o["results"]):
                s = {orig_fn["ops"][c]["results"][k] for c in cands}
                if r in vc:
                    s &= vc[r]
                vc[r] = s
        # backwards: a read's candidates are those the reader's candidates read there
        for o in reversed(new_fn["ops"]):
            cs = oc[o["id"]]
            for p, r in enumerate(o["reads"]):
                if nv[r]["def"] < 0:
                    continue
                s = {orig_fn["ops"][c]["reads"][p] for c in cs}
                if vc[r] - s:
                    vc[r] &= s
                    changed = True
        for o in new_fn["ops"]:
            for k, r in enumerate(o["results"]):
                keep = {c for c in oc[o["id"]] if orig_fn["ops"][c]["results"][k] in vc[r]}
                if keep != oc[o["id"]]:
                    oc[o["id"]] = keep
                    changed = True
        if not changed:
            break
    return oc


def executions(orig_fn, new_fn, nodes=None):
    """The sequence of node indices executed by the rewritten step, in program order:
    each rewritten op mapped to the node of its original (op_map), one execution per
    op that is its node's last op that allocates or writes (milp.py's Node.last)."""
    if nodes is None:
        nodes = milp.coarsen(orig_fn)[0]
    last = {n.last: n.idx for n in nodes}  # its last op that allocates or writes (views may come later)
    oc = op_map(orig_fn, new_fn)
    ops = orig_fn["ops"]
    seq, turns = [], {}
    for o in new_fn["ops"]:
        cands = sorted(oc[o["id"]])
        if len(cands) > 1 and len({(ops[c]["name"], tuple(ops[c]["reads"])) for c in cands}) == 1 and \
                not any(ops[c]["results"] for c in cands):
            # Copies of one op that dataflow cannot tell apart (the same reads, no result:
            # e.g. the index checks fusion leaves beside each consumer of a gather): taken in
            # turn, in program order, as the original runs them.
            k = turns.get(tuple(cands), 0)
            turns[tuple(cands)] = k + 1
            cands = [cands[k % len(cands)]]
        keys = {last[c] for c in cands if c in last}
        if not keys:
            continue
        if len(keys) > 1 or len(cands) > 1:
            raise MapError("rewritten op %d (%s) matches several original ops: %s"
                           % (o["id"], o["name"], sorted(oc[o["id"]])))
        seq.append(keys.pop())
    return seq


def runs_of(seq, nodes):
    """Greedy stages for an execution sequence: (runs, stage of each execution)."""
    N = len(nodes)
    runs = [[] for _ in range(N)]
    s, prev = -1, N
    for i in seq:
        s = max(s + (1 if i <= prev else 0), i)
        if s >= N:
            raise MapError("the executions need more than %d stages" % N)
        if nodes[i].pinned and s != i:
            raise MapError("pinned node %d lands at stage %d" % (i, s))
        runs[s].append(i)
        prev = i
    for i, n in enumerate(nodes):
        if n.pinned and i not in runs[i]:
            raise MapError("pinned node %d does not run at its own stage" % i)
    return runs


def schedule(orig_fn, new_fn):
    nodes, extra, _ = milp.coarsen(orig_fn)
    seq = executions(orig_fn, new_fn, nodes)
    runs = runs_of(seq, nodes)
    peak, cost, alive, _ = milp.simulate(nodes, runs, extra)
    execs = [0] * len(nodes)
    for t, i in alive:
        execs[i] += 1
    return {"nodes": nodes, "extra": extra, "runs": runs, "peak": peak, "cost": cost, "alive": alive,
            "executions": execs, "dead": len(seq) - len(alive)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("original")
    ap.add_argument("rewritten")
    ap.add_argument("--plan-out")
    a = ap.parse_args()
    f0 = json.load(open(a.original))["functions"][0]
    f1 = json.load(open(a.rewritten))["functions"][0]
    try:
        s = schedule(f0, f1)
    except (MapError, milp.Unsupported, ValueError) as e:
        print("plan_map.py: %s" % e, file=sys.stderr)
        return 2
    print(json.dumps({"peak_bytes": s["peak"], "recompute_time_s": s["cost"], "dead_executions": s["dead"],
                      "extra_executions": sum(max(0, e - 1) for e in s["executions"]),
                      "rewritten_peak_bytes": f1["peak_bytes"]}))
    if a.plan_out:
        lines = milp.plan_lines(s["nodes"], s["runs"], s["alive"])
        with open(a.plan_out, "w") as f:
            f.write("# plan_map.py %s %s\n" % (a.original, a.rewritten))
            for l in lines:
                f.write("%d %d %d\n" % tuple(l))
    return 0


if __name__ == "__main__":
    sys.exit(main())
