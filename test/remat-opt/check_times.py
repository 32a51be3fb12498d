"""Checks the timing and memory fields of a remat-opt JSON report.

  check_times.py REPORT.json PHASE...
Every function must have `pass_time_s`, `total_time_s`, `phase_times_s` with
every phase key (numbers, none negative) and `max_rss_bytes` over 1 MB; the
PHASEs named must be positive in the first function (the ones that ran), and
the phases (but in_place_analysis, a part of graph_build and reanalysis) must
add up to no more than total_time_s. Prints "OK" or the violations.
Times are not compared with fixed values: they differ from run to run.
"""
import json
import sys

PHASES = ["graph_build", "in_place_analysis", "lower_bound", "fuse", "plan", "rewrite", "naming", "reanalysis",
          "variants", "export_graph", "report"]


def number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def main():
    functions = json.load(open(sys.argv[1]))["functions"]
    ran = sys.argv[2:]
    problems = []
    if not functions:
        problems.append("no functions")
    for f in functions:
        name = f.get("name")
        for key in ("pass_time_s", "total_time_s", "parse_time_s"):
            if not number(f.get(key)) or f[key] < 0:
                problems.append(f"{name}: {key} = {f.get(key)!r}")
        if not (number(f.get("pass_time_s")) and f["pass_time_s"] > 0):
            problems.append(f"{name}: pass_time_s not positive")
        phases = f.get("phase_times_s")
        if not isinstance(phases, dict) or sorted(phases) != sorted(PHASES):
            problems.append(f"{name}: phase_times_s keys {sorted(phases or {})}")
            continue
        for key, value in phases.items():
            if not number(value) or value < 0:
                problems.append(f"{name}: phase {key} = {value!r}")
        disjoint = sum(v for k, v in phases.items() if k != "in_place_analysis")
        # The total is measured around the phases: never less than their sum
        # (a microsecond of slack for the rounding of %.6g).
        if number(f.get("total_time_s")) and disjoint > f["total_time_s"] * 1.001 + 1e-6:
            problems.append(f"{name}: phases add up to {disjoint}, over total_time_s {f['total_time_s']}")
        if phases["in_place_analysis"] > phases["graph_build"] + phases["reanalysis"] + 1e-6:
            problems.append(f"{name}: in_place_analysis over graph_build + reanalysis")
        rss = f.get("max_rss_bytes")
        if not (isinstance(rss, int) and rss > 1 << 20):
            problems.append(f"{name}: max_rss_bytes = {rss!r}")
    for key in ran:
        if functions and not functions[0].get("phase_times_s", {}).get(key, 0) > 0:
            problems.append(f"{functions[0].get('name')}: phase {key} did not run")
    print("OK" if not problems else "\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
