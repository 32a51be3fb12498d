"""How remat's tools scale with the size of a training step (issue 21, items 3 and 4).

    bench/models/.venv/bin/python bench/scale.py                     # every size, 600 s per run
    bench/models/.venv/bin/python bench/scale.py --sizes 1k,4k --timeout 120
    bench/models/.venv/bin/python bench/scale.py --sizes 100k --steps parse,estimate,plan
    bench/models/.venv/bin/python bench/scale.py --plot-only         # redraw results/scale.png

Sizes (--sizes, comma-separated; default all):
  1k, 4k, 15k, 60k  torch-mlir's plain output (fx import, linalg-on-tensors; no split of shared
                    empties or fills) of a Llama-style decoder training step (forward, loss,
                    backward; parameters and their gradients as results): RMSNorm, rotary
                    embeddings, causal softmax attention written with matmuls, SwiGLU MLP,
                    d=64, 4 heads, ff=176, seq=64, batch=4, vocab=256, depth 4 / 17 / 64 / 257
                    (1,081 / 4,110 / 15,061 / 60,030 top-level ops). Token embedding and
                    cross entropy as bench/models/ does for GPT-2 (one-hot matmul and one-hot
                    comparison): torch-mlir lowers nn.Embedding's and F.cross_entropy's
                    backward to tm_tensor.scatter, which MLIR 22 does not have (docs/models.md).
  100k              bench/scale_gen.py's generated step of the same model (no rotary), 980
                    layers, about 100k top-level ops (exporting with torch at that depth takes
                    too long here; the generator writes the exporter's style).
  zoo-llama:L       bench/models/zoo/llama.py as people write it (nn.Embedding, F.cross_entropy on
                    integer targets, grouped-query SDPA, rotary, SwiGLU) at depth L, exported by the
                    project's own exporter (remat.torch.export_step, normalize=False: torch-mlir's
                    plain output, tm_tensor.scatter in the backward, no split of shared empties or
                    fills); widths ZOO_WIDTHS. Its parse reference runs mlir-opt with
                    --allow-unregistered-dialect (MLIR 22 has no tm_tensor). Needs the exporter's
                    venv (scripts/setup-python.sh --python) for the export only; measure with any
                    python3 afterwards: ru_maxrss of a child forked from a process holding torch
                    counts the parent's pages, so RSS figures from the exporting process are wrong.
  llama:L, gen:L    any depth L of either.
Exports are cached under bench/scale/ (llama-L<L>.mlir, gitignored; .mlir.xz next to it when
under 2 MB, committed, used when the .mlir is missing; generated steps are made again when
missing, in seconds). Exporting needs torch (the venv of
bench/models/export.sh); measuring needs only the tools (and matplotlib for the plot).

Per size, in one run (--steps selects; each command under --timeout, a run past it is
killed and recorded as "timeout"):
  parse     /usr/lib/llvm-22/bin/mlir-opt FILE -o /dev/null: parse + verify + print, the
            reference time (min of --repeat runs)
  estimate  remat-opt --estimate --report=json FILE
  plan      remat-opt --budget=B --report=json FILE -o /dev/null for B in --budgets
            (default 70%,50%,35%): recompute share (flops and roofline time), planned peak,
            plan_time_s / pass_time_s of the report
  cpu       remat-opt --lower=cpu FILE -o /dev/null, and remat-opt FILE -o norm.mlir (the
            same parse, normalisation and analysis, no lowering): the difference is MLIR's
            CPU pipeline (bufferization, lowering to LLVM) inside remat-opt
  pipeline  MLIR 22's mlir-opt running the CPU pipeline of lib/LowerCPU.c on norm.mlir with
            --mlir-timing: MLIR's own time, pass by pass (one-shot-bufferize's share), on the
            step as exported: without what remat hands it (lib/BufferizeHints.h: its in-place
            decisions; the cut blocks of rematLowerHostToLLVM), i.e. what MLIR alone costs
  run       remat-run --json FILE: wall time (parse, lowering, JIT, run), step time, measured
            peak against the estimate, and roughly how the time splits: MLIR's CPU pipeline
            (the cpu step's share, wall and CPU), the step, the rest (parse, driver, JIT)
  gpu       remat-opt --lower=gpu FILE -o /dev/null and --lower=gpu-tensors (the tensor-level
            part only): the difference is MLIR's pipeline (bufferization, GPU outlining,
            NVVM, PTX)
Every remat-opt / remat-run run records its wall time, CPU time (user + sys: steadier on a
shared machine) and peak RSS (wait4's ru_maxrss).
Targets (issue 21): estimate <= 3x and --budget=50% <= 10x the parse time of the same file,
remat-opt's RSS under 2 GB at 100k ops.

Writes bench/results/scale.json (merged: sizes not run keep their entry, and a size's steps not
run keep their records, so `--steps run,gpu` can add to an earlier `--steps parse,estimate,plan`;
each step record carries its commit, `runs` lists the runs; --fresh replaces the entry) and bench/results/scale.png (log-log time
against ops, fitted exponents from numpy.polyfit over the sizes that finished).
"""
import argparse
import datetime
import json
import lzma
import os
import platform
import re
import resource  # noqa: F401  (ru_maxrss units: KiB on Linux)
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import scale_gen  # noqa: E402
from machine import cpu_model  # noqa: E402

MLIR_OPT = "/usr/lib/llvm-22/bin/mlir-opt"
CACHE = os.path.join(HERE, "scale")
RESULTS_JSON = os.path.join(HERE, "results", "scale.json")
RESULTS_PNG = os.path.join(HERE, "results", "scale.png")
XZ_LIMIT = 2 * 1024 * 1024

