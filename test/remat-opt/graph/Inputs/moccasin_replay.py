"""Replays remat-opt --graph's plan of a node-link graph (--report=json) under
MOCCASIN's own memory model (bench/nodelink.py's peak_of_schedule, every
original at its stage) and prints its peak and recompute cost there, next to
what remat-opt reported. Arguments: bench's directory, the graph, the report."""
import json
import sys

sys.path.insert(0, sys.argv[1])
import anchor_search  # noqa: E402
import nodelink  # noqa: E402

g = nodelink.load(sys.argv[2])
f = json.load(open(sys.argv[3]))["functions"][0]
clones = list(dict.fromkeys((d["op"], d["anchor"]) for d in f.get("decisions", [])))
peak, cost = anchor_search.evaluate(g, clones)
print("remat peak %d cost %g budget %d met %s" % (f["peak_bytes_after"], f["recompute_cost"], f["budget_bytes"],
                                                  f["budget_met"]))
print("moccasin peak %d cost %g same %s" % (peak, cost, peak == f["peak_bytes_after"] and cost == f["recompute_cost"]))
