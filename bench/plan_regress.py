#!/usr/bin/env python3
"""Records the plans of remat-opt on the bundled examples, the ci exports and the
1k/4k/15k Llama exports of bench/scale at 70/50/35%, so that a change to the
planner can be checked for plans that got worse (or changed at all).

  bench/plan_regress.py record OUT.json [--build build | --opt REMAT_OPT] [--only SUBSTR]
  bench/plan_regress.py diff OLD.json NEW.json

A plan is identified by the sha256 of the rewritten IR; recompute_time_s and
peak_bytes_after come from the JSON report. Standard library only; runs one
remat-opt at a time (niced)."""
import glob, hashlib, json, lzma, os, re, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGETS = ["70%", "50%", "35%"]


def inputs():
    files = sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
    files += sorted(glob.glob(os.path.join(ROOT, "bench/models/ir/*.ci*.mlir.xz")))
    files += sorted(glob.glob(os.path.join(ROOT, "bench/models/zoo/ir/*.ci*.mlir.xz")))
    files += [os.path.join(ROOT, "bench/scale", f"llama-L{n}.mlir.xz") for n in (4, 17, 64)]
    return files


def plain(path, tmp):
    if not path.endswith(".xz"):
        return path
    out = os.path.join(tmp, os.path.relpath(path, ROOT).replace("/", "_")[:-3])
    if not os.path.exists(out):
        with lzma.open(path) as f, open(out, "wb") as g:
            g.write(f.read())
    return out


def record(out, opt, only):
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in inputs():
            rel = os.path.relpath(path, ROOT)
            if only and only not in rel:
                continue
            src = plain(path, tmp)
            for b in BUDGETS:
                ir, rep = os.path.join(tmp, "out.mlir"), os.path.join(tmp, "rep.json")
                for f in (ir, rep):
                    if os.path.exists(f):
                        os.remove(f)
                t0 = time.time()
                p = subprocess.run(["nice", opt, f"--budget={b}", "--report=json", f"--report-file={rep}",
                                    "--quiet", "-o", ir, src], capture_output=True, text=True)
                wall = time.time() - t0
                e = {"rc": p.returncode, "wall_s": round(wall, 3)}
                r = None
                if os.path.exists(rep):
                    try:
                        with open(rep) as f:
                            r = json.load(f)
                    except ValueError:
                        r = None
                if r is None:
                    e["error"] = p.stderr.strip().splitlines()[-1:]
                else:
                    fn = r["functions"][0] if "functions" in r else r
                    for k in ("recompute_time_s", "peak_bytes_after", "search_effort", "num_decisions"):
                        e[k] = fn.get(k)
                    e["plan_s"] = fn.get("phase_times_s", {}).get("plan")
                if os.path.exists(ir):
                    with open(ir, "rb") as f:
                        e["ir_sha"] = hashlib.sha256(f.read()).hexdigest()[:16]
                res[f"{rel}@{b}"] = e
                print(f"{rel}@{b}: {e}", flush=True)
    with open(out, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)


def _err(e):
    # The inputs are decompressed into a fresh temporary directory per run.
    return [re.sub(r"/tmp/[^/ ]*/", "", x) for x in e.get("error") or []]


def diff(old, new):
    a, b = json.load(open(old)), json.load(open(new))
    counts = {"identical": 0, "same cost": 0, "cheaper": 0, "worse": 0, "missing": 0}
    for k in sorted(a):
        x, y = a[k], b.get(k)
        if y is None:
            counts["missing"] += 1
            continue
        if x.get("ir_sha") == y.get("ir_sha") and x.get("rc") == y.get("rc") and _err(x) == _err(y):
            counts["identical"] += 1
            continue
        rx, ry = x.get("recompute_time_s"), y.get("recompute_time_s")
        okx, oky = x.get("rc") == 0, y.get("rc") == 0
        if okx and not oky or (okx and oky and ry > rx * (1 + 1e-9)):
            kind = "worse"
        elif (oky and not okx) or (okx and oky and ry < rx * (1 - 1e-9)):
            kind = "cheaper"
        else:
            kind = "same cost"
        counts[kind] += 1
        print(f"{kind:9s} {k}: rc {x.get('rc')}->{y.get('rc')} recompute {rx} -> {ry}, "
              f"peak {x.get('peak_bytes_after')} -> {y.get('peak_bytes_after')}, "
              f"plan_s {x.get('plan_s')} -> {y.get('plan_s')}")
    print(counts)
    return 1 if counts["worse"] or counts["missing"] else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "record":
        build = sys.argv[sys.argv.index("--build") + 1] if "--build" in sys.argv else "build"
        opt = os.path.join(ROOT, build, "bin", "remat-opt")
        if "--opt" in sys.argv:
            opt = os.path.abspath(sys.argv[sys.argv.index("--opt") + 1])
        only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
        record(sys.argv[2], opt, only)
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        sys.exit(diff(sys.argv[2], sys.argv[3]))
    else:
        print(__doc__)
        sys.exit(2)
