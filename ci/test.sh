#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test: the release build's ctest (unit,
# property, CLI, server, end-to-end, DST, soak and fidelity checks), then the same tests under
# ASan+UBSan (ci/sanitizers.sh, clang) and a short run of every fuzz target (ci/fuzz.sh).
# The release build is a unity build (ci/build.sh: the fast one); the ASan build is the plain
# one, every file compiled on its own, so that CI fails when a file does not include what it uses.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
bash ci/sanitizers.sh
bash ci/fuzz.sh
