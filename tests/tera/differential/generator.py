"""Random Tera 1.17 templates and contexts for the differential test (run.py).

A case is a context and one or more templates: one `main.tera`, or, for
includes, imported macros and inheritance, `main.tera` with `part.tera`,
`macros.tera` and `base.tera` beside it. Expressions are built to a wanted
kind of value (int, float, str, bool, list, obj) so that most templates
render; now and then an operand of any kind is taken instead, so that the
errors and the mixed-kind corners are explored too.

Kept out, because Sindri knowingly differs from Tera 1.17 there (docs/tera.md,
"Differences from Tera", and Tera 1.18-1.20's changes) or Tera's answer is
not reproducible:
- integers above 2^63-1 in the context (Sindri's integers are 64-bit signed);
- what only Tera 1.18-1.20 accepts: `abs`, `indent`, macros defined in the
  rendered template, parentheses in conditions, `filesizeformat(binary=...)`;
- what Tera 1.18-1.20 changed: `join` reads `\n` and `\t` in its separator
  as a newline and a tab, and `title` reads an apostrophe followed by a
  letter as part of the word ("O'Neil" in 1.17, "O'neil" in 1.20), so no
  such separator, and no apostrophe before a letter in the strings; and an
  attribute path (sort, unique, map, filter, group_by) is read by 1.20's
  dotted_pointer (an empty path is the element itself), so only plain names;
- now(), get_random(), get_env(): the clock, a random source, the environment;
- what makes Tera panic (range step_by=0, int base outside 2-36, date's
  %z/%Z, strings whose characters outnumber their grapheme clusters); where
  a template reaches a panic anyway (date of a timestamp out of chrono's
  range, i64::MIN % -1), run.py asks only that Sindri refuses it;
- floats in the context with more significant digits than a double keeps
  (17 and more): tera-ref reads its context with serde_json 1.0.87 without
  `float_roundtrip`, whose reading of such a number can be one unit in the
  last place away from the nearest double (0.09299100004789745 prints
  0.09299100004789744); Sindri reads JSON exactly;
- regular expressions beyond the common subset of PCRE2 and Rust's regex;
- date's time zones (the system's tzdata against a copy in Tera).
"""

import json
import random

INTS = [0, 1, -1, 2, 3, 7, 10, 42, -5, 100, 255, 1024, 1000000, 2**31, 2**53, 9223372036854775807,
        -9223372036854775808, 1700000000]
FLOATS = [0.0, 1.5, -2.25, 0.1, 3.0, 1e20, 1e-7, 2.5e10, 123456.789, -0.5, 2.675, 1e100, 0.3333333333333333]
STRINGS = ["", "a", "abc", "Hello World", "héllo wörld", "日本語", "a b  c", "  padded  ", "42", "-7",
           "3.14", "true", "<b>&amp;\"'</b>", "line1\nline2", "with\ttab", "ß straße", "emoji 👍 ok",
           "snake_case_name", "CamelCase", "a,b,c", "x-y.z/w?q=1&r=2", "100%", "ÉCOLE", "students' books",
           "  ", "0", "1e3", "Ǆemo", "tr\\ail"]
# No braces: beside a tag they would make another tag.
TEXT_PIECES = ["a", "b", " ", "  ", "\n", "\n\n", "\t", "x y", "é", "日", ",", ".", "-", ":", "#", "%",
               "[1]", "  \n  "]
# A subset of regular expressions that PCRE2 and Rust's regex read alike.
PATTERNS = ["^a", "b$", "[0-9]+", "^[a-z]+$", "o", "\\\\s", "^$"]
DATE_FORMATS = ["%Y-%m-%d", "%H:%M:%S", "%d/%m/%Y %H:%M", "%a %b %e", "%j", "%s"]
DATE_STRINGS = ["2021-03-04T05:06:07Z", "2021-03-04", "2019-09-19T13:18:48.731+02:00"]
KINDS = ["int", "float", "str", "bool", "list", "obj"]
# How often an operand or argument of any kind is taken instead of the kind
# wanted: often enough to explore errors, rarely enough that most templates
# render (one error refuses the whole template).
DEFAULT_WILD = 0.02
WILD = DEFAULT_WILD


