"""Whether a rewrite kept the input's op order: the op names of each function
body of OUTPUT, ops the rewrite added (remat.clone) left out, are a
subsequence of INPUT's (a plan may erase an original whose uses all became
recomputations; it moves nothing). Prints "order kept" or "order changed".
Usage: op_order.py INPUT OUTPUT."""
import re
import sys


def op_names(path):
    """The op names of each function's body, in order, clones left out."""
    functions = []
    depth = 0
    body = None  # the brace depth of the current function's ops
    current = None  # [name match, text of the op being read]
    for line in open(path):
        code = re.sub(r'"[^"]*"', '""', line.split("//")[0])
        stripped = code.strip()
        if stripped.startswith("func.func"):
            functions.append([])
            body = depth + 1
            current = None
        elif depth == body and stripped and not stripped.startswith("}"):
            current = [re.search(r"([a-z_]+\.[a-z_.]+)", stripped), ""]
            functions[-1].append(current)
        if current is not None:
            current[1] += code
        depth += code.count("{") - code.count("}")
    return [[m.group(1) for m, text in ops if m and "remat.clone" not in text] for ops in functions]


def is_subsequence(small, large):
    rest = iter(large)
    return all(name in rest for name in small)


before, after = op_names(sys.argv[1]), op_names(sys.argv[2])
kept = len(before) == len(after) and all(is_subsequence(a, b) for b, a in zip(before, after))
print("order kept" if kept else "order changed")
