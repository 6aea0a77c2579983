#!/usr/bin/env bash
# Installs the dependencies and builds everything into build/ (-O2 with line tables: what perf and
# a backtrace need, at three quarters of full debug info's compile time; tests at -O1, see
# LLM_TEST_COMPILE_OPTIONS in CMakeLists.txt) as a unity build: each target's files compiled
# sixteen to a translation unit, which halves the build (see CMakeLists.txt): the fast build, for
# the release tests. That every file also compiles on its own (the plain build, as IDEs and
# packagers build) is ci/plain-check.sh's check. For quick incremental builds of one file,
# LLM_UNITY_BUILD=OFF configures build/ without unity batches.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_UNITY_BUILD="${LLM_UNITY_BUILD:-ON}" >/dev/null
cmake --build build -j "$(nproc)"
