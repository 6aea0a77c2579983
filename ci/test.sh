#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test (unit, property, CLI end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
