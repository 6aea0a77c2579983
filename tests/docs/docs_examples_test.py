#!/usr/bin/env python3
"""ctest docs_examples: runs the command examples of README.md and docs/*.md against the built
binaries, so that every command the documentation shows works as written.

Every fenced block whose language is a shell (bash, sh, shell, console) or python, and every
fence without a language, carries a marker on the line before it:

  <!-- example -->                  run the block (bash -eo pipefail; python3 for ```python)
  <!-- example: server FLAGS -->    start `./build/llmserve FLAGS` first (FLAGS name its --port),
                                    wait for /health, run the block, stop the server
  <!-- example: skip REASON -->     not run here, counted by REASON: gpu (needs an NVIDIA GPU),
                                    cluster (a Kubernetes cluster), external (an engine or service
                                    this repository does not build: vLLM, llama.cpp, a collector),
                                    long (minutes: a measurement, a soak, a 100,000-seed run),
                                    build (builds the project or another configuration of it)

Blocks of output, configuration or data are ```text, ```json, ```yaml, ... and need no marker.

The blocks of one file run in order in one scratch folder (a reader following the page), which
holds copies of the repository's small folders (traces/, monitoring/, deploy/, docs/, ...),
build/ with links to the binaries under test, and ../shared beside it. The documented ports
(`localhost:8000`, `127.0.0.1:8000`, `--port 8000`, `port=8000`) are rewritten to free ones, ports
within 16 of each other keeping their offsets, so that runs never collide; every process a block
leaves running is stopped after it. A block fails the test when it exits non-zero or takes longer
than BLOCK_TIMEOUT_S; an unmarked command block or an unknown marker fails it too, and so does a
README.md with fewer than README_MIN_RUN blocks run (its quick starts).

Usage: docs_examples_test.py SOURCE_DIR BUILD_DIR [FILE.md...]   (default: README.md, docs/*.md)
"""
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

