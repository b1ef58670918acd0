#!/usr/bin/env python3
"""Provenance of lkp-001.expected / lkp-001.input (run by hand, not by tests).

expected: the comparison rows of ../../../shared/reference/lkp-reports/
001_a29942100598b35d.txt, unquoted (">>>>> " and the mail's 2-space indent
removed, the mis-decoded "\u0105" put back to "\u00b1").  input: for each
row, two base and two new run values (mean -+ sd) whose mean and
population stddev reproduce the printed numbers; found by searching the
rounding interval of each printed mean so that the printed change comes
out too.
"""
import math, sys

REPORT = sys.argv[1]

def val(avg, sd):
    if abs(avg) < 1000: s = '%10.2f' % avg
    elif abs(avg) > 1e8: s = '%10.4g' % avg
    else: s = '%10d' % int(avg)
    rel = 100 * sd / avg if avg != 0 else sd
    return s + (' \u00b1%3d%%' % int(rel) if rel > 2 else ' ' * 6)

def row(key, mb, sb, mn, sn):
    absolute = key.startswith('perf-profile') or key.endswith('%')
    if absolute: p = mn - mb
    else:
        b = mb if mb != 0 else 1e-100
        p = 100.0 * (mn - b) / b
    f = '.1f' if abs(p) < 100000 else '.2g'
    ch = ('%+10' + f + '  ') % p if absolute else ('%+10' + f + '%% ') % p
    return val(mb, sb) + ch + val(mn, sn) + '  ' + key

def parse_num(tok):
    return float(tok)

def candidates(shown):
    x = float(shown)
    if 'e' in shown:
        m, e = shown.split('e'); dec = len(m.split('.')[1]) if '.' in m else 0
        half = 0.5 * 10 ** (int(e) - dec)
    elif '.' in shown:
        half = 0.5 * 10 ** -len(shown.split('.')[1])
    else:
        half = 0.5
    return [x] + [x + half * k / 50.0 for k in range(-49, 50) if k]

lines = open(REPORT, encoding='utf-8', errors='replace').read().split('\n')
exp, inp = [], []
for l in lines:
    if not l.startswith('>>>>> '): continue
    body = l[8:].replace('\u0105', '\u00b1')
    parts = body.split()
    if len(parts) < 4 or not parts[-1][0].isalpha() and not parts[-1][0] == '_': continue
    key = parts[-1]
    if '.' not in key: continue
    toks = [t for t in parts[:-1]]
    # base value [± N%] change new [± N%]; prose lines fail to parse
    try:
        float(toks[0])
    except ValueError:
        continue
    i = 0
    b_shown = toks[i]; i += 1
    b_pct = None
    if toks[i] == '\u00b1': b_pct = int(toks[i+1].rstrip('%')); i += 2
    elif toks[i].startswith('\u00b1'): b_pct = int(toks[i][1:].rstrip('%')); i += 1
    ch = toks[i]; i += 1
    n_shown = toks[i]; i += 1
    n_pct = None
    if i < len(toks):
        t = toks[i]
        n_pct = int((toks[i+1] if t == '\u00b1' else t[1:]).rstrip('%'))
    found = None
    for mb in candidates(b_shown):
        for mn in candidates(n_shown):
            sb = abs(mb) * (b_pct + 0.5) / 100 if b_pct is not None else 0
            sn = abs(mn) * (n_pct + 0.5) / 100 if n_pct is not None else 0
            if row(key, mb, sb, mn, sn) == body:
                found = (mb, sb, mn, sn); break
        if found: break
    if not found and ch.endswith('%') and not (key.startswith('perf-profile') or key.endswith('%')):
        # a small base: solve the base from the new value and the change
        c0 = float(ch.rstrip('%'))
        for mn in candidates(n_shown):
            for k in range(-49, 50):
                mb = mn / (1 + (c0 + k * 0.001) / 100)
                sb = abs(mb) * (b_pct + 0.5) / 100 if b_pct is not None else 0
                sn = abs(mn) * (n_pct + 0.5) / 100 if n_pct is not None else 0
                if row(key, mb, sb, mn, sn) == body:
                    found = (mb, sb, mn, sn); break
            if found: break
    if not found:
        print('no values for: ' + body, file=sys.stderr); continue
    mb, sb, mn, sn = found
    exp.append(body)
    inp.append('%s %.17g %.17g %.17g %.17g' % (key, mb - sb, mb + sb, mn - sn, mn + sn))
open('lkp-001.expected', 'w').write('\n'.join(exp) + '\n')
open('lkp-001.input', 'w').write('# key base_run1 base_run2 new_run1 new_run2 (see make-lkp-golden.py)\n' + '\n'.join(inp) + '\n')
print(len(exp), 'rows')