def random_context(rnd):
    """A context with a fixed set of names, each holding a value of one kind."""
    def person(n):
        return {"name": rnd.choice(["ann", "Bob", "zoë", "", "Ann"]), "age": rnd.choice(INTS[:8] + [n]),
                "group": rnd.choice(["a", "b", "a", "b", None, 1] if rnd.random() < 0.2 else ["a", "b"]), "tags": rnd.sample(STRINGS[:8], rnd.randint(0, 3))}
    ctx = {
        "i": rnd.choice(INTS), "j": rnd.choice(INTS[:12]), "k": rnd.choice(INTS),
        "f": rnd.choice(FLOATS), "g": rnd.choice(FLOATS),
        "s": rnd.choice(STRINGS), "t": rnd.choice(STRINGS), "u": rnd.choice(STRINGS),
        "b": rnd.choice([True, False]), "c": rnd.choice([True, False]),
        "z": None,
        "xs": [rnd.choice(INTS[:14]) for _ in range(rnd.randint(2, 5))],
        "fs": [rnd.choice(FLOATS + INTS[:5]) for _ in range(rnd.randint(2, 4))],
        "ws": [rnd.choice(STRINGS) for _ in range(rnd.randint(2, 5))],
        "ms": [rnd.choice([1, "a", None, True, 2.5, [1, 2], {"k": 1}, "", 0]) for _ in range(rnd.randint(0, 4))],
        "ps": [person(n) for n in range(rnd.randint(1, 4))],
        "nest": [[rnd.choice(INTS[:6]) for _ in range(rnd.randint(1, 3))] for _ in range(rnd.randint(1, 3))],
        "xe": [],
        "o": {"name": rnd.choice(STRINGS), "age": rnd.choice(INTS), "tags": rnd.sample(STRINGS, 3),
              "inner": {"x": rnd.choice(INTS), "y": rnd.choice(STRINGS + [None]), "deep": {"v": [1, {"w": "é"}]}},
              "flag": rnd.choice([True, False, None])},
        "oe": {},
        # Keys Tera iterates in byte order: capitals, digits, accents.
        "ko": {key: rnd.choice(INTS[:6] + STRINGS[:4]) for key in rnd.sample(["b", "a", "B", "é", "10", "9", "_"], 4)},
        "ts": rnd.choice([0, 1700000000, 86399, 951782400]),
        "ds": rnd.choice(DATE_STRINGS),
    }
    return ctx


CONTEXT_KINDS = {
    "int": ["i", "j", "k", "ts", "o.age", "o.inner.x", "xs.0", "xs[1]", "nest.0.0"],
    "float": ["f", "g", "fs.0"],
    "str": ["s", "t", "u", "o.name", "ws.0", 'o["name"]', "ds", "o.inner.y", "ps.0.name"],
    "bool": ["b", "c", "o.flag"],
    "list": ["xs", "ws", "ms", "ps", "fs", "nest", "o.tags", "ps.0.tags", "o.inner.deep.v", "xe"],
    "obj": ["o", "oe", "o.inner", "ps.0", "o.inner.deep", "ko"],
    "null": ["z", "o.inner.y"],
    "people": ["ps"],  # a list of objects with name, age, group and tags
    # What date takes: chrono's range of dates is smaller than i64's, and
    # Tera panics past it (even where `if not` would take an error as false).
    "timestamp": ["ts", "ds"],
}
UNDEFINED_NAMES = ["nope", "o.missing", "xs.9", "z.a"]