# The Llama-style model's widths (both the torch export and the generator). Activations
# dominate the peak (the lower bound is 10-15% of it), so that 35% can be planned.
WIDTHS = dict(batch=4, seq=64, d=64, heads=4, ff=176, vocab=256)
SIZES = {
    "1k": ("llama", 4),
    "4k": ("llama", 17),
    "15k": ("llama", 64),
    "60k": ("llama", 257),
    "100k": ("gen", 980),
}
# bench/models/zoo/llama.py as people write it (nn.Embedding, F.cross_entropy on integer
# targets, grouped-query SDPA, rotary, SwiGLU), exported by remat.torch.export_step with
# normalize=False: torch-mlir's plain output, scatters in the backward, no split of shared
# empties or fills. Widths of WIDTHS (heads 4, kv_heads 2, hidden 176).
ZOO_WIDTHS = dict(batch=4, seq=64, d=64, heads=4, kv_heads=2, hidden=176, vocab=256)
STEPS = ["parse", "estimate", "plan", "cpu", "pipeline", "run", "gpu"]

# lib/LowerCPU.c's kCpuPipeline (the fragments of lib/Pipeline.h), as text for mlir-opt.
CPU_PIPELINE = (
    "builtin.module(func.func(convert-elementwise-to-linalg),"
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(optimize-allocation-liveness),"
    "convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm{use-generic-functions=1 use-aligned-alloc=1},convert-arith-to-llvm,"
    "convert-math-to-llvm,convert-math-to-libm,convert-func-to-llvm,convert-cf-to-llvm,"
    "reconcile-unrealized-casts)")


# --------------------------------------------------------------------------- the model


def llama_module(layers, rotary=True):
    """(module, example inputs) of the Llama-style decoder (torch imported here only)."""
    import math
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(HERE, "models"))
    import remat_models as rm

    class RMSNorm(nn.Module):
        def __init__(self, d, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d))
            self.eps = eps

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight

    def rope(x):
        # Rotary embedding, angles computed in the graph from iotas (no buffers).
        t, hd = x.shape[-2], x.shape[-1]
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        ang = torch.arange(t, dtype=torch.float32)[:, None] * inv[None, :]
        cos, sin = ang.cos(), ang.sin()
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)

    class Block(nn.Module):
        def __init__(self, d, heads, ff):
            super().__init__()
            self.heads = heads
            self.attn_norm = RMSNorm(d)
            self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d, bias=False) for _ in range(4))
            self.mlp_norm = RMSNorm(d)
            self.w1, self.w3 = nn.Linear(d, ff, bias=False), nn.Linear(d, ff, bias=False)
            self.w2 = nn.Linear(ff, d, bias=False)

        def forward(self, x):
            b, t, d = x.shape
            h, hd = self.heads, d // self.heads
            y = self.attn_norm(x)
            q, k, v = (w(y).view(b, t, h, hd).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
            if rotary:
                q, k = rope(q), rope(k)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
            i = torch.arange(t).unsqueeze(1)
            j = torch.arange(t).unsqueeze(0)
            att = att.masked_fill(j > i, -1e9).softmax(-1)
            x = x + self.wo((att @ v).transpose(1, 2).reshape(b, t, d))
            y = self.mlp_norm(x)
            return x + self.w2(F.silu(self.w1(y)) * self.w3(y))

    class Llama(nn.Module):
        def __init__(self, vocab, d, heads, ff, layers):
            super().__init__()
            self.vocab = vocab
            self.emb = nn.Parameter(torch.randn(vocab, d) * 0.02)
            self.blocks = nn.ModuleList(Block(d, heads, ff) for _ in range(layers))
            self.norm = RMSNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, tokens, targets):
            # one-hot embedding and cross entropy, as remat_models.GPT2 (see the module doc)
            x = rm.one_hot(tokens, self.vocab) @ self.emb
            for blk in self.blocks:
                x = blk(x)
            return (rm.cross_entropy(self.head(self.norm(x)), targets),)

    w = WIDTHS
    torch.manual_seed(0)
    model = Llama(w["vocab"], w["d"], w["heads"], w["ff"], layers)
    model.train()
    g = torch.Generator().manual_seed(1)
    inputs = [torch.randint(0, w["vocab"], (w["batch"], w["seq"]), generator=g) for _ in range(2)]
    return model, inputs, rm


def export_zoo_llama(layers):
    """bench/models/zoo/llama.py's step through the project's exporter, unnormalized."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.path.insert(0, os.path.join(HERE, "models", "zoo"))
    import remat.torch as rt
    import llama as zoo_llama
    t0 = time.monotonic()
    model, inputs, loss_fn = zoo_llama.make(dict(ZOO_WIDTHS, layers=layers))
    exp = rt.export_step(model, inputs, loss_fn, None, func_name="llama_step", normalize=False, write=False,
                         header="")
    info = dict(export_time_s=round(time.monotonic() - t0, 2), num_params=sum(p.numel() for p in model.parameters()),
                widths=dict(ZOO_WIDTHS, layers=layers), printed_form=exp.form,
                op_counts_outside_upstream=exp.unlowered)
    return exp.text, info


def export_llama(layers):
    """torch-mlir's plain linalg-on-tensors text of the step, and export info."""
    from torch_mlir import fx
    import importlib.metadata as md
    import torch
    t0 = time.monotonic()
    model, inputs, rm = llama_module(layers)
    gm, _ = rm.joint_graph(model, inputs)
    mod = fx.stateless_fx_import(gm, output_type="linalg-on-tensors", model_name="llama_step")
    text = mod.operation.get_asm()
    info = dict(export_time_s=round(time.monotonic() - t0, 2),
                num_params=sum(p.numel() for p in model.parameters()),
                versions={"torch": torch.__version__, "torch-mlir": md.version("torch-mlir")})
    return text, info


