#!/usr/bin/env python3
"""Prints the stable part of a Tera render error read from tera-ref's output
on stdin, for a case's expected.message (regenerate_expected.sh): the text of
the innermost error of the chain, as Tera displays it, without the name
tera-ref gives the template (" while rendering 't'"). Prints nothing for a
parse error (pest's text, with a caret drawing) or a message of several lines
(regular expression errors: Sindri's come from PCRE2, see docs/tera.md), nor
one that shows Rust's debug form of a value or of the template's syntax tree
(`Number(1)`, `Expr { val: Ident("n"), ... }`), which Sindri has not."""
import re
import sys

DISPLAY = {"TemplateNotFound": "Template '%s' not found", "FilterNotFound": "Filter '%s' not found",
           "TestNotFound": "Test '%s' not found", "FunctionNotFound": "Function '%s' not found"}

text = sys.stdin.read()
errors = re.findall(r'kind: (\w+)\("((?:[^"\\]|\\.)*)"\)', text)
if text.startswith("ERROR render") and errors:
    kind, raw = errors[-1]
    inner = raw.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
    inner = re.sub(r" while rendering '[^']*'$", "", inner)
    message = DISPLAY[kind] % inner if kind in DISPLAY else inner if kind == "Msg" else ""
    rust_debug = re.search(r"\b(Expr \{|Number\(|String\(|Bool\(|Null\b|Array\(|Object\()", message)
    if message and "\n" not in message and "'t'" not in message and not rust_debug:
        print(message)
