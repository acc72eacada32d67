#!/usr/bin/env python3
"""Runs the README's tour as written (issue 29).

The tour is the README's "A short tour" section. One of its blocks starts
the broker (a line `scripts/run.sh`); this script starts the broker itself
instead, with the built binary, in a fresh directory holding a copy of
examples/, then runs every other ```sh block of the tour, in order, as a
single bash script (so that exports carry over), stopping at the first
command that fails. A command the README expects to fail ends in `# exit N: why`; it must
exit N. A command ending in `# prints "TEXT" ...` must print TEXT (on
stdout or stderr). A block right after `<!-- not run by the tour test: why -->` is
skipped (it needs a cluster, say). The only change made to the text is the
broker's address, 127.0.0.1:8080, which becomes a free port.

It also holds the README to the issue's promise: from the running broker to
an instantiated template and `sindri agent state` in at most 8 commands.

usage: readme_tour.py README.md BIN_DIR
"""

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

SKIP_MARK = re.compile(r"^<!-- not run by the tour test: .+ -->$")
EXPECTED_EXIT = re.compile(r"^(?P<command>\S.*?)\s+# exit (?P<code>\d+)\b.*$")
EXPECTED_OUTPUT = re.compile(r'^(?P<command>\S.*?)\s+# prints "(?P<text>[^"]+)".*$')
MAX_COMMANDS_TO_AGENT_STATE = 8
TIMEOUT_SECONDS = 300


def tour_blocks(readme):
    """The ```sh blocks of the tour but the one starting the broker, each as
    (first line number, lines), without the skipped ones; and the index of
    the first block after the broker's start."""
    lines = readme.splitlines()
    try:
        start = lines.index("## A short tour")
    except ValueError:
        sys.exit("README.md has no '## A short tour' section")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    blocks, skip_next, broker_started, first_after_start = [], False, False, None
    i = start
    while i < end:
        line = lines[i]
        if SKIP_MARK.match(line.strip()):
            skip_next = True
        elif line.strip() == "```sh":
            j = i + 1
            while j < end and lines[j].strip() != "```":
                j += 1
            body = lines[i + 1:j]
            if not broker_started and any(b.strip() == "scripts/run.sh" for b in body):
                broker_started, first_after_start = True, len(blocks)
            elif not skip_next:
                blocks.append((i + 2, body))
            skip_next = False
            i = j
        i += 1
    if not broker_started:
        sys.exit("the tour has no ```sh block with the line `scripts/run.sh` that starts the broker")
    if first_after_start == len(blocks):
        sys.exit("the tour has no ```sh block after the one that starts the broker")
    return blocks, first_after_start


def commands(lines):
    """The commands of a block: its lines without blank ones, comments and
    the bodies of here-documents."""
    found, heredoc_end = [], None
    for line in lines:
        if heredoc_end is not None:
            if line.strip() == heredoc_end:
                heredoc_end = None
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        found.append(line)
        heredoc = re.search(r"<<-?\s*'?\"?(\w+)", line)
        if heredoc:
            heredoc_end = heredoc.group(1)
    return found


def check_command_count(blocks):
    count = 0
    for _, lines in blocks:
        for command in commands(lines):
            count += 1
            if re.search(r"\bsindri agent state\b", command):
                if count > MAX_COMMANDS_TO_AGENT_STATE:
                    sys.exit(f"the tour takes {count} commands from the running broker to `sindri agent state`; "
                             f"the README promises at most {MAX_COMMANDS_TO_AGENT_STATE}")
                print(f"tour: {count} commands from the running broker to `sindri agent state`")
                return
            if re.search(r"\bcurl\b", command):
                sys.exit(f"the tour uses curl before `sindri agent state`: {command}")
    sys.exit("the tour never runs `sindri agent state`")


def script_of(blocks, port):
    out = ["set -euo pipefail", "set -x"]
    for first_line, lines in blocks:
        out.append(f": README.md line {first_line}")
        for line in lines:
            line = line.replace("127.0.0.1:8080", f"127.0.0.1:{port}")
            expected = EXPECTED_EXIT.match(line)
            if expected:
                command, code = expected.group("command"), expected.group("code")
                out.append(f"if {command}; then echo 'tour: expected exit {code}, got 0' >&2; exit 1; "
                           f"else code=$?; [ $code -eq {code} ] || "
                           f"{{ echo \"tour: expected exit {code}, got $code\" >&2; exit 1; }}; fi")
            elif EXPECTED_OUTPUT.match(line):
                printed = EXPECTED_OUTPUT.match(line)
                command, text = printed.group("command"), printed.group("text")
                out.append(f"printed=$({command} 2>&1); printf '%s\\n' \"$printed\"; "
                           f"grep -qF -- {shlex.quote(text)} <<<\"$printed\" || "
                           f"{{ echo {shlex.quote('tour: expected the output to hold ' + text)} >&2; exit 1; }}")
            else:
                out.append(line)
    return "\n".join(out) + "\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port, broker):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if broker.poll() is not None:
            sys.exit(f"the broker exited with {broker.returncode} before it was ready")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit("the broker was not ready within 60 s")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    readme_path, bin_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(readme_path, encoding="utf-8") as f:
        blocks, first_after_start = tour_blocks(f.read())
    check_command_count(blocks[first_after_start:])
    root = os.path.dirname(os.path.abspath(readme_path))
    with tempfile.TemporaryDirectory(prefix="sindri-tour-") as work:
        shutil.copytree(os.path.join(root, "examples"), os.path.join(work, "examples"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("SINDRI_")}
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
        port = free_port()
        with open(os.path.join(work, "broker.log"), "w") as log:
            broker = subprocess.Popen([os.path.join(bin_dir, "sindri"), "serve", "--listen", f"127.0.0.1:{port}"],
                                      cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_ready(port, broker)
            script = script_of(blocks, port)
            try:
                done = subprocess.run(["bash", "-c", script], cwd=work, env=env, timeout=TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                sys.exit(f"the tour did not end within {TIMEOUT_SECONDS} s")
            if done.returncode != 0:
                with open(os.path.join(work, "broker.log")) as log:
                    sys.stderr.write("--- the broker's log\n" + log.read())
                sys.exit(f"the tour failed (exit {done.returncode}); the command is the last one traced above")
        finally:
            broker.send_signal(signal.SIGTERM)
            try:
                broker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                broker.kill()
    print("tour: every command ran as the README says")


if __name__ == "__main__":
    main()
