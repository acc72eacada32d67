#!/usr/bin/env python3
"""Differential test: random templates rendered by Sindri and by Tera.

Each case (generator.py) is rendered by Sindri (the render_cases driver, one
process for a whole batch) and by tera-ref (Tera 1.17, one process a case),
and the two are compared byte for byte. When both refuse the template that
is agreement; when only one does, or the outputs differ, it is a difference.
Where Tera panics, Sindri must return an error (docs/tera.md, "Differences from
Tera").

  run.py --driver PATH [--tera-ref PATH | --tera-ref-build build.sh]
         [--seed N] [--cases N | --seconds S] [--only INDEX] [--save DIR]
         [--wild P]

CI runs a fixed seed and case count; by hand, give any seed, or --seconds to
run as long as wanted. A difference prints the seed and case index: replay it
with --seed SEED --only INDEX --save DIR, which keeps the case folder.
"""

import argparse
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generator  # noqa: E402

BATCH = 250


def case_random(seed, index):
    return random.Random("%d:%d" % (seed, index))


def write_case(folder, templates, context):
    os.makedirs(os.path.join(folder, "templates"))
    for name, source in templates.items():
        with open(os.path.join(folder, "templates", name), "w", encoding="utf-8") as f:
            f.write(source)
    with open(os.path.join(folder, "main"), "w") as f:
        f.write("main.tera\n")
    with open(os.path.join(folder, "context.json"), "w", encoding="utf-8") as f:
        f.write(generator.case_json(context))


def run_tera(tera_ref, folder):
    p = subprocess.run([tera_ref, "--dir", os.path.join(folder, "templates"), "main.tera",
                        os.path.join(folder, "context.json")], capture_output=True)
    return p.returncode, p.stdout


def read_sindri(folder):
    with open(os.path.join(folder, "sindri.status")) as f:
        status = int(f.read())
    with open(os.path.join(folder, "sindri.out"), "rb") as f:
        return status, f.read()


def verdict(tera, sindri):
    """'agree', 'both_refuse', 'tera_panics' or a description of the difference."""
    (tera_status, tera_out), (sindri_status, sindri_out) = tera, sindri
    if tera_status not in (0, 2, 3):
        return "tera_panics" if sindri_status != 0 else "Tera panics (exit %d), Sindri renders" % tera_status
    if tera_status != 0 and sindri_status != 0:
        return "both_refuse"
    if tera_status != sindri_status:
        return "Tera exits %d, Sindri %d" % (tera_status, sindri_status)
    return "agree" if tera_out == sindri_out else "outputs differ"


def report(seed, index, folder, tera, sindri, why):
    print("DIFFERENCE seed=%d case=%d: %s" % (seed, index, why))
    for name in sorted(os.listdir(os.path.join(folder, "templates"))):
        with open(os.path.join(folder, "templates", name), encoding="utf-8") as f:
            print("--- %s\n%s" % (name, f.read()))
    print("--- Tera (exit %d):\n%s" % (tera[0], tera[1].decode("utf-8", "replace")))
    print("--- Sindri (exit %d):\n%s" % (sindri[0], sindri[1].decode("utf-8", "replace")))
    wild = "" if generator.WILD == generator.DEFAULT_WILD else " --wild %g" % generator.WILD
    print("--- replay: --seed %d --only %d%s --save DIR" % (seed, index, wild), flush=True)


def run_batch(args, indices, workdir, tally):
    folders = []
    for index in indices:
        folder = os.path.join(workdir, "case-%d" % index)
        templates, context, expressions = generator.generate_case(case_random(args.seed, index))
        write_case(folder, templates, context)
        folders.append((index, folder))
        tally["templates"] += len(templates)
        tally["expressions"] += expressions
    subprocess.run([args.driver], input="".join(f + "\n" for _, f in folders).encode(), check=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        tera_results = list(pool.map(lambda item: run_tera(args.tera_ref, item[1]), folders))
    differences = 0
    for (index, folder), tera in zip(folders, tera_results):
        sindri = read_sindri(folder)
        why = verdict(tera, sindri)
        tally[why if why in ("agree", "both_refuse", "tera_panics") else "differ"] += 1
        if why not in ("agree", "both_refuse", "tera_panics"):
            differences += 1
            report(args.seed, index, folder, tera, sindri, why)
            if args.save:
                shutil.copytree(folder, os.path.join(args.save, "seed%d-case%d" % (args.seed, index)))
        elif args.save and args.only is not None:
            shutil.copytree(folder, os.path.join(args.save, "seed%d-case%d" % (args.seed, index)))
        shutil.rmtree(folder)
    return differences


def find_tera_ref(args):
    if args.tera_ref:
        return args.tera_ref
    if args.tera_ref_build:
        built = subprocess.run([args.tera_ref_build], capture_output=True, text=True)
        if built.returncode != 0:
            sys.exit("building tera-ref failed:\n" + built.stderr)
        return built.stdout.strip().splitlines()[-1]
    sys.exit("give --tera-ref or --tera-ref-build")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--driver", required=True, help="the sindri_tera_render_cases program")
    parser.add_argument("--tera-ref", help="the tera-ref program")
    parser.add_argument("--tera-ref-build", help="a script that builds tera-ref and prints its path")
    parser.add_argument("--seed", type=int, help="random when not given")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seconds", type=float, help="run this long instead of --cases")
    parser.add_argument("--only", type=int, help="run this one case of the seed")
    parser.add_argument("--save", help="copy the folder of each differing (or --only) case here")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--wild", type=float, default=generator.WILD,
                        help="how often an operand of any kind is taken (more errors explored)")
    args = parser.parse_args()
    generator.WILD = args.wild
    args.tera_ref = find_tera_ref(args)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 2**31)
    if args.save:
        os.makedirs(args.save, exist_ok=True)
    print("seed %d%s" % (args.seed, "" if args.wild == generator.DEFAULT_WILD else " wild %g" % args.wild), flush=True)

    tally = {"templates": 0, "expressions": 0, "agree": 0, "both_refuse": 0, "tera_panics": 0, "differ": 0}
    start = time.monotonic()
    differences = 0
    with tempfile.TemporaryDirectory(prefix="tera-differential-") as workdir:
        if args.only is not None:
            differences += run_batch(args, [args.only], workdir, tally)
        else:
            next_index = 0
            while True:
                if args.seconds is None and next_index >= args.cases:
                    break
                if args.seconds is not None and time.monotonic() - start >= args.seconds:
                    break
                count = BATCH if args.seconds is not None else min(BATCH, args.cases - next_index)
                differences += run_batch(args, range(next_index, next_index + count), workdir, tally)
                next_index += count
    cases = tally["agree"] + tally["both_refuse"] + tally["tera_panics"] + tally["differ"]
    print("seed %d: %d cases (%d templates, %d expressions) in %.1f s: %d rendered alike, %d refused by both, "
          "%d where Tera panics and Sindri refuses, %d differences"
          % (args.seed, cases, tally["templates"], tally["expressions"], time.monotonic() - start,
             tally["agree"], tally["both_refuse"], tally["tera_panics"], differences))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
