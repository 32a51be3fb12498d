"""MLIR text helpers shared by the exporters: MLIR 22 checks, the printed form,
op counts, .xz output and the destination normalisation of torch-mlir's output
(split_shared_empties / split_shared_fills; docs/models.md says why)."""
import lzma
import os
import re
import shutil
import subprocess

MLIR_OPT_22 = "/usr/lib/llvm-22/bin/mlir-opt"


def mlir_opt_22():
    """Path of MLIR 22's mlir-opt (the one remat is built against), or None."""
    env = os.environ.get("REMAT_MLIR_OPT")
    if env:
        return env
    if os.path.exists(MLIR_OPT_22):
        return MLIR_OPT_22
    return shutil.which("mlir-opt-22")


def check_mlir22(text, allow_unregistered=False, mlir_opt=None):
    """None if MLIR 22's mlir-opt parses and verifies `text`, else its message.
    Raises FileNotFoundError when no MLIR 22 mlir-opt is found."""
    tool = mlir_opt or mlir_opt_22()
    if not tool:
        raise FileNotFoundError("MLIR 22's mlir-opt not found (/usr/lib/llvm-22/bin/mlir-opt; REMAT_MLIR_OPT=path)")
    p = subprocess.run([tool, "-", "-o", os.devnull] + (["--allow-unregistered-dialect"] if allow_unregistered else []),
                       input=text, capture_output=True, text=True)
    return None if p.returncode == 0 else p.stderr.strip()


def choose_form(custom, generic, mlir_opt=None):
    """(text, form): the custom form when MLIR 22 parses it, else the generic
    form (ops of dialects MLIR 22 lacks, e.g. tm_tensor, parse there as
    unregistered ops; remat-opt accepts them). Raises RuntimeError when MLIR 22
    parses neither. Without an MLIR 22 mlir-opt the generic form is chosen
    (it depends on nothing but op names, operands and attributes)."""
    try:
        err = check_mlir22(custom, mlir_opt=mlir_opt)
    except FileNotFoundError:
        return generic, "generic"
    if not err:
        return custom, "custom"
    err2 = check_mlir22(generic, allow_unregistered=True, mlir_opt=mlir_opt)
    if err2:
        raise RuntimeError(f"MLIR 22 parses neither the custom form ({err[:500]}) nor the generic form ({err2[:500]})")
    return generic, "generic"


def count_ops(text):
    """{op name: count} over the generic or custom form of an MLIR text (ops in
    region bodies included)."""
    counts = {}
    for m in re.finditer(r'(?:^|=\s*|^\s*)"?([a-z_][a-z0-9_]*\.[a-z0-9_.]+)"?[ (<{]', text, re.M):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


def mutable_globals(text):
    """Names of the mutable ml_program globals of a module (custom or generic
    form): torch-mlir keeps the RNG seed of dropout and torch.rand there."""
    names = re.findall(r'ml_program\.global\s+(?:private\s+|public\s+)?mutable\s+@([\w$.]+)', text)
    for m in re.finditer(r'"ml_program\.global"\(\)\s*<\{([^}]*)\}', text):
        if "is_mutable" in m.group(1):
            n = re.search(r'sym_name\s*=\s*"([^"]+)"', m.group(1))
            if n:
                names.append(n.group(1))
    return sorted(set(names))


def write_text(path, text):
    """Writes `text` to `path`; .xz paths compressed with fixed settings (the
    same text gives the same bytes: no timestamps in the .xz format). Through
    a temporary file renamed into place: a failure never leaves half a step."""
    data = lzma.compress(text.encode(), preset=9 | lzma.PRESET_EXTREME) if path.endswith(".xz") else text.encode()
    write_atomic(path, data)


def write_atomic(path, data):
    """`data` (bytes) into a temporary file beside `path`, renamed onto it."""
    import tempfile
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_text(path):
    if path.endswith(".xz"):
        with lzma.open(path, "rt") as f:
            return f.read()
    with open(path) as f:
        return f.read()


# --------------------------------------------------------------------------- normalisation (torch-mlir ir modules)


def _body_ops(module, name):
    """The top-level ops named `name` in the bodies of the module's functions,
    collected first (the callers clone and erase ops as they go)."""
    return [op for func in module.body.operations for region in func.regions for block in region.blocks
            for op in list(block.operations) if op.name == name]


def _before(op):
    from torch_mlir import ir
    return ir.InsertionPoint(op)


