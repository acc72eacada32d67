#!/usr/bin/env python3
# Regenerates tests/tera/builtins_reference_*_test.cpp from the .tsv cases with the
# Tera reference renderer (/work/shared/tools/tera-ref/build.sh prints its path):
#   python3 generate.py CASES.tsv OUT.cpp SUITE
# Generates GoogleTest cases whose expectations come from the Tera reference renderer.
import json, subprocess, sys, re, os
REF = os.environ.get("TERA_REF", "/tmp/tera-ref-target/release/tera-ref")

def inner_msg(t):
    ms = re.findall(r'Msg\("((?:[^"\\]|\\.)*)"\)', t)
    if not ms: return None
    m = ms[-1]
    return m.encode('utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')

def run(tpl, ctx):
    open('/tmp/sindri_gen_t.tpl', 'w').write(tpl)
    open('/tmp/sindri_gen_c.json', 'w').write(json.dumps(ctx))
    p = subprocess.run([REF, '/tmp/sindri_gen_t.tpl', '/tmp/sindri_gen_c.json'], capture_output=True, text=True)
    out = p.stdout + p.stderr
    if out.startswith('ERROR') or 'panicked' in out:
        if 'panicked' in out: return ('panic', None)
        return ('err', inner_msg(out))
    return ('ok', out)

def cstr(s):
    return 'R"SINDRI(' + s + ')SINDRI"'

def main(cases_path, out_path, suite):
    lines = []
    n = 0
    for raw in open(cases_path, encoding='utf-8'):
        raw = raw.rstrip('\n')
        if not raw or raw.startswith('#'): continue
        kind, name, inp, args = raw.split('\t')
        ctx = {}
        undefined = inp == 'UNDEF'
        if not undefined and kind != 'function': ctx['v'] = json.loads(inp)
        a = json.loads(args)
        ctx['a'] = a
        if kind == 'filter':
            al = ', '.join('%s=a.%s' % (k, k) for k in a)
            tpl = '{{ v | %s%s | json_encode }}' % (name, '(%s)' % al if a else '')
        elif kind == 'test':
            al = ', '.join('a.%d' % i for i in range(len(a)))
            tpl = '{%% if v is %s%s %%}true{%% else %%}false{%% endif %%}' % (name, '(%s)' % al if a else '')
        elif kind == 'function':
            al = ', '.join('%s=a.%s' % (k, k) for k in a)
            tpl = '{{ %s(%s) | json_encode }}' % (name, al)
        status, res = run(tpl, ctx)
        if status == 'panic':
            print('skip (panics in Tera):', raw, file=sys.stderr); continue
        if status == 'err' and res is None:
            print('skip (parse error):', raw, file=sys.stderr); continue
        n += 1
        call = {'filter': 'filter_case', 'test': 'test_case', 'function': 'function_case'}[kind]
        inp_c = 'nullptr' if undefined or kind == 'function' else cstr(inp)
        if status == 'ok':
            exp = res if kind == 'test' else res
            lines.append('  %s(%s, %s, %s, true, %s);' % (call, cstr(name), inp_c, cstr(args), cstr(exp)))
        else:
            lines.append('  %s(%s, %s, %s, false, %s);' % (call, cstr(name), inp_c, cstr(args), cstr(res)))
    with open(out_path, 'w', encoding='utf-8') as f:
        f.write('// Generated from Tera 1.17 reference renderer outputs (tests/tera/builtins_cases/*.tsv).\n')
        f.write('// Each line: kind, name, input JSON, arguments JSON -> expected JSON output or error message.\n')
        f.write('#include "builtins_test_util.hpp"\n\n')
        chunk = 60
        for ci in range(0, len(lines), chunk):
            f.write('TEST(%s, Reference%d) {\n' % (suite, ci // chunk))
            f.write('\n'.join(lines[ci:ci+chunk]) + '\n}\n\n')
    print(n, 'cases ->', out_path, file=sys.stderr)

main(sys.argv[1], sys.argv[2], sys.argv[3])
