"""Guards that make IREE run a planned step as remat planned it (docs/iree.md).

    python -m remat.iree_guards IN.mlir OUT.mlir     (IREE's input form: util.func)

Needs IREE's Python bindings (iree-base-compiler, in the exporters' venv);
scripts/remat-iree runs it with that venv's interpreter.

remat plans the ops it is given, one buffer per result, in their order. IREE
would otherwise form its own dispatches around them (fusing elementwise chains
and producers into consumers: buffers remat counted vanish, and lifetimes remat
cut grow again) and CSE would merge each recomputation back into its original
(a clone has the original's operands), keeping the forward value live into the
backward. Two kinds of `util.optimization_barrier` (an identity IREE keeps until
its VM conversion and never merges, fuses across or moves) stop both:

- after every op that computes a tensor, on each tensor result: IREE's dispatch
  boundaries become remat's ops. Not after ops whose results remat does not
  count as buffers of their own and IREE folds into their users for free:
  tensor.empty, linalg.fill (a fill becomes the splat initialising its user's
  dispatch; a barrier would materialise it), views (reshapes, extract_slice,
  cast), constants;
- before every recomputation (an op remat-opt marked `remat.clone`), on each of
  its tensor operands but those an empty, fill or constant makes, and on each
  tensor its regions read from outside (a `linalg.generic` whose body gathers
  from a captured weight with `tensor.extract`, as torch-mlir's weight flips
  do, has only an empty destination as operand): the clone's inputs are fresh
  values, so CSE cannot merge it with its original. A clone that reads no
  tensor at all gets the same for the scalars its body reads from outside (the
  i64 seed of torch-mlir's dropout mask) or, reading none (an iota), its
  indices offset by a barrier on 0 (IREE drops a destination the body never
  reads, so a barrier there would not keep the clone apart).

A value only the return reads gets no barrier: IREE then writes it straight into
the result's storage (for a donated argument, in place), as remat's model counts
it; behind a barrier IREE computes it into a temporary and copies it out at the
end, holding every such temporary at once.

A barrier takes one value: IREE 3.13's stream conversion rejects a barrier whose
values land in resources of different lifetimes.
"""
import sys

# Ops left unguarded (see above).
UNGUARDED = {"tensor.empty", "linalg.fill", "arith.constant", "tensor.expand_shape", "tensor.collapse_shape",
             "tensor.extract_slice", "tensor.cast", "tensor.reshape", "tensor.bitcast", "tensor.splat"}
BARRIER = "util.optimization_barrier"
RETURNS = ("util.return", "func.return")
FREE = ("tensor.empty", "linalg.fill", "arith.constant")