def split_shared_empties(module):
    """torch-mlir hands one `tensor.empty` to several ops as their destination
    (`outs`). Gives every use its own `tensor.empty`, created right before the
    user (same semantics: an empty tensor has no contents). Returns how many
    tensor.empty ops were added. See docs/models.md: remat-opt's schedule
    simulation refuses two writers sharing one fresh destination."""
    added = 0
    for op in _body_ops(module, "tensor.empty"):
        uses = [(u.owner, u.operand_number) for u in op.result.uses]
        if not uses:
            continue
        for user, index in uses:
            clone = op.clone(ip=_before(user))
            user.operands[index] = clone.result
            added += 1
        op.erase()
        added -= 1
    return added


def split_shared_fills(module):
    """torch-mlir also shares one `linalg.fill` (zeros, mostly: the accumulator
    of every matmul and convolution of a shape) between many ops, forward and
    backward. Each use but one makes One-Shot Bufferize copy the filled buffer,
    and the fill stays live from its first use to its last, across the whole
    step. Gives every use its own fill (and its own tensor.empty, when the
    fill's destination is one), created right before the user: the same values,
    no copies. Run after split_shared_empties. Returns how many linalg.fill ops
    were added."""
    added = 0
    for op in _body_ops(module, "linalg.fill"):
        uses = [(u.owner, u.operand_number) for u in op.results[0].uses]
        if len(uses) < 2:
            continue
        dest = op.operands[1].owner
        fresh = getattr(dest, "name", None) == "tensor.empty"
        for user, index in uses:
            fill = op.clone(ip=_before(user))
            if fresh:
                fill.operands[1] = dest.clone(ip=_before(fill)).result
            user.operands[index] = fill.results[0]
            added += 1
        op.erase()
        added -= 1
        if fresh and not list(dest.results[0].uses):
            dest.erase()
    return added


UPSTREAM = {"builtin", "func", "arith", "math", "linalg", "tensor", "bufferization", "memref", "scf", "cf",
            "affine", "index", "complex"}


def leftovers(text):
    """{op: count} of ops outside upstream MLIR dialects (custom or generic form):
    tm_tensor.*, ml_program.*, util.* and the like."""
    found = {}
    for m in re.finditer(r'(?:^|=\s*)\s*"?([a-z_][a-z0-9_]*)\.([a-z0-9_.]+)"?[\s(<{]', text, re.M):
        if m.group(1) not in UPSTREAM:
            op = f"{m.group(1)}.{m.group(2)}"
            found[op] = found.get(op, 0) + 1
    return found


# IREE's input phase around MLIR 22 (remat.jax, bench/models/iree_bridge.py).


