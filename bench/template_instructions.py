"""The client side of bench/template_instructions.sh:

  seed BASE ADMIN_PAK CORPUS SCHEMA OUT TEMPLATES [DIRECT_JSON]
      a generator and a stack (two labels, two annotations); with TEMPLATES > 0
      the three-tier template (matching the stack) and TEMPLATES - 1 more
      templates created through the API in parallel, each with two labels and
      two annotations, nine in ten of them matching the stack; the request
      bodies of both scenarios into OUT (direct.json is DIRECT_JSON's copy when
      given, so that every database gets the same bytes). Prints KEY=VALUE lines.
  count DATABASE
      the rows the template system keeps, read from the SQLite file of a
      stopped broker, as KEY=VALUE lines.
  post BASE PAK PATH BODY_FILE COUNT
      COUNT POSTs of the same body, one after another over one connection;
      every answer must be 201.
  inclusive CALLGRIND_FILE REGEX...
      per regular expression, the inclusive instructions of the functions
      whose (demangled) names it matches, summed."""

import concurrent.futures
import collections
import json
import os
import re
import shutil
import sqlite3
import sys
import threading

sys.path.insert(0, os.environ["SINDRI_BENCH_DIR"])
from broker_api import KeptAliveCaller, api_caller

STACK_LABELS = ("tier=three", "team=platform")
STACK_ANNOTATIONS = {"owner": "bench", "region": "eu-west"}
# The templates that do not match the stack lack its tier.
UNMATCHED_LABELS = ("tier=two", "team=platform")
SEEDING_THREADS = 8


def tag(call, pak, path, labels, annotations):
    for label in labels:
        call("POST", f"{path}/labels", pak, label)
    for key, value in annotations.items():
        call("POST", f"{path}/annotations", pak, {"key": key, "value": value})


def seed(base, admin_pak, corpus, schema_file, out, templates, direct_file=None):
    content = open(os.path.join(corpus, "three-tier.tera")).read()
    parameters = json.load(open(os.path.join(corpus, "three-tier.json")))
    schema_text = open(schema_file).read()
    call = api_caller(base)

    generator = call("POST", "/api/v1/generators", admin_pak, {"name": "template-instructions"})
    generator_id, pak = generator["generator"]["id"], generator["pak"]
    stack = call("POST", "/api/v1/stacks", pak, {"name": "three-tier", "generator_id": generator_id})
    tag(call, pak, f"/api/v1/stacks/{stack['id']}", STACK_LABELS, STACK_ANNOTATIONS)
    print(f"GENERATOR_PAK={pak}\nSTACK_ID={stack['id']}")
    if direct_file:
        shutil.copyfile(direct_file, os.path.join(out, "direct.json"))
    if templates == 0:
        return

    def create(name, labels):
        template = local.call("POST", "/api/v1/templates", pak, {
            "name": name, "description": "one of the bench's stored templates",
            "template_content": content, "parameters_schema": schema_text})
        tag(local.call, pak, f"/api/v1/templates/{template['id']}", labels, STACK_ANNOTATIONS)
        return template["id"]

    local = threading.local()

    def create_numbered(number):
        if not hasattr(local, "call"):
            local.call = KeptAliveCaller(base)
        return create(f"stored-{number:05d}", UNMATCHED_LABELS if number % 10 == 0 else STACK_LABELS)

    local.call = KeptAliveCaller(base)
    template_id = create("three-tier", STACK_LABELS)
    with concurrent.futures.ThreadPoolExecutor(SEEDING_THREADS) as pool:
        for _ in pool.map(create_numbered, range(1, templates)):
            pass

    rendered = call("POST", f"/api/v1/templates/{template_id}/render", pak,
                    {"parameters": parameters, "stack_id": stack["id"]})["yaml_content"]
    expected_file = os.path.join(corpus, "three-tier.expected.out")
    if os.path.exists(expected_file) and open(expected_file).read() != rendered:
        raise SystemExit(f"seeding: the broker's rendering differs from {expected_file}")
    with open(os.path.join(out, "instantiate.json"), "w") as file:
        json.dump({"template_id": template_id, "parameters": parameters}, file, separators=(",", ":"))
    if not direct_file:
        with open(os.path.join(out, "direct.json"), "w") as file:
            json.dump({"yaml_content": rendered}, file, separators=(",", ":"))
    print(f"TEMPLATE_ID={template_id}")


def count(database):
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    for key, table in (("TEMPLATES", "stack_templates"), ("TEMPLATE_LABELS", "template_labels"),
                       ("TEMPLATE_ANNOTATIONS", "template_annotations"), ("TEMPLATE_TARGETS", "template_targets")):
        print(f"{key}={connection.execute(f'SELECT count(*) FROM {table}').fetchone()[0]}")


def post(base, pak, path, body_file, times):
    body = open(body_file, "rb").read()
    call = KeptAliveCaller(base)
    for _ in range(times):
        call("POST", path, pak, body, expect=(201,))


def inclusive(callgrind_file, *patterns):
    """Read from the file itself, not callgrind_annotate --inclusive=yes:
    with debug information that lists a function once per source file its
    code came from (inlined headers among them), and the lines overlap."""
    names = {}
    self_cost = collections.Counter()
    call_cost = collections.Counter()  # (caller id, callee id) -> inclusive instructions of the calls
    current = callee = None
    call_follows = False
    compressed = re.compile(r"\((\d+)\)(?: (.*))?")
    for line in open(callgrind_file):
        if line.startswith(("fn=", "cfn=")):
            key, _, rest = line.rstrip("\n").partition("=")
            number, name = compressed.fullmatch(rest).groups()
            if name is not None:
                names[number] = name
            if key == "fn":
                current = number
            else:
                callee = number
        elif line.startswith("calls="):
            call_follows = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            fields = line.split()
            cost = int(fields[1]) if len(fields) > 1 else 0
            if call_follows:
                call_cost[current, callee] += cost
                call_follows = False
            else:
                self_cost[current] += cost
    # Each function counts its own instructions and those of its calls to
    # others; callgrind names a recursive call's function apart (name'2),
    # so those are left out, being inside the outer call already.
    for pattern in patterns:
        matching = {number for number, name in names.items()
                    if re.search(pattern, name) and not re.search(r"'\d+$", name)}
        total = sum(self_cost[number] for number in matching)
        total += sum(cost for (caller, target), cost in call_cost.items() if caller in matching and target != caller)
        print(total)


def main(command, *arguments):
    if command == "seed":
        base, admin_pak, corpus, schema_file, out, templates, *direct = arguments
        seed(base, admin_pak, corpus, schema_file, out, int(templates), *direct)
    elif command == "count":
        count(*arguments)
    elif command == "post":
        base, pak, path, body_file, times = arguments
        post(base, pak, path, body_file, int(times))
    elif command == "inclusive":
        inclusive(*arguments)
    else:
        raise SystemExit(f"template_instructions.py: unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
