#!/usr/bin/env python3
"""One row of portfolio-ablation.md: plans the 128 cases (examples, ci and zoo ci
exports at 70/50/35%; bench/graphs/moccasin at 90..50%) with REMAT_SKIP=STEPS and
records cost, peak, met and time per case in LABEL.json next to this script.

    REMAT_OPT=BUILD/bin/remat-opt python3 run_ablation.py LABEL STEPS|none

REMAT_OPT must be a build with portfolio-experiments.patch applied (the committed
remat-opt ignores REMAT_SKIP). Standard library only."""
import glob, json, lzma, os, subprocess, sys, tempfile, time
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BIN = os.environ.get('REMAT_OPT') or sys.exit('set REMAT_OPT to a remat-opt built with portfolio-experiments.patch')
label, skip = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix='remat-ablation-')
env = dict(os.environ, REMAT_SKIP=skip)
files = sorted(glob.glob(ROOT+'/examples/*.mlir'))+sorted(glob.glob(ROOT+'/bench/models/ir/*.ci*.mlir.xz'))+sorted(glob.glob(ROOT+'/bench/models/zoo/ir/*.ci*.mlir.xz'))
res = {}
for f in files:
    rel = os.path.relpath(f, ROOT)
    p = f
    if f.endswith('.xz'):
        p = os.path.join(TMP, rel.replace('/','_')[:-3])
        if not os.path.exists(p):
            open(p,'wb').write(lzma.open(f).read())
    for b in ('70%','50%','35%'):
        t=time.monotonic()
        r = subprocess.run(['nice', BIN, p, '--budget='+b, '--estimate', '--report=json', '--quiet'], capture_output=True, text=True, env=env)
        dt=time.monotonic()-t
        try:
            fs=json.loads(r.stdout)['functions']
            res[rel+' '+b]={'cost':sum(x['recompute_time_s'] for x in fs),'peak':max(x['peak_bytes_after'] for x in fs),'met':all(x['peak_bytes_after']<=x['budget_bytes'] for x in fs),'t':dt}
        except Exception:
            res[rel+' '+b]={'err':r.stderr[-200:].strip(),'t':dt}
for g in sorted(glob.glob(ROOT+'/bench/graphs/moccasin/*.json')):
    for b in ('90%','80%','70%','60%','50%'):
        t=time.monotonic()
        r = subprocess.run(['nice', BIN, '--graph='+g, '--budget='+b, '--report=json'], capture_output=True, text=True, env=env)
        dt=time.monotonic()-t
        try:
            x=json.loads(r.stdout)['functions'][0]
            res[os.path.basename(g)+' '+b]={'cost':x['recompute_cost'],'peak':x['peak_bytes_after'],'met':x['budget_met'],'t':dt}
        except Exception:
            res[os.path.basename(g)+' '+b]={'err':(r.stderr or '')[-200:].strip(),'t':dt}
json.dump(res, open(os.path.join(HERE, '%s.json' % label), 'w'), indent=0)
print(label, 'done', sum(v['t'] for v in res.values()))
