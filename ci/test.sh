#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test: the release build's ctest (unit,
# property, CLI, server, end-to-end, DST, soak and fidelity checks), then the plain-build check
# (ci/plain-check.sh: every file compiled on its own, syntax only), the same tests under
# ASan+UBSan (ci/sanitizers.sh, clang) and a short run of every fuzz target (ci/fuzz.sh).
# Both builds are unity builds (ci/build.sh: the fast one), which can hide a missing include;
# ci/plain-check.sh finds those in under 5 minutes where a plain build of everything would add
# 13 (see there).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
bash ci/plain-check.sh
bash ci/sanitizers.sh
bash ci/fuzz.sh
