"""Checks bench/curves.py's JSON (argv[1]) for test/bench/curves.test: prints one line per
property, each `name True|False` (the test's FileCheck lines expect True)."""
import json
import sys

d = json.load(open(sys.argv[1]))
inp = d["inputs"][0]
rows = inp["rows"]
pl = d["planners"]
print("inputs", [i["input"] for i in d["inputs"]], "planners", pl)
print("labels", [r["budget"] for r in rows])
print("header", all(k in d for k in ("machine", "git", "command", "date")), bool(d["git"]))
print("descending", all(a["budget_bytes"] > b["budget_bytes"] for a, b in zip(rows, rows[1:])))
print("skipped", inp.get("skipped_under_lower_bound"), "over_lb", all(r["budget_bytes"] >= inp["lower_bound_bytes"]
                                                                        for r in rows))
full = rows[0]["planners"]
print("full_zero", rows[0]["budget_bytes"] == inp["peak_bytes"] and
      all(e["met"] and e["recompute_flops"] == 0 and e["recompute_pct_flops"] == 0.0 for e in full.values()))
cells = [(r, e) for r in rows for e in r["planners"].values()]
# A met budget's planned (and rewritten) peak fits it; a missed one's does not.
print("met_fits", all(e["peak_bytes_after"] <= r["budget_bytes"] for r, e in cells if e["met"]))
print("missed_over", all(e.get("peak_bytes_after", r["budget_bytes"] + 1) > r["budget_bytes"] or e["exit_code"] != 0
                         for r, e in cells if not e["met"]))
# The recompute cost bound is a bound: no met plan costs less; it grows as the budget shrinks.
print("bound_holds", all(e["recompute_time_s"] >= e["recompute_cost_bound"] * (1 - 1e-6) for r, e in cells
                         if e["met"] and e.get("recompute_cost_bound") is not None))
b = [r["planners"]["default"].get("recompute_cost_bound") for r in rows]
print("bound_monotone", all(x is not None and y is not None and x <= y * (1 + 1e-9) for x, y in zip(b, b[1:])))
print("default_met_all", all(r["planners"]["default"]["met"] for r in rows))
missed = [e for r, e in cells if not e["met"]]
print("missed_have_smallest", bool(missed) and all(e.get("smallest_budget_known_bytes", 0) > 0 for e in missed))
