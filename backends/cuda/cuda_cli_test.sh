#!/usr/bin/env bash
# llmserve --backend cuda and llmsim calibrate --backend cuda on a machine without a usable GPU
# (CI): each exits 2 with one stderr line that says why (no driver, no device, a driver older than
# the runtime, or a build without CUDA), before loading anything. On a machine with a GPU the
# probe passes and the missing model is what they name instead (still exit 2, one line).
# Usage: backends/cuda/cuda_cli_test.sh BUILD_DIR
set -u
build=${1:?usage: cuda_cli_test.sh BUILD_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
if nvidia-smi -L >/dev/null 2>&1; then
  want='--model /nonexistent/model.gguf: cannot load'
else
  want='--backend cuda: (no NVIDIA driver found|no CUDA device|the NVIDIA driver .* is older|this build has no CUDA)'
fi
check() {  # check NAME COMMAND...
  local name=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [[ $rc -ne 2 ]]; then
    echo "FAIL $name: exit $rc, want 2: $(head -c 300 "$work/err")"; failed=1
  elif [[ $lines -ne 1 ]]; then
    echo "FAIL $name: $lines stderr lines, want 1: $(head -c 300 "$work/err")"; failed=1
  elif ! grep -qE -- "$want" "$work/err"; then
    echo "FAIL $name: stderr lacks /$want/: $(cat "$work/err")"; failed=1
  else
    echo "ok   $name: $(cat "$work/err")"
  fi
}
check "llmserve --backend cuda" "$build/llmserve" --backend cuda --model /nonexistent/model.gguf --port 0
check "llmsim calibrate --backend cuda" "$build/llmsim" calibrate --backend cuda \
  --model /nonexistent/model.gguf --out "$work/p.json"
[[ ! -e $work/p.json ]] || { echo "FAIL calibrate left $work/p.json"; failed=1; }
exit $failed
