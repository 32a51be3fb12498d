#!/usr/bin/env python3
"""Renders portfolio-ablation.json (run_ablation.py's records, one per variant) as the
markdown table of portfolio-ablation.md. Standard library only."""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = {
    'restarts': 'step 4 on the first plan (improveByRestarts)',
    'looser': 'step 5(a) for the first plan (planFromLooserBudget, default options)',
    'vFF': 'step 5(c): without joint recomputation (and from 1.1x the budget)',
    'vTF': 'step 5(d): returned values as candidates, without joint (and from 1.1x)',
    'vTT': 'step 5(b): returned values as candidates (and from 1.1x the budget)',
    'repair': 'step 6, repairs (repairPlan)',
    'noise': 'step 7, noise restarts',
    'keep': 'step 7, keeping inputs freed after the peak',
    'cover': 'step 7, the exact cover',
    'kicks': 'step 7, kicks',
    'combo': 'the first three rows together',
    'wfirst': '(a change) over the budget: windows before the kicks, and after them again',
    'wshared': '(a change) as above, both window passes within one work limit',
}


def smallest(err):
    """The smallest budget a refusal names (the planner's floor), or None."""
    m = re.search(r'smallest budget (?:known to work is|that works is the lower bound itself,) (\d+)', err or '')
    return int(m.group(1)) if m else None


def main():
    allr = json.load(open(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, 'portfolio-ablation.json')))
    base = allr['base']
    print('| left out / changed | cheaper | dearer | budget lost | budget won | stuck lower | stuck higher '
          '| best ratio | worst ratio | planning time |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for lab, rec in allr.items():
        if lab == 'base':
            continue
        ch = de = lost = won = low = high = 0
        best = worst = 1.0
        tb = sum(v['t'] for v in base.values())
        tn = sum(rec[k]['t'] for k in base)
        for k, b in base.items():
            x = rec[k]
            bm, nm = b.get('met', False), x.get('met', False)
            if bm and not nm:
                lost += 1
            elif nm and not bm:
                won += 1
            elif bm and nm:
                r = x['cost'] / b['cost'] if b['cost'] else (1.0 if x['cost'] == 0 else float('inf'))
                if r < 1 - 1e-9:
                    ch, best = ch + 1, min(best, r)
                elif r > 1 + 1e-9:
                    de, worst = de + 1, max(worst, r)
            else:
                a = b['peak'] if 'err' not in b else smallest(b['err'])
                c = x['peak'] if 'err' not in x else smallest(x['err'])
                if a is not None and c is not None:
                    low += c < a
                    high += c > a
        print(f'| {NAMES.get(lab, lab)} | {ch} | {de} | {lost} | {won} | {low} | {high} | {best:.3f} | {worst:.3f} '
              f'| x{tn / tb:.2f} |')


if __name__ == '__main__':
    main()
