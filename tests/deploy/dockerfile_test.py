"""Checks the Dockerfile against the programs built here, since no Docker daemon runs here.

    dockerfile_test.py --dockerfile FILE --packages-txt FILE [--sanitized] PROGRAM...

- The runtime stage installs exactly the Debian packages owning the libraries
  the programs name (ELF NEEDED entries, found where `ldd` finds them, owners
  from `dpkg -S`), plus the extras listed below with their reason.
- Every library `ldd` lists, its libraries' libraries included, belongs to one
  of those packages or to a package they depend on, so that apt brings it.
- The runtime stage copies exactly these programs from the build stage.
- The build stage installs only packages scripts/packages.txt lists, and
  builds Release without tests and benchmarks, after copying in the console
  that a stage of its own builds from ui/ with `npm ci` (the lockfile's
  packages) and `npm run build`, so that the broker embeds it.
With --sanitized (programs of a -DSINDRI_SANITIZE=ON build) the sanitizers'
runtime libraries, which the Dockerfile's build does not link, are left out.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys

# Packages the runtime stage needs though no program links them (the
# Dockerfile says why beside its install line).
EXTRAS = {
    "ca-certificates": "trust an https:// broker or API server signed by a public CA",
    "tzdata": "Tera's date filter reads time zones from /usr/share/zoneinfo",
}

SANITIZER_RUNTIMES = re.compile(r"lib(asan|ubsan|lsan|tsan)\.so(\.\d+)*")

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def stages(dockerfile):
    """[(FROM line, [instruction, ...]), ...] with continuation lines joined."""
    with open(dockerfile) as source:
        text = re.sub(r"\\\n", " ", source.read())
    result = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.upper().startswith("FROM "):
            result.append((line, []))
        elif result:
            result[-1][1].append(line)
    return result


def installed_packages(instructions):
    """The package names of every `apt-get install` in a stage's RUN instructions."""
    packages = []
    for instruction in instructions:
        if not instruction.upper().startswith("RUN "):
            continue
        for command in re.split(r"&&|;", instruction[4:]):
            words = shlex.split(command)
            while words and "=" in words[0]:  # DEBIAN_FRONTEND=noninteractive apt-get ...
                words.pop(0)
            if words[:2] == ["apt-get", "install"]:
                packages += [word for word in words[2:] if not word.startswith("-")]
    return packages


def candidates(path):
    """path as ldd gives it, its real file, and each with /usr added or removed
    (dpkg knows a library by the path its package ships, /usr merged or not)."""
    found = [path, os.path.realpath(path)]
    return found + [name[4:] if name.startswith("/usr/") else "/usr" + name for name in found]


def owners(paths):
    """path -> the Debian package owning it (None if none), with one dpkg -S for all."""
    every = sorted({name for path in paths for name in candidates(path)})
    run = subprocess.run(["dpkg", "-S"] + every, capture_output=True, text=True)
    package_of = {}
    for line in run.stdout.splitlines():
        packages, _, owned = line.partition(": ")
        package_of[owned.strip()] = packages.split(",")[0].split(":")[0].strip()
    return {path: next((package_of[name] for name in candidates(path) if name in package_of), None) for path in paths}


def ldd_paths(program, sanitized):
    """soname -> path for every library ldd resolves for program."""
    run = subprocess.run(["ldd", program], capture_output=True, text=True, check=True)
    paths = {}
    for line in run.stdout.splitlines():
        match = re.match(r"\s*(\S+)\s+=>\s+(/\S+)", line)
        if match:
            if not (sanitized and SANITIZER_RUNTIMES.fullmatch(match.group(1))):
                paths[match.group(1)] = match.group(2)
            continue
        match = re.match(r"\s*(/\S+)\s+\(", line)  # the dynamic loader
        if match:
            paths[os.path.basename(match.group(1))] = match.group(1)
        elif "not found" in line:
            failures.append(f"{program}: ldd cannot find {line.strip()}")
    return paths


def needed(program, sanitized):
    run = subprocess.run(["readelf", "-d", program], capture_output=True, text=True, check=True)
    sonames = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run.stdout)
    return [soname for soname in sonames if not (sanitized and SANITIZER_RUNTIMES.fullmatch(soname))]


