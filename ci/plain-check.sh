#!/usr/bin/env bash
# The plain-build check: compiles every .cpp of the project on its own, as the plain build
# (-DCMAKE_UNITY_BUILD=OFF: what IDEs, packagers and `cmake -S . -B build` run) does, so that a file
# that uses a name it does not include, or that only another file's `using namespace` or
# using-declaration brings in, fails here instead of compiling because a unity batch put it after
# the file that does. ci/build.sh and ci/sanitizers.sh build unity batches, which hide both.
#
# Why not a plain build in CI: the ASan build plain took 24 minutes of CI's two cores where unity
# takes 11, and CI's budget (40 minutes, ~30 used) cannot absorb that. Measured here in the ASan
# configuration on 16 test files (sim_tests' second unity batch; 2026-12-07, in CPU seconds, as
# other builds loaded this machine): their unity batch 46.8 s; each file plain 101.4 s (2.2x);
# plain with gtest, rapidcheck and nlohmann/json precompiled 75.9 s + 5.1 s for the PCH (1.7x:
# code generation, not parsing, is most of what a batch shares), so a plain+PCH ASan build would
# still add about 8 minutes. Syntax and semantic checking alone (clang -fsyntax-only: no code
# generation) finds the same errors: 42.9 s for the 16 files without a PCH, 10.2 s + 4.4 s with
# one (0.31x the unity batch); 16 sim/ library files: 33.2 s, and 8.5 s + 2.5 s with
# nlohmann/json precompiled. So this check: configure build-plain-check with clang, plain, LLM_PCH
# on (CMakeLists.txt: nlohmann/json precompiled once per library that includes it, and gtest,
# rapidcheck and nlohmann/json once for all test programs), build only the precompiled headers,
# then run `clang++ -fsyntax-only` on every compile command. The whole check here: 35 PCHs (one
# per test program then) in 147 CPU seconds, then 520 files (0 failed) in 404, about 4.6 minutes
# of two cores; with the test programs sharing one PCH, 15 PCHs in 45 CPU seconds (2026-12-07).
# Project headers are never precompiled, so a missing project include is found; a file that uses
# gtest, rapidcheck or nlohmann/json without including them is not (the PCH gives them to every
# file of its target). The CUDA sources (backends/cuda/device) are left out, as in the ASan build;
# link errors are left to the real builds (unity and plain link the same code).
#   ci/plain-check.sh            configure, build the PCHs, check every file
# LLM_PLAIN_CHECK_DIR names another build directory (default build-plain-check).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${LLM_PLAIN_CHECK_DIR:-build-plain-check}

bash ci/install-deps.sh
# The flags of the ASan build (ci/sanitizers.sh), fuzz targets and benchmarks included, so that
# every .cpp of the tree is checked; -O0: no code is generated anyway.
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -DNDEBUG" -DLLM_TEST_COMPILE_OPTIONS="" \
  -DLLM_BUILD_FUZZERS=ON -DLLM_BUILD_BENCHMARKS=ON -DLLM_BUILD_TESTS=ON -DLLM_ENABLE_CUDA=OFF \
  -DCMAKE_UNITY_BUILD=OFF -DLLM_PCH=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null

mapfile -t pchs < <(ninja -C "$build" -t targets all | grep -o '^[^:]*cmake_pch\.hxx\.pch' | sort -u)
time ninja -C "$build" "${pchs[@]}" >/dev/null

time python3 - "$build/compile_commands.json" "$(nproc)" <<'EOF'
# Runs each compile command with -fsyntax-only in place of "-o OBJECT -c"; prints each failure's
# diagnostics and exits 1 when any file fails.
import json, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

def syntax_only(entry):
    args, skip = [], False
    for arg in shlex.split(entry["command"]):
        if skip:
            skip = False
        elif arg in ("-o", "-MF", "-MT"):
            skip = True
        elif arg not in ("-c", "-MD"):
            args.append(arg)
    run = subprocess.run(args + ["-fsyntax-only"], cwd=entry["directory"], capture_output=True)
    return entry["file"], run.returncode, run.stderr.decode(errors="replace")

# The precompiled headers' own sources (cmake_pch.hxx.cxx) were built above.
entries = [e for e in json.load(open(sys.argv[1])) if not e["file"].endswith("cmake_pch.hxx.cxx")]
failed = 0
with ThreadPoolExecutor(int(sys.argv[2])) as pool:
    for path, code, stderr in pool.map(syntax_only, entries):
        if code != 0:
            failed += 1
            print(f"==== {path}\n{stderr}", file=sys.stderr)
print(f"ci/plain-check.sh: {len(entries)} files, {failed} failed to compile on their own")
sys.exit(1 if failed else 0)
EOF
