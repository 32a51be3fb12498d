#!/usr/bin/env python3
"""Shrinks a step that shows a planner problem (docs/fuzzing.md).

    fuzz/reduce.py STEP.mlir PLANNER KIND BUDGET[,BUDGET...] > SMALL.mlir

KIND: mismatch (the plan's simulated peak differs from the rewritten function's,
which remat-opt reports as an internal error) or raise (the rewrite has a higher
peak than the input). Deletes top-level ops of @step, passing their results in as
new function arguments, and drops returned values, as long as remat-opt still shows
the problem at one of the budgets. NO_DEAD=1 refuses candidates with unused results
(dead code that a real pipeline would remove); REMAT_OPT names the remat-opt binary
(default: build/bin/remat-opt). Expects the generator's layout: one op per line, a
region's ops between a line ending in '{' and its closing '}'.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPT = os.environ.get("REMAT_OPT", os.path.join(ROOT, "build", "bin", "remat-opt"))


def parse(text):
    """(lines before the header, header, ops as line groups, return line, lines after)."""
    lines = text.split("\n")
    hi = next(i for i, l in enumerate(lines) if "func.func @step" in l)
    ri = next(i for i, l in enumerate(lines) if l.strip().startswith("return "))
    ops, i = [], hi + 1
    while i < ri:
        j = i
        if lines[i].rstrip().endswith("{"):
            depth = 1
            while depth:
                j += 1
                depth += lines[j].count("{") - lines[j].count("}")
        ops.append(lines[i:j + 1])
        i = j + 1
    return lines[:hi], lines[hi], ops, lines[ri], lines[ri + 1:]


def build(pre, header, ops, ret, post):
    return "\n".join(pre + [header] + [l for op in ops for l in op] + [ret] + post)


def defined(op):
    m = re.match(r"\s*(%\w+) = ", op[0])
    return m.group(1) if m else None


def result_type(op):
    m = re.search(r"-> (tensor<[^>]*>)\s*$", op[-1])
    if m:
        return m.group(1)
    m = re.search(r"(?:into|to|:) (tensor<[^>]*>|f\d+|bf16)\s*$", op[0])
    return m.group(1) if m else None


def used(name, text):
    return re.search(re.escape(name) + r"\b", text) is not None


def has_dead(text):
    pre, header, ops, ret, post = parse(text)
    for k, op in enumerate(ops):
        name = defined(op)
        if name and not used(name, "\n".join(l for o in ops[k + 1:] for l in o) + "\n" + ret):
            return True
    return False


def shows_problem(text, planner, kind, budgets):
    if os.environ.get("NO_DEAD") and has_dead(text):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        step, report = os.path.join(tmp, "step.mlir"), os.path.join(tmp, "report.json")
        with open(step, "w") as f:
            f.write(text)
        for budget in budgets:
            if os.path.exists(report):
                os.unlink(report)
            r = subprocess.run([OPT, "--planner=" + planner, "--budget=" + budget, "--report=json",
                                "--report-file=" + report, step, "-o", os.devnull],
                               capture_output=True, text=True, timeout=120)
            if kind == "mismatch" and "simulation predicted" in r.stderr:
                return True
            if not os.path.exists(report) or os.path.getsize(report) == 0:
                continue
            with open(report) as f:
                data = json.load(f)
            for fn in data.get("functions", [data]):
                if kind == "mismatch" and fn.get("peak_bytes_planned", fn["peak_bytes_after"]) != fn["peak_bytes_after"]:
                    return True
                if kind == "raise" and fn["peak_bytes_after"] > fn["peak_bytes_before"]:
                    return True
    return False


def main():
    if len(sys.argv) != 5 or sys.argv[3] not in ("mismatch", "raise"):
        sys.exit(__doc__)
    path, planner, kind, budgets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
    text = open(path).read()
    if not shows_problem(text, planner, kind, budgets):
        sys.exit("reduce.py: %s does not show the problem to begin with" % path)
    fresh = 0
    changed = True
    while changed:
        changed = False
        pre, header, ops, ret, post = parse(text)
        # Drop returned values (keeping one), last first.
        m = re.match(r"(\s*return )(.*) : (.*)$", ret)
        values = [v.strip() for v in m.group(2).split(",")]
        types = re.findall(r"tensor<[^>]*>|f\d+", m.group(3))
        for k in range(len(values) - 1, -1, -1):
            if len(values) == 1:
                break
            hm = re.match(r"(.*\) -> \()(.*)(\) \{)$", header)
            if not hm:
                break
            htypes = re.findall(r"tensor<[^>]*>|f\d+", hm.group(2))
            nheader = hm.group(1) + ", ".join(htypes[:k] + htypes[k + 1:]) + hm.group(3)
            nvalues, ntypes = values[:k] + values[k + 1:], types[:k] + types[k + 1:]
            nret = m.group(1) + ", ".join(nvalues) + " : " + ", ".join(ntypes)
            candidate = build(pre, nheader, ops, nret, post)
            if shows_problem(candidate, planner, kind, budgets):
                text, header, ret, values, types = candidate, nheader, nret, nvalues, ntypes
                changed = True
                print("dropped result #%d" % k, file=sys.stderr)
        # Delete ops, last first; their results become arguments.
        pre, header, ops, ret, post = parse(text)
        for k in range(len(ops) - 1, -1, -1):
            op = ops[k]
            name, ty = defined(op), result_type(op)
            rest = ops[:k] + ops[k + 1:]
            needed = name and used(name, "\n".join(l for o in rest for l in o) + "\n" + ret)
            if needed and not ty:
                continue
            nheader, nret = header, ret
            if needed:
                arg = "%%reduced%d" % fresh
                fresh += 1
                rest = [[re.sub(re.escape(name) + r"\b", arg, l) for l in o] for o in rest]
                nret = re.sub(re.escape(name) + r"\b", arg, ret)
                nheader = header.replace(") -> (", ", %s: %s) -> (" % (arg, ty), 1)
            candidate = build(pre, nheader, rest, nret, post)
            if shows_problem(candidate, planner, kind, budgets):
                text, ops, ret, header = candidate, rest, nret, nheader
                changed = True
                print("deleted %s" % (name or "op #%d" % k), file=sys.stderr)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