# --------------------------------------------------------------------------- inputs


def parse_command(kind):
    """mlir-opt as the reference parse+print: the zoo step's scatters are ops of
    torch-mlir's tm_tensor dialect, which MLIR 22 parses only as unregistered ops."""
    return [MLIR_OPT] + (["--allow-unregistered-dialect"] if kind == "zoo-llama" else [])


def size_spec(name):
    if name in SIZES:
        return SIZES[name]
    m = re.fullmatch(r"(llama|gen|zoo-llama):(\d+)", name)
    if not m:
        sys.exit(f"scale.py: unknown size {name!r} (known: {', '.join(SIZES)}, llama:L, gen:L, zoo-llama:L)")
    return m.group(1), int(m.group(2))


def step_file(name, log):
    """Path of the step's .mlir (exported or generated on first use) and its info."""
    kind, layers = size_spec(name)
    os.makedirs(CACHE, exist_ok=True)
    base = os.path.join(CACHE, f"{kind}-L{layers}")
    path, meta_path, xz = base + ".mlir", base + ".json", base + ".mlir.xz"
    if not os.path.exists(path) and os.path.exists(xz):
        with open(xz, "rb") as f, open(path, "w") as g:
            g.write(lzma.decompress(f.read()).decode())
    if kind in ("llama", "zoo-llama") and os.path.exists(path) and os.path.exists(meta_path):
        return path, json.load(open(meta_path))  # generated steps are made again every time (seconds)
    if kind == "zoo-llama":
        log(f"   exporting bench/models/zoo/llama.py at {layers} layers with remat.torch.export_step ...")
        text, info = export_zoo_llama(layers)
        info.update(source="bench/models/zoo/llama.py via remat.torch.export_step(normalize=False): torch-mlir's "
                           "plain output (nn.Embedding, F.cross_entropy, SDPA; tm_tensor.scatter in the backward)",
                    rotary=True)
    elif kind == "llama":
        try:
            import torch  # noqa: F401
        except ImportError:
            sys.exit("scale.py: exporting needs torch and torch-mlir: run bench/models/export.sh once to create "
                     "bench/models/.venv, then bench/models/.venv/bin/python bench/scale.py")
        log(f"   exporting the {layers}-layer Llama-style step with torch-mlir ...")
        text, info = export_llama(layers)
        info.update(source="torch-mlir fx.stateless_fx_import(output_type='linalg-on-tensors'), as is",
                    rotary=True)
    else:
        log(f"   generating the {layers}-layer step (bench/scale_gen.py) ...")
        t0 = time.monotonic()
        text = scale_gen.generate(layers, **{k: WIDTHS[k] for k in scale_gen.SIZES})
        info = dict(export_time_s=round(time.monotonic() - t0, 2),
                    source=f"bench/scale_gen.py --layers {layers}", rotary=False)
    header = (f"// Llama-style training step, {layers} layers, {json.dumps(info.get('widths', WIDTHS), sort_keys=True)}: "
              f"{info['source']}\n// Generated by bench/scale.py -- do not edit.\n")
    if kind == "zoo-llama":
        # The exporter prints the generic form where MLIR 22 does not know an op
        # (tm_tensor.scatter); mlir-opt prints the rest in the custom form, which
        # count_top_level_ops reads. The same ops either way.
        p = subprocess.run(parse_command(kind) + ["-"], input=text, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"scale.py: MLIR 22 does not parse the {name} step: {p.stderr[:2000]}")
        text = p.stdout
    text = header + text
    p = subprocess.run(parse_command(kind) + ["-", "-o", os.devnull], input=text, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"scale.py: MLIR 22 does not parse the {name} step: {p.stderr[:2000]}")
    info.setdefault("widths", WIDTHS)
    info.update(kind=kind, layers=layers, ops=scale_gen.count_top_level_ops(text),
                bytes=len(text))
    with open(path, "w") as f:
        f.write(text)
    if kind != "gen":  # the generator is deterministic and fast: its steps are not kept
        packed = lzma.compress(text.encode(), preset=6)
        if len(packed) < XZ_LIMIT:
            with open(xz, "wb") as f:
                f.write(packed)
    with open(meta_path, "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    log(f"   {info['ops']} top-level ops, {len(text) / 1e6:.1f} MB, {info['export_time_s']} s")
    return path, info


# --------------------------------------------------------------------------- running


def run(cmd, timeout, stdout=None):
    """Runs cmd (its own process group) with a wall-clock limit. Returns wall_s, rc,
    timed_out, max_rss_bytes (the child's ru_maxrss, wait4), stdout (unless written
    to the file `stdout`), stderr's tail."""
    with tempfile.TemporaryFile() as err, (open(stdout, "wb") if stdout else tempfile.TemporaryFile()) as out:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        killed = []

        def kill():
            killed.append(True)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen from waiting
        err.seek(0)
        e = err.read().decode(errors="replace")
        o = ""
        if not stdout:
            out.seek(0)
            o = out.read().decode(errors="replace")
    return dict(wall_s=round(wall, 4), cpu_s=round(ru.ru_utime + ru.ru_stime, 4), rc=p.returncode,
                timed_out=bool(killed), max_rss_bytes=ru.ru_maxrss * 1024,
                stdout=o, stderr=e[-4000:], cmd=" ".join(shlex.quote(c) for c in cmd))


def brief(r, keep_stdout=False):
    d = {k: r[k] for k in ("cmd", "wall_s", "cpu_s", "rc", "max_rss_bytes")}
    if r["timed_out"]:
        d["status"] = "timeout"
    elif r["rc"] != 0:
        d["status"] = f"exit {r['rc']}"
        lines = [ln for ln in r["stderr"].splitlines() if "error" in ln] or r["stderr"].splitlines()[-3:]
        d["error"] = " | ".join(lines)[:600]
    else:
        d["status"] = "ok"
    return d


def report_fields(fn):
    keep = ("num_ops", "peak_bytes_before", "peak_bytes_after", "peak_bytes_planned", "budget_bytes", "budget_met",
            "lower_bound_bytes", "argument_bytes", "baseline_flops", "recompute_flops", "baseline_time_s",
            "recompute_time_s", "copy_bytes_before", "copy_bytes_after", "bufferization_analysis", "parse_time_s",
            "plan_time_s", "pass_time_s", "naming_time_s", "total_time_s", "phase_times_s", "max_rss_bytes")
    d = {k: fn[k] for k in keep if k in fn}
    # later fields of issue 21 item 5 (phase times, effort) are kept as they come
    for k, v in fn.items():
        if (k.endswith("_time_s") or k.startswith("effort") or k.endswith("_effort")) and k not in d:
            d[k] = v
    d["num_decisions"] = len(fn.get("decisions", []))
    d["num_unsupported_ops"] = len(fn.get("unsupported_ops", []))
    if fn.get("baseline_flops"):
        d["recompute_share_flops"] = fn.get("recompute_flops", 0) / fn["baseline_flops"]
    if fn.get("baseline_time_s"):
        d["recompute_share_time"] = fn.get("recompute_time_s", 0) / fn["baseline_time_s"]
    return d


def parse_timing(text):
    """mlir-opt --mlir-timing --mlir-timing-display=list: {pass: wall s} and the total."""
    passes, total = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*([\d.]+)\s+\(\s*[\d.]+%\)\s+(.+?)\s*$", line)
        if not m:
            continue
        t, name = float(m.group(1)), m.group(2)
        if name == "Total":
            total = t
        elif name not in ("root", "Rest"):
            passes[name] = passes.get(name, 0.0) + t
    return total, passes


def measure(name, a, log, work):
    path, info = step_file(name, log)
    ro, rr = a.remat_opt, a.remat_run
    T = a.timeout
    res = dict(size=name, file=os.path.relpath(path, ROOT), ops=info["ops"], bytes=info["bytes"], export=info,
               date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               loadavg_start=open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else None)
    steps = a.steps

    def say(msg):
        log(f"   {msg}")

    if "parse" in steps:
        runs = [run(parse_command(info.get("kind")) + [path, "-o", os.devnull], T) for _ in range(a.repeat)]
        ok = [r for r in runs if r["rc"] == 0 and not r["timed_out"]]
        res["parse"] = brief(min(ok, key=lambda r: r["wall_s"]) if ok else runs[0])
        res["parse"]["runs_s"] = [r["wall_s"] for r in runs]
        res["parse"]["cpu_s"] = min(r["cpu_s"] for r in runs)  # the min of each, separately
        say(f"mlir-opt parse+print: {res['parse']['wall_s']:.3f} s (cpu {res['parse']['cpu_s']:.3f} s; min of {a.repeat})")
    parse_s = res.get("parse", {}).get("wall_s") if res.get("parse", {}).get("status") == "ok" else None
    est_failed = None
    if "estimate" in steps:
        r = run([ro, "--estimate", "--report=json", path], T)
        res["estimate"] = brief(r)
        if res["estimate"]["status"] == "ok":
            fn = json.loads(r["stdout"])["functions"][0]
            res["estimate"].update(report_fields(fn))
            res["num_ops"] = fn["num_ops"]
        else:
            est_failed = res["estimate"]["status"]
        say(f"remat-opt --estimate: {res['estimate']['status']}, {r['wall_s']:.2f} s (cpu {r['cpu_s']:.2f} s), "
            f"RSS {r['max_rss_bytes'] / 1e6:.0f} MB" + (f", {'>' if r['timed_out'] else ''}"
                                                         f"{r['wall_s'] / parse_s:.1f}x parse" if parse_s else ""))

    def skipped():
        if est_failed and not a.keep_going:
            return {"status": f"skipped (estimate: {est_failed})"}
        return None

    if "plan" in steps:
        res["plan"] = {}
        for b in a.budgets:
            s = skipped()
            if s:
                res["plan"][b] = s
                continue
            rep = os.path.join(work, "plan.json")
            if os.path.exists(rep):
                os.remove(rep)
            r = run([ro, f"--budget={b}", "--report=json", f"--report-file={rep}", path, "-o", os.devnull], T)
            d = brief(r)
            if os.path.exists(rep) and os.path.getsize(rep):
                try:
                    d.update(report_fields(json.load(open(rep))["functions"][0]))
                except (ValueError, KeyError, IndexError):
                    pass
            res["plan"][b] = d
            extra = ""
            if d["status"] == "ok":
                extra = (f", planned peak {d.get('peak_bytes_planned', 0) / 1e6:.2f} MB of "
                         f"{d.get('peak_bytes_before', 0) / 1e6:.2f}, recompute {100 * d.get('recompute_share_flops', 0):.1f}% "
                         f"of flops, plan_time_s {d.get('plan_time_s')}")
            elif "error" in d:
                extra = ": " + d["error"][:160]
            say(f"--budget={b}: {d['status']}, {r['wall_s']:.2f} s (cpu {r['cpu_s']:.2f} s), RSS {r['max_rss_bytes'] / 1e6:.0f} MB"
                + (f", {'>' if r['timed_out'] else ''}{r['wall_s'] / parse_s:.1f}x parse" if parse_s else "") + extra)
    norm = os.path.join(work, "norm.mlir")
    if "cpu" in steps or "pipeline" in steps:
        s = skipped()
        if s:
            res["normalize"] = s
        else:
            r = run([ro, path, "-o", norm], T)
            res["normalize"] = brief(r)
            say(f"remat-opt FILE -o norm.mlir: {res['normalize']['status']}, {r['wall_s']:.2f} s")
    if "cpu" in steps:
        s = skipped()
        if s:
            res["lower_cpu"] = s
        else:
            r = run([ro, "--lower=cpu", path, "-o", os.devnull], T)
            res["lower_cpu"] = d = brief(r)
            if d["status"] == "ok" and res.get("normalize", {}).get("status") == "ok":
                d["mlir_pipeline_s"] = round(r["wall_s"] - res["normalize"]["wall_s"], 4)
                d["mlir_pipeline_share"] = d["mlir_pipeline_s"] / r["wall_s"]
                d["mlir_pipeline_cpu_s"] = round(r["cpu_s"] - res["normalize"]["cpu_s"], 4)
                d["mlir_pipeline_cpu_share"] = round(d["mlir_pipeline_cpu_s"] / r["cpu_s"], 3)
            say(f"remat-opt --lower=cpu: {d['status']}, {r['wall_s']:.2f} s, RSS {r['max_rss_bytes'] / 1e6:.0f} MB"
                + (f", MLIR pipeline ~{100 * d['mlir_pipeline_share']:.0f}%" if "mlir_pipeline_share" in d else ""))
    if "pipeline" in steps:
        if res.get("normalize", {}).get("status") != "ok":
            res["pipeline"] = {"status": "skipped (no normalized step)"}
        else:
            r = run([MLIR_OPT, norm, f"--pass-pipeline={CPU_PIPELINE}", "--mlir-timing",
                     "--mlir-timing-display=list", "-o", os.devnull], T)
            d = brief(r)
            total, passes = parse_timing(r["stderr"] if r["rc"] == 0 else "")
            if total:
                d["total_s"] = total
                top = sorted(passes.items(), key=lambda kv: -kv[1])[:8]
                d["passes_s"] = {k: round(v, 4) for k, v in top}
                ob = sum(v for k, v in passes.items() if "OneShotBufferize" in k or "one-shot-bufferize" in k)
                d["one_shot_bufferize_s"] = round(ob, 4)
            res["pipeline"] = d
            say(f"mlir-opt CPU pipeline: {d['status']}, {r['wall_s']:.2f} s"
                + (f" (one-shot-bufferize {d['one_shot_bufferize_s']:.2f} s)" if total else ""))
    if "run" in steps:
        s = skipped()
        if s:
            res["run"] = s
        else:
            r = run([rr, "--json", path], T)
            d = brief(r)
            if d["status"] == "ok":
                j = json.loads(r["stdout"].strip().splitlines()[-1])
                d.update(step_time_s=j["step_time_s"], measured_peak_bytes=j["peak_bytes"])
                est = res.get("estimate", {}).get("peak_bytes_before")
                if est is not None:
                    d["measured_equals_estimate"] = j["peak_bytes"] == est
                # Where remat-run's wall time goes, roughly: MLIR's CPU pipeline as remat-opt
                # --lower=cpu runs it (the cpu step; before 2026-12-02, mlir-opt's time on the
                # unhinted input, the pipeline step), the step itself, and the rest (parse,
                # remat's driver, LLVM's JIT codegen at -O0, inputs and checksums).
                lc = res.get("lower_cpu", {})
                if "mlir_pipeline_cpu_s" in lc:
                    pc = lc["mlir_pipeline_cpu_s"]
                    d["approx_mlir_pipeline_cpu_s"] = pc
                    d["approx_rest_cpu_s"] = round(r["cpu_s"] - pc - j["step_time_s"], 3)
                    d["approx_mlir_pipeline_cpu_share"] = round(pc / r["cpu_s"], 3)
                pt = lc.get("mlir_pipeline_s") or res.get("pipeline", {}).get("total_s")
                if pt:
                    d["approx_mlir_pipeline_s"] = pt
                    d["approx_rest_s"] = round(r["wall_s"] - pt - j["step_time_s"], 3)
                    d["approx_mlir_pipeline_share"] = round(pt / r["wall_s"], 3)
            res["run"] = d
            say(f"remat-run: {d['status']}, {r['wall_s']:.2f} s, RSS {r['max_rss_bytes'] / 1e6:.0f} MB"
                + (f", step {d['step_time_s']:.3f} s, measured peak == estimate: {d.get('measured_equals_estimate')}"
                   if d["status"] == "ok" else "")
                + (f", MLIR's CPU pipeline ~{100 * d['approx_mlir_pipeline_share']:.0f}% (rest: parse, driver, "
                   f"JIT {d['approx_rest_s']:.1f} s)" if "approx_mlir_pipeline_share" in d else ""))
    if "gpu" in steps:
        s = skipped()
        if s:
            res["lower_gpu"] = s
        else:
            rt = run([ro, "--lower=gpu-tensors", path, "-o", os.devnull], T)
            r = run([ro, "--lower=gpu", path, "-o", os.devnull], T)
            d = brief(r)
            d["gpu_tensors"] = brief(rt)
            if d["status"] == "ok" and d["gpu_tensors"]["status"] == "ok":
                d["mlir_pipeline_s"] = round(r["wall_s"] - rt["wall_s"], 4)
                d["mlir_pipeline_share"] = d["mlir_pipeline_s"] / r["wall_s"]
                d["mlir_pipeline_cpu_s"] = round(r["cpu_s"] - rt["cpu_s"], 4)
                d["mlir_pipeline_cpu_share"] = round(d["mlir_pipeline_cpu_s"] / r["cpu_s"], 3)
            res["lower_gpu"] = d
            say(f"remat-opt --lower=gpu: {d['status']}, {r['wall_s']:.2f} s, RSS {r['max_rss_bytes'] / 1e6:.0f} MB "
                f"(gpu-tensors {rt['wall_s']:.2f} s, {d['gpu_tensors']['status']})"
                + (f", MLIR pipeline ~{100 * d['mlir_pipeline_share']:.0f}%" if "mlir_pipeline_share" in d else ""))
    return res


def check_peak_against_estimate(entry, log):
    """A `--steps run` merged into an entry whose estimate came from an earlier run: compare
    the measured peak with that estimate (same file; the estimate's commit is recorded)."""
    run, est = entry.get("run"), entry.get("estimate")
    if not isinstance(run, dict) or run.get("status") != "ok" or "measured_equals_estimate" in run:
        return
    if not isinstance(est, dict) or est.get("peak_bytes_before") is None:
        return
    run["measured_equals_estimate"] = run["measured_peak_bytes"] == est["peak_bytes_before"]
    run["estimate_commit"] = est.get("commit")
    log(f"   measured peak {run['measured_peak_bytes']} == the entry's estimate (commit {est.get('commit')}): "
        f"{run['measured_equals_estimate']}")


STEP_KEYS = ("parse", "estimate", "normalize", "lower_cpu", "pipeline", "run", "lower_gpu")


def add_ratios(res):
    """ratio_to_parse, cpu_ratio_to_parse and targets_met from the entry's step records."""
    for k in ("ratio_to_parse", "cpu_ratio_to_parse", "targets_met"):
        res.pop(k, None)
    parse_s = res.get("parse", {}).get("wall_s") if res.get("parse", {}).get("status") == "ok" else None
    if parse_s:
        ratios = {}
        if res.get("estimate", {}).get("status") == "ok":
            ratios["estimate"] = res["estimate"]["wall_s"] / parse_s
        for b, d in res.get("plan", {}).items():
            if d.get("status") == "ok" or (d.get("status", "").startswith("exit") and "wall_s" in d):
                ratios[f"budget={b}"] = d["wall_s"] / parse_s
        for k in ("lower_cpu", "run", "lower_gpu"):
            if res.get(k, {}).get("status") == "ok":
                ratios[k] = res[k]["wall_s"] / parse_s
        res["ratio_to_parse"] = {k: round(v, 2) for k, v in ratios.items()}
        # the same in CPU time (user + sys of the child): steadier on a shared machine
        pc = res["parse"].get("cpu_s")
        if pc:
            cr = {}
            for k in ratios:
                d = (res["estimate"] if k == "estimate" else res["plan"][k.split("=", 1)[1]] if k.startswith("budget=")
                     else res[k])
                if d.get("cpu_s") is not None:
                    cr[k] = round(d["cpu_s"] / pc, 2)
            res["cpu_ratio_to_parse"] = cr
        t = {}
        if "estimate" in ratios:
            t["estimate<=3x"] = ratios["estimate"] <= 3
        if res.get("plan", {}).get("50%", {}).get("status") == "ok":
            t["budget50<=10x"] = ratios["budget=50%"] <= 10
        rss = [d.get("max_rss_bytes", 0) for d in [res.get("estimate", {})] + list(res.get("plan", {}).values())]
        if rss:
            t["rss<2GB"] = max(rss) < 2e9
        res["targets_met"] = t


def merge(old, new, fresh):
    """The size's entry after this run: the new step records over the old entry's (same
    file and op count; plans merged per budget), unless `fresh`. `runs` lists every run
    that wrote into it, and each step record carries the commit it was measured at."""
    if fresh or not old or old.get("ops") != new.get("ops") or old.get("file") != new.get("file"):
        out = dict(new)
        out["runs"] = []
    else:
        out = dict(old)
        out.update({k: v for k, v in new.items() if k != "plan"})
        out["plan"] = dict(old.get("plan", {}), **new.get("plan", {}))
        if "runs" not in out:  # an entry written before `runs` existed
            out["runs"] = [{k: old.get(k) for k in ("date", "command") if k in old}
                           | {"commit": old.get("machine", {}).get("commit")}]
    out["runs"] = out["runs"] + [dict(date=new["date"], command=new.get("command"),
                                      commit=new.get("machine", {}).get("commit"), loadavg=new.get("loadavg_start"),
                                      steps=new.get("steps"))]
    add_ratios(out)
    return out


# --------------------------------------------------------------------------- output


def machine():
    cpu = cpu_model("?")

    def sh(c):
        try:
            return subprocess.run(c, shell=True, capture_output=True, text=True, cwd=ROOT).stdout.strip()
        except OSError:
            return "?"
    return dict(uname=" ".join(platform.uname()), nproc=os.cpu_count(), cpu=cpu,
                loadavg=open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else None,
                commit=sh("git rev-parse --short HEAD"), dirty=bool(sh("git status --porcelain -- lib tools include")))


SERIES = [  # (label, getter of wall seconds or None, status getter)
    ("mlir-opt parse+print", lambda r: r.get("parse")),
    ("remat-opt --estimate", lambda r: r.get("estimate")),
    ("--budget=70%", lambda r: r.get("plan", {}).get("70%")),
    ("--budget=50%", lambda r: r.get("plan", {}).get("50%")),
    ("--budget=35%", lambda r: r.get("plan", {}).get("35%")),
    ("--lower=cpu", lambda r: r.get("lower_cpu")),
    ("remat-run", lambda r: r.get("run")),
    ("--lower=gpu", lambda r: r.get("lower_gpu")),
]


def is_zoo(r):
    return r.get("export", {}).get("kind") == "zoo-llama"


def main_series(results):
    """The sizes of one model (the Llama exports and the generated step): the zoo
    model's sizes are another model, plotted as their own points and not fitted."""
    return {k: r for k, r in results.items() if not is_zoo(r)}


def fits(results):
    """{series: {"exponent", "points"}} from numpy.polyfit on log(time) ~ log(ops) over
    the sizes where the run finished (a plan refused for its budget counts: it ran)."""
    results = main_series(results)
    import math
    try:
        import numpy as np
    except ImportError:  # the same least-squares line by hand
        np = None
    out = {}
    for label, get in SERIES:
        pts = []
        for r in results.values():
            d = get(r)
            if d and "wall_s" in d and d.get("status") in ("ok",) and r.get("ops"):
                pts.append((r["ops"], d["wall_s"]))
        if len(pts) >= 2 and len({p[0] for p in pts}) >= 2:
            x = [math.log(p[0]) for p in pts]
            y = [math.log(max(p[1], 1e-4)) for p in pts]
            if np is not None:
                k, c = np.polyfit(x, y, 1)
            else:
                mx, my = sum(x) / len(x), sum(y) / len(y)
                k = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)
                c = my - k * mx
            out[label] = dict(exponent=round(float(k), 3), coefficient=math.exp(float(c)), points=len(pts))
    return out


