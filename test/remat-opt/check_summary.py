"""check_summary.py STDERR REPORT_JSON: the summary lines of remat-opt on
stderr give the numbers of its JSON report, function by function."""
import json
import re
import sys

LINE = re.compile(r"remat-opt: @(\S+): peak (\d+) -> (\d+) bytes \(([\d.]+)%\), budget (\d+) bytes, "
                  r"recompute ([\d.]+)% of the step's flops \(([-\d.e+]+) of ([-\d.e+]+)\), (\d+) decisions?$")
lines = [LINE.match(l.strip()) for l in open(sys.argv[1]) if l.startswith("remat-opt: @")]
report = json.load(open(sys.argv[2]))["functions"]
assert len(lines) == len(report) and all(lines), (lines, len(report))
for m, f in zip(lines, report):
    name, before, after, pct, budget, share, rflops, bflops, decisions = m.groups()
    assert name == f["name"].lstrip("@"), (name, f["name"])
    assert int(before) == f["peak_bytes_before"] and int(after) == f["peak_bytes_after"], (m.groups(), f)
    assert int(budget) == f["budget_bytes"], (budget, f["budget_bytes"])
    assert abs(float(rflops) - f["recompute_flops"]) <= 1e-5 * max(1.0, f["recompute_flops"]), (rflops, f)
    assert abs(float(bflops) - f["baseline_flops"]) <= 1e-5 * f["baseline_flops"], (bflops, f)
    assert abs(float(share) - 100 * f["recompute_flops"] / f["baseline_flops"]) < 0.006, share
    assert abs(float(pct) - 100 * f["peak_bytes_after"] / f["peak_bytes_before"]) < 0.06, pct
    assert int(decisions) == len(f["decisions"]), (decisions, len(f["decisions"]))
print("summary matches the report: %d function(s)" % len(lines))
