#!/usr/bin/env bash
# Installs the dependencies, builds, and replays the bundled Azure sample trace on the simulated
# engine (H200 + Llama-3.1-8B, vLLM's default engine arguments), writing out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
./build/llmsim replay traces/azure-conv-sample.json --output-dir out/demo "$@"