def plot(doc, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scale.py: no matplotlib here: plot skipped (bench/models/.venv has it)")
        return
    zoo = sorted((r for r in doc["sizes"].values() if is_zoo(r)), key=lambda r: r.get("ops", 0))
    results = main_series(doc["sizes"])
    fig, ax = plt.subplots(figsize=(11.5, 5.5))
    fitd = doc.get("fits", {})
    for i, (label, get) in enumerate(SERIES):
        ok, to = [], []
        for r in results.values():
            d = get(r)
            if not d or "wall_s" not in d or not r.get("ops"):
                continue
            (ok if d.get("status") == "ok" else to if d.get("status") == "timeout" else []).append(
                (r["ops"], d["wall_s"]))
        if not ok and not to:
            continue
        color = f"C{i}"
        ok.sort()
        lab = label + (f"  (~ops^{fitd[label]['exponent']:.2f})" if label in fitd else "")
        if ok:
            ax.plot([p[0] for p in ok], [p[1] for p in ok], "o-", color=color, label=lab)
        if i == 0:  # name the sizes under the parse points
            for name, r in results.items():
                d = get(r)
                if d and "wall_s" in d and r.get("ops"):
                    ax.annotate(name, (r["ops"], d["wall_s"]), textcoords="offset points", xytext=(0, -14),
                                ha="center", fontsize=8, color=color)
        if to:
            ax.plot([p[0] for p in to], [p[1] for p in to], "x", color=color, markersize=10,
                    label=None if ok else lab + " (timeout)")
    for i, (label, get) in enumerate(SERIES):  # the zoo model: hollow markers, same colours
        pts = [(r["ops"], get(r)["wall_s"]) for r in zoo
               if get(r) and get(r).get("status") == "ok" and "wall_s" in get(r)]
        if pts and label in ("mlir-opt parse+print", "--budget=50%", "--budget=35%", "--lower=cpu"):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "s--", mfc="none", color=f"C{i}", lw=0.8,
                    label=f"{label}: zoo Llama (nn.Embedding, cross-entropy, SDPA)")
    par = sorted((r["ops"], r["parse"]["wall_s"]) for r in results.values()
                 if r.get("ops") and r.get("parse", {}).get("status") == "ok")
    if par:  # the targets of issue 21, against the parse time of the same file
        ax.plot([p[0] for p in par], [3 * p[1] for p in par], "--", color="gray", lw=1,
                label="target of --estimate: 3x parse+print")
        ax.plot([p[0] for p in par], [10 * p[1] for p in par], ":", color="gray", lw=1.5,
                label="target of --budget=50%: 10x parse+print")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("top-level ops in the step")
    ax.set_ylabel("wall time (s)")
    m = doc.get("machine", {})
    commits = sorted({d["commit"] for r in doc["sizes"].values() for d in r.values()
                      if isinstance(d, dict) and d.get("commit")} |
                     {d["commit"] for r in doc["sizes"].values() for d in r.get("plan", {}).values()
                      if isinstance(d, dict) and d.get("commit")})
    ax.set_title(f"remat at scale (issue 21): Llama-style steps; x = timed out\n{m.get('cpu', '')}, "
                 f"{m.get('nproc', '?')} cores, commit{'s' if len(commits) > 1 else ''} {', '.join(commits)}",
                 fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {os.path.relpath(path, ROOT)}")


def summary(results, log):
    log("\n== summary (wall s; x = ratio to mlir-opt parse+print; targets: estimate <= 3x, 50% <= 10x)")
    cols = ["parse", "estimate", "70%", "50%", "35%", "lower=cpu", "remat-run", "lower=gpu", "max RSS MB"]
    log(f"{'size':>6} {'ops':>7} " + " ".join(f"{c:>14}" for c in cols))
    for name, r in sorted(results.items(), key=lambda kv: kv[1].get("ops", 0)):
        p = r.get("parse", {}).get("wall_s") if r.get("parse", {}).get("status") == "ok" else None

        def cell(d):
            if not d:
                return "-"
            st = d.get("status", "")
            if st == "timeout":
                return f">{d['wall_s']:.0f} TO"
            if st != "ok":
                return st.split(" (")[0][:14]
            s = f"{d['wall_s']:.2f}"
            return s + (f" {d['wall_s'] / p:.1f}x" if p else "")
        pl = r.get("plan", {})
        rss = [d.get("max_rss_bytes", 0) for d in [r.get("estimate") or {}] + list(pl.values())]
        vals = [f"{p:.3f}" if p else "-", cell(r.get("estimate")), cell(pl.get("70%")), cell(pl.get("50%")),
                cell(pl.get("35%")), cell(r.get("lower_cpu")), cell(r.get("run")), cell(r.get("lower_gpu")),
                f"{max(rss) / 1e6:.0f}" if rss else "-"]
        log(f"{name:>6} {r.get('ops', 0):>7} " + " ".join(f"{v:>14}" for v in vals))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated (default: %(default)s)")
    ap.add_argument("--steps", default=",".join(STEPS), help="comma-separated (default: %(default)s)")
    ap.add_argument("--budgets", default="70%,50%,35%")
    ap.add_argument("--timeout", type=float, default=600, help="per command, seconds (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="parse runs per size (the min is kept)")
    ap.add_argument("--build", default=None, help="build directory with bin/remat-opt, bin/remat-run "
                    "(default: build-bench/, else build/)")
    ap.add_argument("--keep-going", action="store_true", help="run the later steps even when --estimate failed")
    ap.add_argument("--export-only", action="store_true", help="export/generate the sizes, measure nothing")
    ap.add_argument("--plot-only", action="store_true", help="redraw the plot from results/scale.json")
    ap.add_argument("--results", default=RESULTS_JSON)
    ap.add_argument("--no-write", action="store_true", help="print only; results/ untouched")
    ap.add_argument("--fresh", action="store_true",
                    help="replace each size's entry (default: merge this run's steps into it)")
    a = ap.parse_args()
    a.budgets = [b.strip() for b in a.budgets.split(",") if b.strip()]
    a.steps = [s.strip() for s in a.steps.split(",") if s.strip()]
    bad = [s for s in a.steps if s not in STEPS]
    if bad:
        sys.exit(f"scale.py: unknown steps {bad} (known: {', '.join(STEPS)})")
    png = os.path.splitext(a.results)[0] + ".png"

    def log(msg):
        print(msg, flush=True)

    doc = {"sizes": {}}
    if os.path.exists(a.results):
        doc = json.load(open(a.results))
    if a.plot_only:
        doc["fits"] = fits(doc["sizes"])
        plot(doc, png)
        return
    build = a.build
    if not build:
        for b in ("build-bench", "build"):
            if os.path.exists(os.path.join(ROOT, b, "bin", "remat-opt")):
                build = os.path.join(ROOT, b)
                break
    if not build:
        sys.exit("scale.py: no remat-opt: build it (scripts/setup.sh) or pass --build")
    a.remat_opt = os.path.join(build, "bin", "remat-opt")
    a.remat_run = os.path.join(build, "bin", "remat-run")
    m = machine()
    cmd = " ".join(shlex.quote(x) for x in [os.path.relpath(sys.executable, ROOT)
                                           if sys.executable.startswith(ROOT) else sys.executable] + sys.argv)
    cache = os.path.join(build, "CMakeCache.txt")
    btype = "?"
    if os.path.exists(cache):
        mm = re.search(r"^CMAKE_BUILD_TYPE:STRING=(.*)$", open(cache).read(), re.M)
        btype = mm.group(1) if mm else "?"
    log(f"machine: {m['uname']}\n         {m['nproc']} cores, {m['cpu']}, load {m['loadavg']}")
    log(f"remat: commit {m['commit']}{' (lib/tools modified)' if m['dirty'] else ''}, "
        f"{os.path.relpath(build, ROOT)} ({btype}); mlir-opt: {MLIR_OPT}")
    log(f"command: {cmd}")
    names = [s.strip() for s in a.sizes.split(",") if s.strip()]
    for n in names:
        size_spec(n)
    if a.export_only:
        for n in names:
            log(f"== {n}")
            step_file(n, log)
        return
    with tempfile.TemporaryDirectory(prefix="remat-scale-") as work:
        for n in names:
            log(f"== {n}")
            r = measure(n, a, log, work)
            r.update(machine=m, command=cmd, build=os.path.relpath(build, ROOT), build_type=btype,
                     timeout_s=a.timeout, steps=a.steps)
            for k in STEP_KEYS:
                if isinstance(r.get(k), dict):
                    r[k]["commit"] = m["commit"]
            for d in r.get("plan", {}).values():
                d["commit"] = m["commit"]
            add_ratios(r)
            r = doc["sizes"][n] = merge(doc["sizes"].get(n), r, a.fresh)
            check_peak_against_estimate(r, log)
            if not a.fresh and r.get("runs") and len(r["runs"]) > 1:
                log(f"   merged into the size's entry of {r['runs'][-2].get('date')} (--fresh replaces it)")
            doc["machine"] = m
            doc["fits"] = fits(doc["sizes"])
            if not a.no_write:  # after every size: an interrupted run keeps what it measured
                os.makedirs(os.path.dirname(a.results), exist_ok=True)
                with open(a.results, "w") as f:
                    json.dump(doc, f, indent=1, sort_keys=True)
                    f.write("\n")
    summary(doc["sizes"], log)
    for label, f in doc.get("fits", {}).items():
        log(f"   fitted: {label}: time ~ ops^{f['exponent']:.2f} over {f['points']} sizes")
    if not a.no_write:
        log(f"wrote {os.path.relpath(a.results, ROOT)}")
        plot(doc, png)


if __name__ == "__main__":
    main()