def guard(text):
    """IN's text -> (guarded text, barriers after ops, recomputations guarded)."""
    from iree.compiler import ir  # the exporters' venv

    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    after = clones = 0
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)

        def barrier(value, before):
            b = ir.Operation.create(BARRIER, results=[value.type], operands=[value])
            ir.InsertionPoint(before).insert(b)
            return b

        def free_value(value):
            # A tensor.empty, fill or constant operand (a destination, mostly) stays as it is: a
            # barrier would make IREE materialise it, and the clone differs from its original by
            # its other operands.
            owner = value.owner
            return isinstance(owner, (ir.Operation, ir.OpView)) and owner.name in FREE

        def returned_only(value):
            owners = [u.owner for u in value.uses]
            return bool(owners) and all(getattr(w, "name", w.operation.name if hasattr(w, "operation") else "")
                                        in RETURNS for w in owners)

        def nested_blocks(op):
            # Every block of op's regions, nested ones included.
            for region in op.regions:
                for blk in region.blocks:
                    yield blk
                    for n in blk.operations:
                        yield from nested_blocks(n)

        def captured(o):
            # {value: [(nested op, operand index)]} for each value defined outside o that an op
            # nested in o's regions reads, in first-use order.
            inside, uses = set(), {}
            for blk in nested_blocks(o):
                inside.update(blk.arguments)
                for n in blk.operations:
                    inside.update(n.results)
                    for i, v in enumerate(n.operands):
                        uses.setdefault(v, []).append((n, i))
            return {v: us for v, us in uses.items() if v not in inside and not free_value(v)}

        def captured_tensors(o):
            # The tensors among them (a weight a flip gathers from).
            return [(v, us) for v, us in captured(o).items() if isinstance(v.type, ir.RankedTensorType)]

        def captured_scalars(o):
            # The values of other types among them, constants aside (an i64 seed, an index).
            return [(v, us) for v, us in captured(o).items() if not isinstance(v.type, ir.ShapedType)]

        def guard_captured(values, o):
            # A barrier before o on each captured value, read by its users in o's body instead;
            # whether there was any.
            for v, users in values:
                g = barrier(v, o).results[0]
                for u, i in users:
                    u.operands[i] = g
            return bool(values)

        def offset_indices(o):
            # linalg.index i -> i + z in o's body, z a barrier on the constant 0 before o.
            indices = [n.operation for blk in nested_blocks(o) for n in blk.operations
                       if n.operation.name == "linalg.index"]
            if not indices:
                return False
            index = ir.IndexType.get()
            zero = ir.Operation.create("arith.constant", results=[index],
                                       attributes={"value": ir.IntegerAttr.get(index, 0)})
            ir.InsertionPoint(o).insert(zero)
            z = barrier(zero.results[0], o).results[0]
            for idx in indices:
                add = ir.Operation.create("arith.addi", results=[index], operands=[idx.results[0], z])
                ir.InsertionPoint(idx).insert(add)
                idx.move_before(add)
                idx.results[0].replace_all_uses_except(add.results[0], add)
            return True

        for fn in module.body.operations:
            if fn.operation.name not in ("util.func", "func.func") or not fn.regions[0].blocks:
                continue
            for block in fn.regions[0].blocks:
                for op in list(block.operations):
                    o = op.operation
                    if o.name in UNGUARDED or o.name in RETURNS or o.name == BARRIER:
                        continue
                    if "remat.clone" in o.attributes:
                        guarded = False
                        for i, v in enumerate(list(o.operands)):
                            if isinstance(v.type, ir.RankedTensorType) and not free_value(v):
                                o.operands[i] = barrier(v, o).results[0]
                                guarded = True
                        # Tensors its body reads from outside (captured, not operands).
                        guarded |= guard_captured(captured_tensors(o), o)
                        if not guarded:
                            # Nothing above: a clone that computes from indices and scalars only
                            # (torch-mlir's dropout mask: an empty destination and the seed, an
                            # i64, read in its body). Its scalars become fresh values; without
                            # any (an iota, a causal mask), its indices are offset by a fresh
                            # zero. (A barrier on the empty destination does not do: IREE drops a
                            # destination the body never reads, then merges the clone.)
                            guarded = guard_captured(captured_scalars(o), o) or offset_indices(o)
                        clones += guarded
                    for r in o.results:
                        if not isinstance(r.type, ir.RankedTensorType) or returned_only(r):
                            continue
                        b = barrier(r, o)
                        o.move_before(b)
                        r.replace_all_uses_except(b.results[0], b)
                        after += 1
        if not module.operation.verify():
            raise ValueError("the guarded module does not verify")
        return str(module), after, clones


def main(argv):
    if len(argv) != 2:
        print("usage: python -m remat.iree_guards IN.mlir OUT.mlir", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        text = f.read()
    try:
        out, after, clones = guard(text)
    except ImportError as e:
        print(f"remat.iree_guards: error: IREE's Python bindings are missing ({e}); "
              "scripts/setup-python.sh installs iree-base-compiler", file=sys.stderr)
        return 1
    except Exception as e:  # IREE's MLIRError (parse or verify), or the verify failure above
        if not isinstance(e, ValueError) and type(e).__name__ != "MLIRError":
            raise
        detail = " ".join(ln.strip() for ln in str(e).splitlines()[:2]) or type(e).__name__
        print(f"remat.iree_guards: error: {argv[0]}: {detail}", file=sys.stderr)
        return 1
    with open(argv[1], "w") as f:
        f.write(out)
    print(f"remat.iree_guards: {after} barriers after ops, {clones} recomputations guarded", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
