#!/usr/bin/env python3
"""Regenerates expected.jsonl: every operator between every pair of value
kinds, rendered by Tera 1.17 (tera-ref), for operator_matrix_test.cpp.

  TERA_REF=path/to/tera-ref python3 generate.py   (default: build.sh's path)

Each line of expected.jsonl is [template, status, output]: status is tera-ref's
exit code (0 rendered, 2 parse error, 3 render error), output is what it
rendered (empty for an error). The operands are the names in context.json
(one per kind of value), an undefined name and a few literals.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OPERANDS = ["i", "zero", "neg", "f", "fw", "big", "s", "e", "ns", "t", "fa", "nil", "xs", "xe", "o", "oe",
            "nope", "7", "2.5", '"abc"', '""', "true"]
BINARY = ["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "~", "and", "or", "in", "not in"]
LOGIC = ["and", "or"]


def templates():
    for a in OPERANDS:
        for op in BINARY:
            for b in OPERANDS:
                yield "{{ %s %s %s }}" % (a, op, b)
        for op in LOGIC:
            for b in OPERANDS:
                yield "{%% if %s %s %s %%}yes{%% else %%}no{%% endif %%}" % (a, op, b)
        yield "{{ not %s }}" % a
        yield "{{ -%s }}" % a
        yield "{%% if %s %%}yes{%% else %%}no{%% endif %%}" % a
        yield "{%% if not %s %%}yes{%% else %%}no{%% endif %%}" % a


def tera_ref_path():
    if os.environ.get("TERA_REF"):
        return os.environ["TERA_REF"]
    build = os.path.join(HERE, "../../../../shared/tools/tera-ref/build.sh")
    return subprocess.run([build], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]


def main():
    tera_ref = tera_ref_path()
    context = os.path.join(HERE, "context.json")
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        template_file = os.path.join(tmp, "t.tera")
        for template in templates():
            with open(template_file, "w") as f:
                f.write(template)
            p = subprocess.run([tera_ref, template_file, context], capture_output=True)
            if p.returncode not in (0, 2, 3):
                sys.exit("tera-ref exited %d on %s" % (p.returncode, template))
            output = p.stdout.decode("utf-8") if p.returncode == 0 else ""
            lines.append(json.dumps([template, p.returncode, output], ensure_ascii=False))
    with open(os.path.join(HERE, "expected.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("%d templates -> expected.jsonl" % len(lines))


main()