def pack_i1_hex(text):
    """Newer MLIR prints a dense i1 constant in hex with one byte per element; MLIR 22
    reads hex i1 data bit-packed (element i at bit i % 8 of byte i / 8) and rejects
    the byte form ("elements hex data size is invalid"). Repacks such constants;
    returns (text, number repacked)."""
    count = [0]

    def repl(m):
        data, dims = m.group(1), m.group(2)
        n = 1
        for d in dims.split("x"):
            n *= int(d)
        raw = bytes.fromhex(data)
        if n <= 1 or len(raw) != n or any(b > 1 for b in raw):
            return m.group(0)
        packed = bytearray((n + 7) // 8)
        for i, b in enumerate(raw):
            if b:
                packed[i // 8] |= 1 << (i % 8)
        count[0] += 1
        return f'dense<"0x{packed.hex().upper()}"> : tensor<{dims}xi1>'

    text = re.sub(r'dense<"0x([0-9A-Fa-f]+)">\s*:\s*tensor<([0-9]+(?:x[0-9]+)*)xi1>', repl, text)
    return text, count[0]


def unpack_i1_hex(text):
    """The inverse of pack_i1_hex, for IREE: MLIR 22 prints a dense i1 constant in hex
    bit-packed (ceil(n / 8) bytes), IREE's newer MLIR reads one byte per element and
    rejects the packed form ("elements hex data size is invalid for provided type").
    Unpacks such constants (the byte-per-element form has n bytes, so the two are told
    apart by length for n > 1); returns (text, number unpacked)."""
    count = [0]

    def repl(m):
        data, dims = m.group(1), m.group(2)
        n = 1
        for d in dims.split("x"):
            n *= int(d)
        raw = bytes.fromhex(data)
        if n <= 1 or len(raw) != (n + 7) // 8:
            return m.group(0)
        unpacked = bytes((raw[i // 8] >> (i % 8)) & 1 for i in range(n))
        count[0] += 1
        return f'dense<"0x{unpacked.hex().upper()}"> : tensor<{dims}xi1>'

    text = re.sub(r'dense<"0x([0-9A-Fa-f]+)">\s*:\s*tensor<([0-9]+(?:x[0-9]+)*)xi1>', repl, text)
    return text, count[0]


# Named linalg ops whose `cast` attribute MLIR 22 honours. The other named ops
# (matvec, vecmat, dot, batch_matvec, batch_reduce_matmul, convolutions) accept
# a `cast` attribute and ignore it: their operands are always cast_signed.
_CAST_OPS = ("matmul", "batch_matmul")
_UNSIGNED = "#linalg.type_fn<cast_unsigned>"
_FLOATS = ("f16", "bf16", "f32", "f64")


def _elem(t):
    """Element type of one printed type: tensor<4x32xi1> -> i1, f32 -> f32."""
    m = re.search(r'<(?:[0-9?]+x)*([a-z]+[0-9]*)[,>]', t)
    return m.group(1) if m else t.strip()


def _split_types(s):
    """'tensor<2x3xi1>, tensor<3xf32>' -> the two types (commas inside <> kept)."""
    out, depth, cur = [], 0, ""
    for c in s:
        depth += c == "<"
        depth -= c == ">"
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    return out + ([cur.strip()] if cur.strip() else [])


def _i1_check(op, ins, out, where):
    """True when named op `op` reading `ins` into element type `out` reads an i1
    operand as a number (and so needs cast_unsigned); raises ValueError when
    MLIR 22 gives no way to say so for this op."""
    if "i1" not in ins or out == "i1":
        return False
    others = [t for t in ins if t != "i1"]
    if op in _CAST_OPS and all(t in _FLOATS or t == out for t in others):
        return True
    raise ValueError(f"{where}: linalg.{op} reads an i1 operand as {out} with linalg's default cast_signed, "
                     f"which MLIR 22 lowers to arith.sitofp/extsi (true -> -1) while IREE means 1; only "
                     f"{' and '.join('linalg.' + o for o in _CAST_OPS)} with float (or {out}) other operands can "
                     f"be given cast_unsigned (docs/models.md)")


def unsigned_i1_casts(text):
    """IREE's input phase folds the conversion of a boolean to a number
    (stablehlo.convert i1 -> f32: true is 1.0) into the dot that uses it, as a
    linalg.matmul / batch_matmul with an i1 operand. Those ops convert their
    operands with `cast`, default cast_signed, and MLIR (22 and IREE's own)
    lowers cast_signed of an i1 to arith.sitofp: true becomes -1.0 (IREE
    compiling the same text gives 1.0, presumably as it stores i1 as i8 first). remat-run, MLIR's
    linalg-generalize-named-ops and linalg-fuse-elementwise-ops all follow
    MLIR, so the step computed something else than the framework (a one-hot
    embedding read as minus the embedding: jax-gpt2). Gives such ops
    cast = #linalg.type_fn<cast_unsigned> (custom form: an attribute dict after
    outs(...); generic form: the property, and uitofp/extui in the printed
    region), which reads true as 1 in MLIR 22 and in IREE. Raises ValueError
    for a named op with an i1 operand that MLIR 22 cannot be told to read
    unsigned. Returns (text, number of ops changed)."""
    lines = text.split("\n")
    count = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r'\s*%[\w#:]+ = linalg\.([a-z_0-9]+)\b(.*)$', line)
        if m and m.group(1) not in ("generic", "yield", "index"):
            ins = re.search(r'\bins\([^:]*:\s*([^)]*)\)', line)
            outs = re.search(r'\bouts\([^:]*:\s*([^)]*)\)', line)
            if ins and outs and _i1_check(m.group(1), [_elem(t) for t in _split_types(ins.group(1))],
                                          _elem(_split_types(outs.group(1))[0]), f"line {i + 1}"):
                if "cast = " in line:
                    line = re.sub(r'cast = #linalg\.type_fn<\w+>', f"cast = {_UNSIGNED}", line)
                else:
                    end = outs.end()
                    rest = line[end:]
                    if rest.lstrip().startswith("{"):  # an attribute dict already there
                        k = end + rest.index("{") + 1
                        line = line[:k] + f"cast = {_UNSIGNED}, " + line[k:]
                    else:
                        line = line[:end] + f" {{cast = {_UNSIGNED}}}" + rest
                lines[i] = line
                count += 1
            i += 1
            continue
        g = re.match(r'(\s*)%[\w#:]+ = "linalg\.([a-z_0-9]+)"\(.*<\{(.*)\}>\s*\(\{\s*$', line)
        if g and g.group(2) not in ("generic",):
            # Generic form: the types are on the region's closing line, the
            # number of inputs in operandSegmentSizes.
            j = i + 1
            while j < len(lines) and not lines[j].startswith(g.group(1) + "}) : ("):
                j += 1
            seg = re.search(r'operandSegmentSizes = array<i32: (\d+), (\d+)>', g.group(3))
            sig = re.match(r'\s*\}\) : \((.*)\) -> (.*)$', lines[j]) if j < len(lines) else None
            if seg and sig:
                types = [_elem(t) for t in _split_types(sig.group(1))]
                n_in = int(seg.group(1))
                if _i1_check(g.group(2), types[:n_in], types[n_in] if len(types) > n_in else _elem(sig.group(2)),
                             f"line {i + 1}"):
                    if "cast = " in line:
                        line = re.sub(r'cast = #linalg\.type_fn<\w+>', f"cast = {_UNSIGNED}", line)
                    else:
                        line = line.replace("<{", f"<{{cast = {_UNSIGNED}, ", 1)
                    lines[i] = line
                    for k in range(i + 1, j):
                        lines[k] = re.sub(r'"arith\.sitofp"(\(%[\w#]+\) : \(i1\))', r'"arith.uitofp"\1', lines[k])
                        lines[k] = re.sub(r'"arith\.extsi"(\(%[\w#]+\) : \(i1\))', r'"arith.extui"\1', lines[k])
                    count += 1
                i = j
                continue
        i += 1
    return "\n".join(lines), count


def to_func(text):
    """IREE's util.func / util.return -> func.func / func.return. Returns (text, functions, returns)."""
    text, n = re.subn(r'^(\s*)util\.func (?:public |private )?@', r'\1func.func @', text, flags=re.M)
    text, r = re.subn(r'^(\s*)util\.return\b', r'\1func.return', text, flags=re.M)
    if n == 0:
        raise ValueError("no util.func in IREE's output (expected --compile-to=input output in custom form)")
    return text, n, r


def to_util(text):
    """func.func / return -> util.func public / util.return (for iree-compile --compile-from=input).
    The i1 constants are left to unpack_i1_hex."""
    text, n = re.subn(r'^(\s*)func\.func (?:public )?@', r'\1util.func public @', text, flags=re.M)
    text, r = re.subn(r'^(\s*)(?:func\.)?return\b', r'\1util.return', text, flags=re.M)
    return text, n, r


_ELEM = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16", "i64": "int64", "i32": "int32",
         "i16": "int16", "i8": "int8", "ui8": "uint8", "i1": "bool"}


def _tensor_types(sig):
    out = []
    for m in re.finditer(r'tensor<((?:\d+x)*)([a-z0-9]+)>', sig):
        dims = [int(d) for d in m.group(1).split("x") if d]
        out.append((_ELEM.get(m.group(2), m.group(2)), dims))
    return out


def check_signature(text, func_name, m):
    """The manifest's dtypes and shapes against the func.func's signature (custom or generic form)."""
    mm = re.search(r'func\.func @' + re.escape(func_name) + r'\((.*?)\)\s*->\s*(\(.*?\)|tensor<[^>]*>)\s*(?:attributes|\{)',
                   text, re.S)
    if not mm:
        mm = re.search(r'"func\.func"\(\)\s*<\{.*?function_type = \((.*?)\) -> (\(.*?\)|tensor<[^>]*>)', text, re.S)
    if not mm:
        return
    args = _tensor_types(re.sub(r'\{[^{}]*\}', '', mm.group(1)))
    res = _tensor_types(re.sub(r'\{[^{}]*\}', '', mm.group(2)))
    for kind, got, entries in (("argument", args, m["arguments"]), ("result", res, m["results"])):
        if len(got) != len(entries):
            raise ValueError(f"the step has {len(got)} {kind}s but the manifest {len(entries)}")
        for (dt, shape), e in zip(got, entries):
            if dt != e["dtype"] or shape != e["shape"]:
                raise ValueError(f"{kind} {e['index']} ({e['name']}): the step has {dt}{shape}, the manifest "
                                  f"{e['dtype']}{e['shape']}")


_SLICE = re.compile(r'^(\s*)(%[\w.$-]+) = tensor\.extract_slice (%[\w.$#-]+)\[([-\d, ]*)\] \[([\d, ]*)\] '
                    r'\[([\d, ]*)\] : tensor<([^>]*)> to tensor<([^>]*)>(.*)$', re.M)


def _shape(t):
    parts = t.split("x")
    return [int(p) for p in parts[:-1]] if all(p.isdigit() for p in parts[:-1]) else None


def materialize_strided_slices(text):
    """Each static tensor.extract_slice whose elements are not one contiguous run of its source
    (row-major) -> the slice and a linalg.copy of it into a tensor.empty. IREE copies such a
    slice into a buffer of its own (a `slow_memcpy` dispatch) while remat, like MLIR's
    bufferization, counts a subview: made explicit, the copy is counted (and may be recomputed).
    Custom form only (mlir-opt's output); returns (text, slices materialized)."""
    count = 0

    def rewrite(m):
        nonlocal count
        ind, name, src, offs, sizes, strides, st, rt, rest = m.groups()
        full, res = _shape(st), _shape(rt)
        try:
            sz = [int(x) for x in sizes.split(",")]
            stride = [int(x) for x in strides.split(",")]
        except ValueError:
            return m.group(0)
        if full is None or res is None or len(sz) != len(full) or any(s != 1 for s in stride):
            return m.group(0)
        k = next((i for i, s in enumerate(sz) if s != 1), len(sz))
        if all(sz[j] == full[j] for j in range(k + 1, len(sz))):
            return m.group(0)  # contiguous: IREE takes a subview too
        count += 1
        base = "%remat_slice_" + re.sub(r'[^\w]', '_', name[1:])
        return (f"{ind}{base} = tensor.extract_slice {src}[{offs}] [{sizes}] [{strides}] : tensor<{st}> to "
                f"tensor<{rt}>{rest}\n"
                f"{ind}{base}_init = tensor.empty() : tensor<{rt}>{rest}\n"
                f"{ind}{name} = linalg.copy ins({base} : tensor<{rt}>) outs({base}_init : tensor<{rt}>) -> "
                f"tensor<{rt}>{rest}")

    return _SLICE.sub(rewrite, text), count


_DONATION = re.compile(r'(iree\.abi\.output|tf\.aliasing_output) = (\d+) : (?:index|i32|i64)')


def undonate_read_results(text):
    """Drops the donation attribute (iree.abi.output, tf.aliasing_output) of each argument whose
    result some op other than the return also reads. remat-iree puts a barrier after such a
    result's op (it has users to keep apart), and IREE then computes it into a temporary held to
    the end of the step and copied into the donated buffer there; without its donation remat
    counts it so, a buffer of its own live to the return. A result only the return reads keeps
    it: IREE writes that one in place. Custom form (mlir-opt's output), one func.func signature
    per line; returns (text, attributes dropped)."""
    lines = text.split("\n")
    dropped = 0
    i = 0
    while i < len(lines):
        m = re.match(r'^(\s*)func\.func (?:public |private )?@[\w.$-]+\(', lines[i])
        if not m or not _DONATION.search(lines[i]):
            i += 1
            continue
        ind = m.group(1)
        end = next((j for j in range(i + 1, len(lines)) if lines[j] == ind + "}"), len(lines))
        body = lines[i + 1:end]
        ret = next((k for k in range(len(body) - 1, -1, -1)
                    if re.match(r'^\s*(?:func\.)?return\b', body[k])), None)
        if ret is None:
            i = end + 1
            continue
        operands = re.findall(r'%[\w.$-]+(?:#\d+)?', body[ret].split(" : ")[0])

        def read_elsewhere(tok):
            base = tok.split("#")[0]
            use = re.compile(r'(?<![\w.$-])' + re.escape(tok) + (r'(?!\d)' if "#" in tok else r'(?![\w.$#-])'))
            define = re.compile(r'^\s*' + re.escape(base) + r'(?::\d+)? = ')
            return any(use.search(ln) for k, ln in enumerate(body) if k != ret and not define.match(ln))

        def strip(sm):
            nonlocal dropped
            n = int(sm.group(2))
            if n < len(operands) and read_elsewhere(operands[n]):
                dropped += 1
                return ""
            return sm.group(0)

        sig = _DONATION.sub(strip, lines[i])
        # The commas and braces an attribute left: "{a, , b}", "{, b}", "{a, }", "{}".
        for pattern, repl in ((r',\s*,', ','), (r',\s*\}', '}'), (r'\{\s*,\s*', '{'), (r' \{\s*\}', '')):
            sig = re.sub(pattern, repl, sig)
        lines[i] = sig
        i = end + 1
    return "\n".join(lines), dropped
