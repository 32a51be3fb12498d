#!/usr/bin/env python3
"""Checks that the planner's files depend on each other one way only.

The planner's files form layers (docs/planner.md, "Files"); a file may call
only what the layers below it declare. C needs a declaration to call a
function (the build turns implicit declarations into errors), so two checks
suffice:
  - every lib/Plan*.{c,h} and lib/Sim*.{c,h} includes, of these headers, only
    its own and those of lower layers (the strategies, PlanPeaks,
    PlanSqrt, PlanBlocks..., not each other's; the drivers on top share PlanRecord.h);
  - every function a layer's header declares is defined in that layer's .c
    (or in the header itself), so that a header cannot carry a call upward.
Prints "plan layers: ok", or one line per violation and exits 1.

  scripts/check-plan-layers.py LIB_DIR
"""
import os
import re
import sys

# Lower number = lower layer. Files of one layer may not include each other.
LAYERS = {
    "Schedule": 0,  # schedules and their simulation (what the planners see)
    "SimInternal": 1,  # shared by the simulation's files (SIM_FILES)
    "PlanSearch": 2,  # the search state and its decisions
    "PlanChain": 3,  # recompute chains, candidates
    "PlanGroup": 4,  # group picks
    "PlanCuts": 4,  # the forward pass's stash and cuts (the segment strategies' start)
    "PlanPeaks": 5,  # the strategies
    "PlanSqrt": 5,
    "PlanBlocks": 5,
    "PlanCover": 5,
    "PlanMoves": 5,
    "PlanWindows": 5,
    "PlanDtr": 5,
    "PlanPortfolio": 6,  # the default planner, the dispatch
    "PlanRecord": 7,  # the drivers (record, replay, plan a function), which
    "PlanReplay": 7,  # share PlanRecord.h
    "PlanDriver": 7,
}
DRIVERS = 7
# .c files of the simulation, which share SimInternal.h (its functions are
# defined across them).
SIM_FILES = {"SimContext", "SimReplay", "SimBuffers", "SimTimeline", "SimTrial"}

INCLUDE = re.compile(r'^#include "([A-Za-z]+)\.h"', re.M)
PROTO = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(remat\w+)\([^;{]*\);", re.M)
DEFN = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(remat\w+)\([^;{]*\)\s*\{", re.M)


def layer_of(stem):
    if stem in SIM_FILES:
        return LAYERS["SimInternal"]
    return LAYERS.get(stem)


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "lib")
    files = sorted(f for f in os.listdir(lib)
                   if re.match(r"(Plan|Sim)\w*\.[ch]$|Schedule\.[ch]$", f))
    errors = []
    defined = {}
    for f in files:
        stem, ext = f.rsplit(".", 1)
        text = open(os.path.join(lib, f)).read()
        if layer_of(stem) is None:
            errors.append(f"{f}: not in a layer (add it to {os.path.basename(__file__)} and docs/planner.md)")
            continue
        for inc in INCLUDE.findall(text):
            if inc == stem or layer_of(inc) is None:
                continue
            if inc == "SimInternal" and stem in SIM_FILES:
                continue
            if inc == "SimInternal":
                errors.append(f"{f}: includes SimInternal.h, internal to the simulation (Sim*.c)")
            elif layer_of(inc) >= layer_of(stem) and layer_of(stem) != DRIVERS:
                errors.append(f"{f}: includes {inc}.h, of layer {layer_of(inc)}, from layer {layer_of(stem)}")
        if ext == "c":
            for name in DEFN.findall(text):
                defined[name] = stem
    for f in files:
        stem, ext = f.rsplit(".", 1)
        if ext != "h" or layer_of(stem) in (None, DRIVERS):
            continue
        text = open(os.path.join(lib, f)).read()
        for name in PROTO.findall(text):
            where = defined.get(name)
            ok = where == stem or (stem == "SimInternal" and where in SIM_FILES) or (
                stem == "Schedule" and where in SIM_FILES)
            if not ok:
                errors.append(f"{f}: declares {name}, defined in {where}.c" if where else
                              f"{f}: declares {name}, defined in no lib/Plan*.c or lib/Sim*.c")
    for e in errors:
        print(e)
    if errors:
        return 1
    print("plan layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
