#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test: the release build's ctest (unit,
# property, CLI, server, end-to-end, DST, soak and fidelity checks), then the same tests under
# ASan+UBSan (ci/sanitizers.sh, clang) and a short run of every fuzz target (ci/fuzz.sh).
# Both builds are unity builds (ci/build.sh: the fast one); the plain build, every file on its own,
# is `LLM_UNITY_BUILD=OFF bash ci/sanitizers.sh` (too slow for CI's budget: see there).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
bash ci/sanitizers.sh
bash ci/fuzz.sh
