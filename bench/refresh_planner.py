#!/usr/bin/env python3
"""Re-runs one planner on every row of results/planners.json, without the MILP.

    python3 bench/refresh_planner.py [--planner sqrt] [--build build] [--json bench/results/planners.json]

For each graph of the table: regenerates the step (`scripts/gen_examples.py SPEC`, the
graph's recorded spec), checks that its op count is the table's, runs `remat-opt
--planner=P --budget=BYTES` at every row's budget and replaces that planner's entry (a
plan that fits is also run by remat-run: measured peak and outputs bit-identical to the
unchanged step, recorded in the entry). The other columns (greedy, default, the optimum
and its proof) are left as the last full run made them; the json's meta records what
was refreshed, when and with which build, and the markdown is rewritten from the json
(`compare_planners.py --rerender`). Use it when only one planner changed (e.g. sqrt
rewritten as Chen et al.'s segments) and the optimal plans are not at hand
(bench/work/ is not committed; `--from-search` would re-solve them).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--planner", default="sqrt")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--json", default=os.path.join(BENCH, "results", "planners.json"))
    a = ap.parse_args()
    opt = os.path.join(a.build, "bin", "remat-opt")
    run = os.path.join(a.build, "bin", "remat-run")
    work = os.path.join(BENCH, "work", "refresh")
    os.makedirs(work, exist_ok=True)
    doc = json.load(open(a.json))
    changed = same = 0
    for g in doc["graphs"]:
        mlir = os.path.join(work, g["name"] + ".mlir")
        p = sh([sys.executable, os.path.join(ROOT, "scripts", "gen_examples.py")] + g["spec"].split() + ["-o", mlir])
        if p.returncode:
            sys.exit("gen_examples.py %s: %s" % (g["spec"], p.stderr.strip()))
        rep = os.path.join(work, g["name"] + ".est.json")
        sh([opt, "--estimate", mlir, "-o", os.devnull, "--report=json", "--report-file=" + rep])
        f = json.load(open(rep))["functions"][0]
        if f["num_ops"] != g["ops"]:
            sys.exit("%s: %d ops, the table has %d: not the table's graph" % (g["name"], f["num_ops"], g["ops"]))
        base = json.loads(sh([run, "--json", mlir]).stdout)
        for r in g["rows"]:
            out = os.path.join(work, "%s.%s.%s" % (g["name"], r["budget"].replace("%", "pct"), a.planner))
            p = sh([opt, "--planner=" + a.planner, "--budget=%d" % r["budget_bytes"], mlir, "-o", out + ".mlir",
                    "--report=json", "--report-file=" + out + ".json"])
            x = json.load(open(out + ".json"))["functions"][0] if os.path.exists(out + ".json") else {}
            met = p.returncode == 0 and x.get("budget_met", False)
            e = {"met": met, "rc": p.returncode, "recompute_time_s": x.get("recompute_time_s"),
                 "peak_bytes_after": x.get("peak_bytes_after"), "plan_time_s": x.get("plan_time_s"),
                 "pass_time_s": x.get("pass_time_s"), "parse_time_s": x.get("parse_time_s"),
                 "error": None if met else p.stderr.strip()}
            if met:
                m = json.loads(sh([run, "--json", out + ".mlir"]).stdout)
                e["measured_peak_bytes"] = m["peak_bytes"]
                e["outputs_identical"] = [o["checksum"] for o in m["outputs"]] == [o["checksum"] for o in base["outputs"]]
                if not e["outputs_identical"] or m["peak_bytes"] > r["budget_bytes"]:
                    sys.exit("%s at %s: %s's plan runs with a peak of %d or different outputs"
                             % (g["name"], r["budget"], a.planner, m["peak_bytes"]))
            old = r["planners"].get(a.planner, {})
            key = lambda d: (d.get("met"), d.get("recompute_time_s") if d.get("met") else None)
            changed += key(old) != key(e)
            same += key(old) == key(e)
            print("%-22s %-7s %s: %s -> %s" % (g["name"], r["budget"], a.planner,
                                             "%.4g" % old["recompute_time_s"] if old.get("met") else "not met",
                                             "%.4g" % e["recompute_time_s"] if met else "not met"), flush=True)
            r["planners"][a.planner] = e
    git = sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip()
    doc["meta"].setdefault("refreshed", []).append({
        "planner": a.planner, "command": "python3 bench/refresh_planner.py " + " ".join(sys.argv[1:]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "git": git,
        "changed": changed, "unchanged": same})
    json.dump(doc, open(a.json, "w"), indent=1)
    out_md = a.json[:-5] + ".md"
    p = sh([sys.executable, os.path.join(BENCH, "compare_planners.py"), "--rerender", "--out", out_md,
            "--build", a.build])
    if p.returncode:
        sys.exit(p.stderr)
    print("%d rows changed, %d unchanged; %s rewritten" % (changed, same, out_md))


if __name__ == "__main__":
    main()