class Generator:
    def __init__(self, rnd):
        self.rnd = rnd
        self.scopes = [{}]  # name -> kind, for set variables and loop variables
        self.loop_depth = 0
        self.expressions = 0
        self.macros = []  # (name, [argument names]) of macros.tera
        self.includable = False  # whether part.tera is there to include

    # ---------- values ----------

    def chance(self, p):
        return self.rnd.random() < p

    def pick(self, seq):
        return self.rnd.choice(seq)

    def string_literal(self, text=None):
        text = self.pick(STRINGS) if text is None else text
        for quote in ['"', "'", "`"]:
            if quote not in text:
                return quote + text + quote
        return '"a"'

    def literal(self, kind):
        if kind == "int":
            return str(self.pick(INTS[:16] + ["99999999999999999999"] if self.chance(0.02) else INTS[:16]))
        if kind == "float":
            return self.pick(["1.5", "0.1", "-2.25", "3.0", "2.675", "100.0", "0.0", "1.0000001"])
        if kind == "str":
            return self.string_literal()
        if kind == "bool":
            return self.pick(["true", "false", "True", "False"])
        if kind == "list":
            return "[" + ", ".join(self.atom(self.pick(["int", "str", "float", "bool"]))
                                   for _ in range(self.rnd.randint(0, 3))) + "]"
        return self.variable("obj")

    def variable(self, kind):
        names = [n for n, k in self.visible().items() if k == kind]
        if names and self.chance(0.5):
            return self.pick(names)
        if kind in CONTEXT_KINDS:
            return self.pick(CONTEXT_KINDS[kind])
        return self.pick(CONTEXT_KINDS["int"])

    def visible(self):
        merged = {}
        for scope in self.scopes:
            merged.update(scope)
        return merged

    def any_kind(self):
        return self.pick(KINDS + ["null"])

    # ---------- expressions ----------

    def expr(self, kind, depth=0):
        """An expression meant to give a value of `kind`."""
        if self.chance(WILD):
            kind = self.any_kind()
        if depth > 2 or self.chance(0.3):
            return self.atom(kind)
        maker = {"int": self.int_expr, "float": self.float_expr, "str": self.str_expr, "bool": self.bool_expr,
                 "list": self.list_expr, "obj": self.obj_expr, "null": self.atom}[kind]
        return maker(depth + 1) if kind != "null" else self.atom("null")

    def atom(self, kind):
        if self.chance(WILD / 3):
            return self.pick(UNDEFINED_NAMES)
        if kind == "null":
            return self.pick(CONTEXT_KINDS["null"])
        if self.loop_depth and kind == "int" and self.chance(0.2):
            return self.pick(["loop.index", "loop.index0"])
        if self.loop_depth and kind == "bool" and self.chance(0.3):
            return self.pick(["loop.first", "loop.last"])
        if kind in ("int", "float", "str", "bool") and self.chance(0.4):
            return self.literal(kind)
        return self.variable(kind)

    def operand(self, kind, depth):
        """An operand of a binary operator: atoms and filtered values, no bare operators."""
        if self.chance(0.2):
            return self.filtered(kind, depth)
        return self.atom(kind)

    def math_operand(self, kind):
        """Tera's math takes numbers, names and calls: no string literal, no
        filter but on the whole expression."""
        if self.chance(WILD):
            kind = self.any_kind()
        if kind in ("str", "list", "obj", "bool", "null"):
            return self.variable(kind)
        return self.atom(kind)

    def arithmetic(self, kind, depth):
        a = self.math_operand(self.pick(["int", "float"]) if kind == "float" else kind)
        b = self.math_operand(self.pick(["int", "float"]) if kind == "float" else kind)
        op = self.pick(["+", "-", "*", "/", "%"] if kind == "float" else ["+", "-", "*", "%"])
        text = "%s %s %s" % (a, op, b)
        if self.chance(0.25):
            text = "(%s) %s %s" % (text, self.pick(["*", "+", "-"]), self.math_operand(kind))
        return text

    def int_expr(self, depth):
        r = self.rnd.random()
        if r < 0.4:
            return self.arithmetic("int", depth)
        return self.filtered("int", depth)

    def float_expr(self, depth):
        if self.chance(0.5):
            return self.arithmetic("float", depth)
        return self.filtered("float", depth)

    def str_expr(self, depth):
        r = self.rnd.random()
        if r < 0.25:
            # Tera's `~` takes strings, numbers, names and calls; a filter
            # applies to the whole.
            text = " ~ ".join(self.concat_operand() for _ in range(self.rnd.randint(2, 3)))
            if self.chance(0.2):
                text += " | " + self.pick(["upper", "length", "trim", "json_encode"])
            return text
        return self.filtered("str", depth)

    def concat_operand(self):
        kind = self.any_kind() if self.chance(WILD) else self.pick(["str", "int", "float", "str"])
        if kind in ("list", "obj") and self.chance(0.5):
            return self.range_call()
        return self.atom(kind)

    def bool_expr(self, depth):
        r = self.rnd.random()
        if r < 0.3:
            op = self.pick(["==", "!=", "<", "<=", ">", ">="])
            # Tera orders numbers only.
            kind = self.pick(["int", "float"]) if op in ("<", "<=", ">", ">=") else self.any_kind()
            other = kind if self.chance(0.6) else self.pick(["int", "float"]) if op in ("<", "<=", ">", ">=") \
                else self.any_kind()
            return "%s %s %s" % (self.operand(kind, depth), op, self.operand(other, depth))
        if r < 0.45:
            return "%s %s %s" % (self.operand("bool", depth), self.pick(["and", "or"]), self.expr("bool", depth + 1))
        if r < 0.55:
            return "not " + self.operand(self.pick(["bool", "bool", "int", "str", "list"]), depth)
        if r < 0.7:
            container = self.pick(["list", "str", "obj"])
            item = {"list": self.pick(["int", "str"]), "str": "str", "obj": "str"}[container]
            if container == "list" and self.chance(0.3):
                haystack = "[%s]" % ", ".join(self.literal(item) for _ in range(self.rnd.randint(0, 3)))
            else:
                haystack = self.atom(container)
            return "%s %s %s" % (self.operand(item, depth), self.pick(["in", "not in"]), haystack)
        return self.test_expr()

    def test_expr(self):
        # A test's subject is a dotted name in Tera's grammar.
        subject = self.variable(self.any_kind()) if self.chance(0.9) else self.pick(UNDEFINED_NAMES)
        subject = subject if "[" not in subject else "o.name"
        negation = " not" if self.chance(0.25) else ""
        test = self.pick(["defined", "undefined", "odd", "even", "string", "number", "divisibleby",
                          "iterable", "object", "starting_with", "ending_with", "containing", "matching"])
        # The subject a test takes, but now and then.
        wanted = {"odd": "int", "even": "int", "divisibleby": "int", "starting_with": "str", "ending_with": "str",
                  "matching": "str", "containing": self.pick(["str", "list", "obj"])}.get(test)
        if wanted and not self.chance(WILD):
            subject = self.variable(wanted)
            subject = subject if "[" not in subject else {"int": "i", "str": "s", "list": "xs", "obj": "o"}[wanted]
        args = {
            "divisibleby": lambda: "(%s)" % self.pick(["2", "3", "0", "1.5", '"2"']),
            "starting_with": lambda: "(%s)" % self.string_literal(self.pick(["a", "H", "", "日", "x"])),
            "ending_with": lambda: "(%s)" % self.string_literal(self.pick(["c", "d", "", "語", "e"])),
            "containing": lambda: "(%s)" % self.pick(['"a"', '"l"', "1", '"name"', '""']),
            "matching": lambda: "(%s)" % self.string_literal(self.pick(PATTERNS)),
        }.get(test, lambda: "")()
        return "%s is%s %s%s" % (subject, negation, test, args)

    def list_expr(self, depth):
        r = self.rnd.random()
        if r < 0.15:
            return self.literal("list")
        if r < 0.3:
            return self.range_call()
        return self.filtered("list", depth)

    def range_call(self):
        args = []
        if self.chance(0.5):
            args.append("start=%s" % self.pick(["0", "1", "2"]))
            args.append("end=%s" % self.pick(["3", "5", "7"]))
        else:
            args.append("end=%s" % self.pick(["0", "3", "5", "7"]))
        if self.chance(0.3):
            args.append("step_by=%s" % self.pick(["1", "2", "3"]))
        return "range(%s)" % ", ".join(args)

    def obj_expr(self, depth):
        return self.filtered("obj", depth)

    # ---------- filters ----------

    def filtered(self, kind, depth):
        """value | filter(...) giving `kind`, sometimes chained."""
        base_kind, name, args = self.filter_for(kind)
        if depth > 2 or base_kind in ("people", "timestamp") or self.chance(0.6):
            base = self.atom(base_kind)
        else:
            base = self.filtered(base_kind, depth + 1)
        return "%s | %s%s" % (base, name, args)

    def attribute_arg(self, *names):
        """An attribute path: one of `names`, or now and then no string at
        all. Never any string: Tera 1.18 changed how a path is read (an
        empty one is the element itself, and quotes and brackets read
        otherwise), and Sindri reads it as 1.20 does."""
        if self.chance(WILD):
            return self.pick(["1", "[1]", "true", "z", "xs"])  # no name: a loop's could hold a string
        return self.string_literal(self.pick(names))

    def str_arg(self, *choices):
        return self.atom(self.any_kind()) if self.chance(WILD) else self.string_literal(self.pick(choices))

    def filter_for(self, kind):
        """(kind of the input, filter name, arguments) for a filter giving `kind`."""
        n = lambda *c: self.atom(self.any_kind()) if self.chance(WILD) else str(self.pick(c))
        table = {
            "str": [
                ("str", "upper", ""), ("str", "lower", ""), ("str", "trim", ""), ("str", "trim_start", ""),
                ("str", "trim_end", ""), ("str", "capitalize", ""), ("str", "title", ""),
                ("str", "trim_start_matches", "(pat=%s)" % self.str_arg("a", " ", "he", "")),
                ("str", "trim_end_matches", "(pat=%s)" % self.str_arg("c", " ", "ld", "")),
                ("str", "truncate", "(length=%s)" % n(0, 1, 3, 5, 100)),
                ("str", "truncate", "(length=%s, end=%s)" % (n(2, 4), self.str_arg("…", "", "..", "!"))),
                ("str", "replace", "(from=%s, to=%s)" % (self.str_arg("a", "l", " ", "", "日"),
                                                           self.str_arg("X", "", "ab", "é"))),
                ("str", "linebreaksbr", ""), ("str", "striptags", ""), ("str", "spaceless", ""),
                ("str", "urlencode", ""), ("str", "urlencode_strict", ""), ("str", "escape", ""),
                ("str", "escape_xml", ""), ("str", "slugify", ""), ("str", "addslashes", ""),
                ("str", "reverse", ""), ("str", "safe", ""),
                (self.any_kind(), "as_str", ""), (self.any_kind(), "json_encode", ""),
                (self.pick(["list", "obj"]), "json_encode", "(pretty=%s)" % self.pick(["true", "false"])),
                ("int", "filesizeformat", ""), ("float", "filesizeformat", ""),
                (self.pick(["int", "float"]), "pluralize", ""),
                ("int", "pluralize", "(singular=%s, plural=%s)" % (self.str_arg("y", ""), self.str_arg("ies", "s"))),
                ("list", "join", "(sep=%s)" % self.str_arg(", ", "", "-", " | ")),
                ("list", "join", ""),
                ("list", "first", ""), ("list", "last", ""), ("list", "nth", "(n=%s)" % n(0, 1, 2, 5)),
                ("obj", "get", "(key=%s)" % self.str_arg("name", "age")),
                ("obj", "get", "(key=%s, default=%s)" % (self.str_arg("name", "missing"), self.str_arg("d", ""))),
                ("timestamp", "date", "(format=%s)" % self.string_literal(self.pick(DATE_FORMATS))),
                ("timestamp", "date", ""),
                (self.any_kind(), "default", "(value=%s)" % self.str_arg("dflt", "")),
                ("str", "first", ""),
            ],
            "int": [
                (self.pick(["str", "list", "obj"]), "length", ""), ("str", "wordcount", ""),
                (self.pick(["str", "float", "int", "bool"]), "int", ""),
                ("str", "int", "(default=%s)" % n(0, 7, -1)),
                ("str", "int", "(base=%s)" % n(2, 8, 16, 36)),
                ("float", "round", ""), ("list", "first", ""), ("list", "last", ""),
                ("list", "nth", "(n=%s)" % n(0, 1, 3)),
            ],
            "float": [
                (self.pick(["str", "int", "float"]), "float", ""), ("str", "float", "(default=%s)" % n("1.5", 0)),
                ("float", "round", "(method=%s)" % self.str_arg("common", "ceil", "floor")),
                ("float", "round", "(method=%s, precision=%s)" % (self.str_arg("common", "ceil", "floor"),
                                                                  n(0, 1, 2, 3))),
            ],
            "bool": [(self.any_kind(), "default", "(value=%s)" % self.pick(["true", "false"]))],
            "list": [
                ("str", "split", "(pat=%s)" % self.str_arg(" ", ",", "", "l")),
                ("list", "sort", ""), ("list", "unique", ""), ("list", "reverse", ""),
                ("list", "unique", "(case_sensitive=%s)" % self.pick(["true", "false"])),
                ("list", "slice", "(start=%s)" % n(0, 1, -1, 2)),
                ("list", "slice", "(start=%s, end=%s)" % (n(0, 1), n(2, -1, 10))),
                ("list", "slice", "(end=%s)" % n(1, -2)),
                ("list", "concat", "(with=%s)" % self.pick(["xs", "ws", '"x"', "1", "[1, 2]", "ps", "z"])),
                ("people", "map", "(attribute=%s)" % self.attribute_arg("name", "age", "group", "tags")),
                ("people", "filter", "(attribute=%s, value=%s)" % (self.attribute_arg("group", "name", "age"),
                                                                   self.pick(['"a"', '"ann"', "1", "true", "z"]))),
                ("people", "filter", "(attribute=%s)" % self.attribute_arg("group", "name")),
                ("people", "sort", "(attribute=%s)" % self.attribute_arg("name", "age", "group")),
                ("people", "unique", "(attribute=%s)" % self.attribute_arg("name", "group")),
                ("obj", "get", "(key=%s)" % self.str_arg("tags")),
            ],
            "obj": [
                ("people", "group_by", "(attribute=%s)" % self.attribute_arg("group", "name", "age")),
            ],
        }
        return self.pick(table.get(kind, table["str"]))

    # ---------- statements ----------

    def ws(self):
        return "-" if self.chance(0.15) else ""

    def tag(self, body):
        return "{%%%s %s %s%%}" % (self.ws(), body, self.ws())

    def text(self):
        return "".join(self.pick(TEXT_PIECES) for _ in range(self.rnd.randint(1, 4)))

    def output(self):
        self.expressions += 1
        kind = self.pick(KINDS + ["str", "int"])
        expr = self.expr(kind)
        if self.chance(0.08):
            expr = self.function_call()
        elif self.chance(0.01):
            expr = "__tera_context"  # the context and the names set so far, as JSON
        return "{{%s %s %s}}" % (self.ws(), expr, self.ws())

    def function_call(self):
        r = self.rnd.random()
        if r < 0.5:
            return self.range_call()
        if r < 0.55:
            return "throw(message=%s)" % self.string_literal(self.pick(["boom", "é!"]))
        return "%s | length" % self.range_call()

    def block(self, depth, budget=None):
        """Statements; what they `set` is forgotten after, as a branch may not run."""
        self.scopes.append({})
        parts = [self.statement(depth) for _ in range(budget or self.rnd.randint(1, 4))]
        self.scopes.pop()
        return "".join(parts)

    def statement(self, depth):
        r = self.rnd.random()
        if depth > 2:
            r = r * 0.45
        if r < 0.15:
            return self.text()
        if r < 0.38:
            return self.output()
        if r < 0.45:
            return self.set_statement()
        if r < 0.47:
            return "{#%s %s %s#}" % (self.ws(), self.pick(["note", "{{ x }}", "é\n{% if %}"]), self.ws())
        if r < 0.49:
            return self.tag("raw") + self.pick(["{{ x }}", "{% if a %}", " a ", "", "\n x \n"]) + self.tag("endraw")
        if r < 0.62:
            return self.if_statement(depth)
        if r < 0.8:
            return self.for_statement(depth)
        if r < 0.86:
            return self.filter_section(depth)
        if r < 0.93 and self.macros:
            return self.macro_call()
        if r < 0.96 and self.includable:
            return self.tag(self.pick(['include "part.tera"', 'include ["missing.tera", "part.tera"]']))
        return self.output()

    def set_statement(self):
        kind = self.pick(KINDS)
        name = self.pick(["v1", "v2", "v3"])
        keyword = "set_global" if self.chance(0.3) else "set"
        self.expressions += 1
        body = "%s %s = %s" % (keyword, name, self.expr(kind))
        if keyword == "set_global":
            self.scopes[0][name] = kind
        else:
            self.scopes[-1][name] = kind
        return self.tag(body)

    def if_statement(self, depth):
        self.expressions += 1
        out = self.tag("if " + self.expr("bool")) + self.block(depth + 1)
        for _ in range(self.rnd.randint(0, 2) if self.chance(0.4) else 0):
            self.expressions += 1
            out += self.tag("elif " + self.expr("bool")) + self.block(depth + 1)
        if self.chance(0.4):
            out += self.tag("else") + self.block(depth + 1)
        return out + self.tag("endif")

    def for_statement(self, depth):
        self.expressions += 1
        scope = {}
        if self.chance(0.2):
            head = "k, v in %s" % self.variable(self.any_kind() if self.chance(WILD) else "obj")
            scope.update({"k": "str", "v": self.any_kind()})
        else:
            source = self.pick(["xs", "ws", "ps", "ms", "range", "nest", "s", "fs", "filtered", "o.tags"])
            kind = {"xs": "int", "ws": "str", "ps": "obj", "range": "int", "nest": "list", "fs": "float",
                    "o.tags": "str"}.get(source, self.any_kind())
            if source == "range":
                source = self.range_call()
            elif source == "filtered":
                _, name, args = self.filter_for("list")  # `for` takes no literal with filters
                source = "%s | %s%s" % (self.variable("list"), name, args)
            elif source == "s":
                source = self.pick(["s", "t", "u"])  # characters; STRINGS have no combining marks
            head = "x in %s" % source
            scope["x"] = kind
        self.scopes.append(scope)
        self.loop_depth += 1
        body = self.block(depth + 1)
        if self.chance(0.2):
            body += self.tag("if %s" % self.expr("bool", 2)) + self.tag(self.pick(["break", "continue"])) + \
                self.tag("endif") + self.block(depth + 1, 1)
        self.loop_depth -= 1
        self.scopes.pop()
        out = self.tag("for " + head) + body
        if self.chance(0.2):
            out += self.tag("else") + self.block(depth + 1, 1)
        return out + self.tag("endfor")

    def filter_section(self, depth):
        name = self.pick(["upper", "lower", "trim", "title", "replace(from=\"a\", to=\"b\")", "wordcount",
                          "striptags", "escape", "length", "capitalize", "truncate(length=3)"])
        return self.tag("filter " + name) + self.block(depth + 1) + self.tag("endfilter")

    def macro_call(self):
        name, params = self.pick(self.macros)
        args = ", ".join("%s=%s" % (p, self.expr(self.pick(KINDS), 2)) for p in params if self.chance(0.8))
        self.expressions += 1
        return "{{%s m::%s(%s) %s}}" % (self.ws(), name, args, self.ws())

    # ---------- templates ----------

    def macros_template(self):
        """macros.tera: macros with defaults, one calling another through self::."""
        parts = []
        for index in range(self.rnd.randint(1, 3)):
            name = "mac%d" % index
            params = ["a", "b"][: self.rnd.randint(0, 2)]
            signature = ", ".join(p if self.chance(0.5) else "%s=%s" % (p, self.literal(self.pick(["int", "str"])))
                                  for p in params)
            saved = self.scopes
            self.scopes = [{p: self.any_kind() for p in params}]
            body = "".join(self.output_in_macro(params) for _ in range(self.rnd.randint(1, 3)))
            if index > 0 and not self.macros[0][1] and self.chance(0.5):
                body += "{{ self::mac0() }}"
            self.scopes = saved
            parts.append("{%% macro %s(%s) %%}%s{%% endmacro %s %%}\n" % (name, signature, body, name))
            self.macros.append((name, params))
        return "".join(parts)

    def output_in_macro(self, params):
        if params and self.chance(0.6):
            self.expressions += 1
            return "{{ %s }}%s" % (self.pick(params) + self.pick(["", " ~ 1", " | json_encode", " | length"]),
                                   self.text())
        if self.chance(0.2):
            # A macro sees its arguments and what it sets, not the context.
            return self.pick(["{% set w = 1 %}{{ w }}", "{{ i }}", "{% for y in [1, 2] %}{{ loop.index }}{% endfor %}"])
        return self.text()

    def template(self, statements):
        """A template of its own: it sees none of the names another one sets."""
        self.scopes = [{}]
        return self.block(0, statements)

    def single(self):
        return {"main.tera": self.template(self.rnd.randint(2, 8))}

    def with_includes(self):
        # part.tera first: it imports no macros, includes nothing (Tera
        # recurses until its stack overflows) and may read the loop variable
        # of a loop it is included in.
        templates = {"part.tera": self.template(self.rnd.randint(1, 3))}
        if self.chance(0.3):
            templates["part.tera"] += self.pick(["{{ x }}", "{{ loop.index }}", "{{ v1 }}"])
        self.includable = True
        if self.chance(0.5):
            templates["macros.tera"] = self.macros_template()
        head = '{% import "macros.tera" as m %}' if "macros.tera" in templates else ""
        self.scopes = [{}]
        body = []
        for _ in range(self.rnd.randint(2, 6)):
            if self.chance(0.3):
                body.append(self.pick(['{% include "part.tera" %}', '{%- include "part.tera" -%}',
                                       '{% include "missing.tera" ignore missing %}',
                                       '{% include ["missing.tera", "part.tera"] %}']))
            else:
                body.append(self.statement(0))
        templates["main.tera"] = head + "".join(body)
        return templates

    def with_inheritance(self):
        names = ["head", "body", "foot"][: self.rnd.randint(1, 3)]
        self.scopes = [{}]
        base = "".join(self.text() + "{%% block %s %%}%s{%% endblock %s %%}" % (n, self.block(1, 2), n)
                       for n in names) + self.text()
        child = '{% extends "base.tera" %}'
        self.scopes = [{}]
        for n in names:
            if self.chance(0.7):
                inner = self.block(1, 2)
                if self.chance(0.4):
                    inner = self.pick(["{{ super() }}", "{{- super() -}}"]) + inner
                child += "{%% block %s %%}%s{%% endblock %s %%}" % (n, inner, n)
        if self.chance(0.2):
            child += "ignored text outside blocks"
        return {"base.tera": base, "main.tera": child}


def generate_case(rnd):
    """(templates {name: source}, context, number of expressions)."""
    gen = Generator(rnd)
    context = random_context(rnd)
    r = rnd.random()
    if r < 0.6:
        templates = gen.single()
    elif r < 0.85:
        templates = gen.with_includes()
    else:
        templates = gen.with_inheritance()
    return templates, context, gen.expressions


def case_json(context):
    return json.dumps(context, ensure_ascii=False, indent=1)