BLOCK_TIMEOUT_S = 90
README_MIN_RUN = 6  # the alert and dashboard quick starts and the four others
COMMAND_LANGUAGES = {"bash", "sh", "shell", "console", "python"}
SKIP_REASONS = ("gpu", "cluster", "external", "long", "build")
COPIED = ("ci", "deploy", "docs", "monitoring", "tests", "tools", "traces", "README.md")
BINARIES = ("llmsim", "llmserve", "llmbench")
MARKER = re.compile(r"^<!--\s*example(?::\s*(.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
PORT = re.compile(r"(?:(?<=localhost:)|(?<=127\.0\.0\.1:)|(?<=--port )|(?<=--port=)|(?<=\bport=))"
                  r"(\d{4,5})\b")


class Block:
    """One fenced block: where it is, its language, its text and its marker (None: unmarked)."""

    def __init__(self, path, line, language, text, marker):
        self.path = path
        self.line = line
        self.language = language
        self.text = text
        self.marker = marker

    def where(self):
        return f"{self.path}:{self.line}"


def parse(path, name):
    """Every fenced block of a markdown file."""
    blocks = []
    lines = pathlib.Path(path).read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, language = m.group(1), m.group(2)
        marker = None
        if i > 0:
            mm = MARKER.match(lines[i - 1].strip())
            if mm:
                marker = (mm.group(1) or "run").strip()
        body = []
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        blocks.append(Block(name, i + 1, language, "\n".join(body) + "\n", marker))
        i = j + 1
    return blocks


def classify(block):
    """('run', None), ('server', FLAGS), ('skip', REASON), ('data', None), or ('error', why)."""
    m = block.marker
    if m is None:
        if block.language == "":
            return "error", "a fence without a language: label it (text, json, ...) or mark it"
        if block.language in COMMAND_LANGUAGES:
            return "error", f"a ```{block.language} block without an <!-- example --> marker"
        return "data", None
    if m == "run":
        return "run", None
    if m.startswith("server "):
        return "server", m[len("server "):].strip()
    if m.startswith("skip "):
        reason = m[len("skip "):].strip()
        if reason not in SKIP_REASONS:
            return "error", f"skip reason '{reason}': expected one of {', '.join(SKIP_REASONS)}"
        return "skip", reason
    return "error", f"unknown marker '<!-- example: {m} -->'"


def free_base_port(span):
    """A port P with P .. P + span - 1 free (for llmserve's data-parallel port + i)."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + span > 65535:
            continue
        try:
            for p in range(base, base + span):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
    raise RuntimeError("no free range of ports")


def with_free_ports(text, ports):
    """`text` with each documented port replaced by a free one (`ports` maps them). Ports within
    16 of one mapped before keep their offset from it (8000 and 8001: engine 0 and engine 1)."""
    def swap(m):
        port = int(m.group(1))
        if port not in ports:
            near = [p for p in ports if 0 < port - p < 16]
            ports[port] = ports[near[0]] + port - near[0] if near else free_base_port(16)
        return str(ports[port])
    return PORT.sub(swap, text)


def make_scratch(source, build, root):
    """The scratch repository: copies of the small folders, build/ links, ../shared."""
    repo = root / "repo"
    repo.mkdir()
    for name in COPIED:
        src = source / name
        if src.is_dir():
            shutil.copytree(src, repo / name, symlinks=True,
                            ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
        elif src.exists():
            shutil.copy2(src, repo / name)
    (repo / "build").mkdir()
    for b in BINARIES:
        (repo / "build" / b).symlink_to(build / b)
    shared = (source / ".." / "shared").resolve()
    if shared.is_dir():
        (root / "shared").symlink_to(shared)
    return repo


def wait_healthy(port, proc, timeout_s=30):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(0.1)
    return False


def stop_group(proc):
    """Stops `proc`'s process group (the block and whatever it left running)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_block(block, kind, flags, repo, log):
    """Runs one block in `repo`; returns None when it passed, else why it failed."""
    ports = {}
    text = with_free_ports(block.text, ports)
    server = None
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    try:
        if kind == "server":
            args = with_free_ports(flags, ports).split()
            port = args[args.index("--port") + 1]
            server = subprocess.Popen(["./build/llmserve", *args], cwd=repo, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
            if not wait_healthy(port, server):
                return f"llmserve {flags} did not answer /health (exit {server.poll()})"
        if block.language == "python":
            command = ["python3", "-c", text]
        else:
            command = ["bash", "-eo", "pipefail", "-c", text]
        proc = subprocess.Popen(command, cwd=repo, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        try:
            code = proc.wait(timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            code = None
        stop_group(proc)
        if code is None:
            return f"did not finish within {BLOCK_TIMEOUT_S} s"
        if code != 0:
            return f"exited with code {code}"
        return None
    finally:
        if server is not None:
            stop_group(server)


def run_file(source, build, path, name, counts, failures, timings):
    blocks = parse(path, name)
    with tempfile.TemporaryDirectory(prefix="docs-examples-") as tmp:
        repo = None
        for block in blocks:
            kind, detail = classify(block)
            if kind == "error":
                failures.append(f"{block.where()}: {detail}")
                continue
            if kind == "data":
                continue
            if kind == "skip":
                counts[detail] = counts.get(detail, 0) + 1
                continue
            repo = repo or make_scratch(source, build, pathlib.Path(tmp))
            log_path = pathlib.Path(tmp) / "block.log"
            t0 = time.monotonic()
            with open(log_path, "w") as log:
                why = run_block(block, kind, detail, repo, log)
            seconds = time.monotonic() - t0
            timings.append((seconds, block.where()))
            counts["run"] = counts.get("run", 0) + 1
            if why:
                output = log_path.read_text(errors="replace")[-3000:]
                failures.append(f"{block.where()}: {why}\n--- the block:\n{block.text}"
                                f"--- its output (last 3000 characters):\n{output}")
                print(f"FAIL {block.where()} ({seconds:.1f} s): {why}", flush=True)
            else:
                print(f"ok   {block.where()} ({seconds:.1f} s)", flush=True)


def self_check():
    """The checks themselves can fail: an unmarked block, a bad marker and a failing example."""
    text = ("```bash\ntrue\n```\n<!-- example: skip soon -->\n```bash\ntrue\n```\n"
            "<!-- example -->\n```bash\nfalse\n```\n")
    with tempfile.TemporaryDirectory() as tmp:
        md = pathlib.Path(tmp) / "self.md"
        md.write_text(text)
        blocks = parse(md, "self.md")
        kinds = [classify(b)[0] for b in blocks]
        assert kinds == ["error", "error", "run"], kinds
        with open(pathlib.Path(tmp) / "log", "w") as log:
            assert run_block(blocks[2], "run", None, pathlib.Path(tmp), log) == "exited with code 1"
        ports = {}
        swapped = with_free_ports("curl localhost:8000/x --port 8000 localhost:8001 port=8000",
                                  ports)
        a = ports[8000]
        assert swapped == f"curl localhost:{a}/x --port {a} localhost:{a + 1} port={a}", swapped


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    source = pathlib.Path(sys.argv[1]).resolve()
    build = pathlib.Path(sys.argv[2]).resolve()
    for b in BINARIES:
        if not (build / b).exists():
            sys.exit(f"docs_examples: {build / b} is not built")
    self_check()
    names = sys.argv[3:] or ["README.md"] + sorted(
        str(p.relative_to(source)) for p in (source / "docs").glob("*.md"))
    counts, failures, timings = {}, [], []
    t0 = time.monotonic()
    for name in names:
        run_file(source, build, source / name, name, counts, failures, timings)
    for f in failures:
        print("FAIL", f)
    readme_runs = sum(1 for _, where in timings if where.startswith("README.md:"))
    if "README.md" in names and readme_runs < README_MIN_RUN:
        failures.append(f"README.md: {readme_runs} blocks run, expected at least {README_MIN_RUN}")
        print("FAIL", failures[-1])
    skipped = ", ".join(f"{r} {counts[r]}" for r in SKIP_REASONS if r in counts) or "none"
    slowest = ", ".join(f"{w} {s:.1f} s" for s, w in sorted(timings, reverse=True)[:3])
    print(f"docs_examples: {len(names)} files, {counts.get('run', 0)} blocks run, "
          f"{sum(counts.get(r, 0) for r in SKIP_REASONS)} not run here ({skipped}), "
          f"{len(failures)} failures, {time.monotonic() - t0:.1f} s (slowest: {slowest})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
