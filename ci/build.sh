#!/usr/bin/env bash
# Installs the dependencies and builds everything into build/ (Release with debug info).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
