#!/usr/bin/env python3
"""Does a node-link graph have a plan under a budget the default planner misses?

    python3 bench/anchor_search.py GRAPH.json --budget 70% [--goal peak|cost]
                                   [--iterations 100000] [--seed 1] [--build build]
                                   [--plan-out PLAN.json]

Starts from `remat-opt --graph=GRAPH --budget=B`'s plan (its decisions: a clone
of op OP right before op ANCHOR, in remat's order positions) and searches
around it: one random move at a time (a clone's anchor moved 1-8 ops earlier or
later, a clone dropped, a clone of one of its inputs added at its anchor), kept
when it does not make the plan worse. `--goal peak` (default) lowers the peak
until it fits the budget, cost breaking ties; `--goal cost` lowers the
recompute cost while the peak fits. Clones at one anchor run in op order, as in
remat's schedules and Checkmate's stages, every original at its own stage (the
papers' model, as remat-opt --graph plans node-link graphs), and clones nobody
reads are not run. Peaks are MOCCASIN's own peak function's (bench/nodelink.py
peak_of_schedule, its util.get_mem_from_schedule). A bench tool, not a planner:
it shows where the default planner's floor is its search's and not the
budget's (bench/results/floor-experiments.md).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import nodelink  # noqa: E402


def alive_schedule(g, clones):
    """The schedule's instances that run, as remat-opt --graph runs them: every
    original at its own stage (Checkmate's and MOCCASIN's model,
    docs/planner.md), before it the clones anchored there in op order, less the
    clones nobody running reads. Returns (positions, whether each is a clone)."""
    at = {}
    for op, anchor in clones:
        at.setdefault(anchor, set()).add(op)
    seq, clone = [], []
    for p in range(len(g.ram)):
        for op in sorted(at.get(p, ())):
            seq.append(op)
            clone.append(True)
        seq.append(p)
        clone.append(False)
    latest, reads = {}, []
    for i, v in enumerate(seq):
        reads.append([latest[u] for u in g.preds[v]])
        latest[v] = i
    alive = [not c for c in clone]
    for i in range(len(seq) - 1, -1, -1):
        if alive[i]:
            for j in reads[i]:
                alive[j] = True
    keep = [i for i in range(len(seq)) if alive[i]]
    return [seq[i] for i in keep], [clone[i] for i in keep]


def evaluate(g, clones):
    """(peak, recompute cost) by MOCCASIN's peak function."""
    seq, clone = alive_schedule(g, clones)
    return nodelink.peak_of_schedule(g, seq), sum(g.cost[v] for v, c in zip(seq, clone) if c)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph")
    ap.add_argument("--budget", required=True, help="bytes or N%% of the given order's peak")
    ap.add_argument("--goal", choices=("peak", "cost"), default="peak")
    ap.add_argument("--iterations", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--plan-out", help="the plan reached, as [[op, anchor], ...]")
    a = ap.parse_args()
    g = nodelink.load(a.graph)
    n = len(g.ram)
    budget = int(g.peak * float(a.budget[:-1]) / 100.0) if a.budget.endswith("%") else int(a.budget)
    with tempfile.NamedTemporaryFile(suffix=".json") as rep:
        subprocess.run([os.path.join(a.build, "bin", "remat-opt"), "--graph=" + a.graph, "--budget=%d" % budget,
                        "--report=json", "--report-file=" + rep.name], capture_output=True, text=True)
        try:
            fn = json.load(open(rep.name))["functions"][0]
        except (ValueError, KeyError, IndexError):
            sys.exit("anchor_search: remat-opt made no plan for %s at %d bytes" % (a.graph, budget))
    clones = list(dict.fromkeys((d["op"], d["anchor"]) for d in fn.get("decisions", [])))
    best = evaluate(g, clones)
    print("default planner: peak %d, cost %g (replayed here: %d, %g), budget %d (%s)"
          % (fn["peak_bytes_after"], fn["recompute_cost"], best[0], best[1], budget,
             "met" if fn["budget_met"] else "not met"))
    rng = random.Random(a.seed)
    for it in range(a.iterations):
        if a.goal == "peak" and best[0] <= budget or not clones:
            break
        cand = list(clones)
        k = rng.randrange(len(cand))
        op, anchor = cand[k]
        move = rng.random()
        if move < 0.6:
            anchor -= rng.randint(1, 8)
        elif move < 0.8:
            anchor += rng.randint(1, 8)
        if move < 0.8:
            if not op < anchor < n:
                continue
            cand[k] = (op, anchor)
        elif move < 0.9:
            del cand[k]
        elif g.preds[op]:
            cand.append((rng.choice(g.preds[op]), anchor))
        cand = list(dict.fromkeys(cand))
        s = evaluate(g, cand)
        better = (s[0] < best[0] or s[0] == best[0] and s[1] <= best[1]) if a.goal == "peak" else \
            (s[0] <= budget and s[1] <= best[1])
        if better:
            clones, best = cand, s
    checked = nodelink.peak_of_schedule(g, alive_schedule(g, clones)[0])
    print("search (%s, %d iterations at most, seed %d): peak %d (MOCCASIN's peak function: %d), cost %g, "
          "%d clones: budget %s" % (a.goal, a.iterations, a.seed, best[0], checked, best[1], len(clones),
                                     "met" if checked <= budget else "not met"))
    if a.plan_out:
        with open(a.plan_out, "w") as f:
            json.dump(sorted(clones, key=lambda c: (c[1], c[0])), f)
    return 0 if checked <= budget else 1


if __name__ == "__main__":
    sys.exit(main())
