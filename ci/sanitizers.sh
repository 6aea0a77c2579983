#!/usr/bin/env bash
# The ASan+UBSan build: configures build-asan with clang (LLM_BUILD_FUZZERS on, so the fuzz targets
# are built and the libraries they link carry libFuzzer's coverage instrumentation; tests on and
# benchmarks off; a unity build unless LLM_UNITY_BUILD=OFF, see below), builds it and runs its ctest.
# Fails on a build error, a failing test, or any sanitizer report, including one from a server or
# CLI process a test started and whose exit status it ignores (every report is also written under
# build-asan/sanitizer-reports/). See docs/fuzzing.md. CUDA is off there (nvcc takes no sanitizer
# flags; docs/cuda.md).
#   ci/sanitizers.sh              configure, build, test
#   ci/sanitizers.sh --configure  only configure build-asan (ci/fuzz.sh uses it)
# LLM_ASAN_BUILD_DIR names another build directory (default build-asan).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${LLM_ASAN_BUILD_DIR:-build-asan}

bash ci/install-deps.sh
# -O1 with line tables: what ASan's reports need (file:line in every frame), at four fifths of -O2
# -g's compile time. A unity build, as ci/build.sh's: about 11 minutes on CI's two cores. The plain
# build (LLM_UNITY_BUILD=OFF: every .cpp compiled on its own) took 24 minutes of the same machine
# (533 steps at about 22 a minute, 2026-12-07), which would take CI past its 40-minute budget, and
# precompiled headers do not bring it near unity (ci/plain-check.sh has the measurements): what it
# would catch, a file that uses a name it does not include, is ci/plain-check.sh's check instead.
# The benchmarks are left to ci/build.sh (built there, not run).
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DLLM_BUILD_FUZZERS=ON -DLLM_BUILD_BENCHMARKS=OFF -DLLM_BUILD_TESTS=ON -DLLM_ENABLE_CUDA=OFF \
  -DCMAKE_UNITY_BUILD="${LLM_UNITY_BUILD:-ON}" >/dev/null
[[ ${1:-} == --configure ]] && exit 0

reports="$PWD/$build/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
# log_path: a report goes to a file there (printed below) instead of stderr, and the process still
# fails; a report from a child process (llmserve under a Python or Node test) is so not lost with
# its exit status.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$reports/report"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/report"

status=0
time cmake --build "$build" -j "$(nproc)" || exit 1
# Left out: wall-clock performance bounds and the tests that time or load a real server, which
# ASan's slowdown breaks or makes slow, and the GPU fits on ../shared/gpu-truth (gpu_presets_reproduce
# fits three times, fidelity_xval once per fold: seconds each in release, minutes under ASan)
# (they run in ci/test.sh's release build).
slow_under_asan='^(PublicTraces\.ParseQuickly|fidelity|soak_short|docs_examples|gpu_presets_reproduce|fidelity_xval)$'
time ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -E "$slow_under_asan" || status=1
if compgen -G "$reports/*" >/dev/null; then
  echo "ci/sanitizers.sh: sanitizer reports:" >&2
  for f in "$reports"/*; do
    echo "==== $f" >&2
    head -n 60 "$f" >&2
  done
  status=1
fi
exit "$status"
