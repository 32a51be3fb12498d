"""Compares remat-opt's plan of an MLIR step (--report=json) with its plan of
the same step's --export-graph file (remat-opt --graph --report=json): the
simulated peak and the recompute cost must be the same (the report rounds
recompute_time_s to 6 digits)."""
import json
import sys

mlir = json.load(open(sys.argv[1]))["functions"][0]
graph = json.load(open(sys.argv[2]))["functions"][0]
assert graph["peak_bytes_before"] == mlir["peak_bytes_before"], (graph["peak_bytes_before"], mlir["peak_bytes_before"])
assert graph["lower_bound_bytes"] == mlir["lower_bound_bytes"], (graph["lower_bound_bytes"], mlir["lower_bound_bytes"])
assert graph["peak_bytes_after"] == mlir["peak_bytes_planned"], (graph["peak_bytes_after"], mlir["peak_bytes_planned"])
assert float("%.6g" % graph["recompute_cost"]) == mlir["recompute_time_s"], (graph["recompute_cost"], mlir["recompute_time_s"])
print("same plan: peak %d bytes, recompute %.6g s" % (graph["peak_bytes_after"], graph["recompute_cost"]))
