"""bench/milp.py's plan lines of a hand-made schedule on a node-link graph
(bench/nodelink.py): every original is kept (the papers' model), so a clone
that only an original reads is a plan line too, and the originals count
in the cost. Graph: 0 -> 1, 1 -> 3, 2 -> 3. Schedule: stage 1 recomputes
node 0 for node 1; stage 3 recomputes nodes 0 and 1 for node 3, so nobody
reads the original outputs of 0 and 1 (remat erases such originals in an
MLIR step, a move; the papers' model runs them)."""
import json
import os
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
import milp  # noqa: E402
import nodelink  # noqa: E402

graph = {"directed": True, "graph": {}, "nodes": [{"id": i, "cost_cpu": 1, "cost_ram": 10} for i in range(4)],
         "links": [{"source": s, "target": t} for s, t in ((0, 1), (1, 3), (2, 3))]}
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "g.json")
    with open(path, "w") as f:
        json.dump(graph, f)
    g = nodelink.load(path)
nodes, extra, _ = milp.coarsen(nodelink.to_export(g))
runs = [[0], [0, 1], [2], [0, 1, 3]]
peak, cost, alive, _ = milp.simulate(nodes, runs, extra)
lines = milp.plan_lines(nodes, runs, alive)
print("plan", " ".join("%d@%d" % (op, anchor) for _, op, anchor in lines))
print("cost", cost, "peak", peak)
sched = []
for t in range(len(nodes)):
    sched += sorted(op for _, op, anchor in lines if anchor == t) + [t]
print("moccasin peak", nodelink.peak_of_schedule(g, sched))