def dependency_closure(packages):
    """packages and every installed package they depend on, directly or not."""
    run = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Depends}, ${Pre-Depends}\n"],
                         capture_output=True, text=True, check=True)
    depends = {}
    for line in run.stdout.splitlines():
        package, _, relations = line.partition("\t")
        names = (alternative.strip().split(" ")[0].split(":")[0] for alternative in re.split(r"[,|]", relations))
        depends.setdefault(package, set()).update(name for name in names if name)
    seen = set()
    queue = list(packages)
    while queue:
        package = queue.pop()
        if package not in seen:
            seen.add(package)
            queue += depends.get(package, ())
    return seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dockerfile", required=True)
    parser.add_argument("--packages-txt", required=True)
    parser.add_argument("--sanitized", action="store_true")
    parser.add_argument("programs", nargs="+")
    args = parser.parse_args()

    all_stages = stages(args.dockerfile)
    if len(all_stages) < 3:
        sys.exit(f"{args.dockerfile}: expected a console, a build and a runtime stage, found {len(all_stages)} stage(s)")
    named = {line.split()[-1].lower(): (line, body) for line, body in all_stages[:-1] if " AS " in line.upper()}
    if "build" not in named or "console" not in named:
        sys.exit(f"{args.dockerfile}: expected stages named console and build, found {sorted(named)}")
    build_from, build = named["build"]
    console_from, console = named["console"]
    runtime_from, runtime = all_stages[-1]
    check(re.fullmatch(r"FROM debian:bookworm AS build", build_from, re.IGNORECASE) is not None,
          f"build stage is not `FROM debian:bookworm AS build`: {build_from}")
    check(re.fullmatch(r"FROM node:\S*bookworm\S* AS console", console_from, re.IGNORECASE) is not None,
          f"console stage is not a Node.js image on bookworm: {console_from}")
    console_text = " ".join(console)
    for command in ("npm ci", "npm run build"):
        check(command in console_text, f"console stage does not run {command}")
    copied_console = [line for line in build if line.startswith("COPY --from=console ")]
    check(any(line.endswith(" ui/dist") for line in copied_console), "build stage does not copy the console to ui/dist")
    cmake_at = next((i for i, line in enumerate(build) if line.startswith("RUN cmake")), len(build))
    check(all(build.index(line) < cmake_at for line in copied_console),
          "build stage copies the console after configuring: the broker would not embed it")
    check(runtime_from == "FROM debian:bookworm-slim", f"runtime stage is not debian:bookworm-slim: {runtime_from}")

    # The build stage: packages.txt's packages, a Release build without tests or benchmarks.
    with open(args.packages_txt) as listed:
        known = {line.strip() for line in listed if line.strip() and not line.startswith("#")}
    build_packages = installed_packages(build)
    check(build_packages, "build stage installs nothing")
    for package in build_packages:
        check(package in known, f"build stage installs {package}, which scripts/packages.txt does not list")
    build_text = " ".join(build)
    for option in ("-DCMAKE_BUILD_TYPE=Release", "-DSINDRI_TESTS=OFF", "-DSINDRI_BENCH=OFF"):
        check(option in build_text, f"build stage does not configure with {option}")

    # The runtime stage copies the programs, and nothing else, from the build stage.
    names = sorted(os.path.basename(program) for program in args.programs)
    copies = [shlex.split(line)[2:-1] for line in runtime if line.startswith("COPY --from=build ")]
    copied = sorted(os.path.basename(path) for paths in copies for path in paths)
    check(copied == names, f"runtime stage copies {copied}, the programs are {names}")
    for instruction in build:
        if instruction.startswith("RUN cmake --build") or " cmake --build " in instruction:
            for name in names:
                check(re.search(rf"--target\b.*\b{re.escape(name)}\b", instruction) is not None,
                      f"build stage does not build {name}")
    check(any(line.startswith("USER ") and not line.split()[1].startswith(("0", "root")) for line in runtime),
          "runtime stage does not switch to a non-root user")

    # The runtime packages against what the programs link.
    runtime_packages = set(installed_packages(runtime))
    linked = {program: (ldd_paths(program, args.sanitized), needed(program, args.sanitized))
              for program in args.programs}
    every_library = {soname: path for paths, _ in linked.values() for soname, path in paths.items()}
    owner = owners(every_library.values())
    direct = {}
    for program, (paths, sonames) in linked.items():
        for soname in sonames:
            if check(soname in paths, f"{program}: ldd does not resolve {soname}"):
                package = owner[paths[soname]]
                if check(package is not None, f"{program}: no Debian package owns {paths[soname]} ({soname})"):
                    direct.setdefault(package, []).append(f"{os.path.basename(program)}: {soname}")
    for package in sorted(set(direct) - runtime_packages):
        failures.append(f"runtime stage lacks {package}, which owns {', '.join(direct[package])}")
    for package in sorted(runtime_packages - set(direct) - set(EXTRAS)):
        failures.append(f"runtime stage installs {package}, which no program links")
    for package in sorted(set(EXTRAS) - runtime_packages):
        failures.append(f"runtime stage lacks {package}: {EXTRAS[package]}")
    brought = dependency_closure(runtime_packages)
    for soname, path in sorted(every_library.items()):
        package = owner[path]
        if check(package is not None, f"no Debian package owns {path} ({soname})"):
            check(package in brought, f"{soname} ({package}) is neither installed nor brought by what is")

    for failure in failures:
        print("FAIL: " + failure)
    print(f"Dockerfile: {len(names)} programs, {len(direct)} linked packages, {len(every_library)} libraries, "
          f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
