#!/usr/bin/env bash
# Installs the dependencies and builds everything into build/ (-O2 with line tables: what perf and
# a backtrace need, at three quarters of full debug info's compile time; tests at -O1, see
# LLM_TEST_COMPILE_OPTIONS in CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
cmake --build build -j "$(nproc)"
