#!/usr/bin/env bash
# llmserve --backend cuda and llmsim calibrate --backend cuda on a machine without a usable GPU
# (CI): each exits 2 with one stderr line that says why (no driver, no device, a driver older than
# the runtime, or a build without CUDA), before loading anything. On a machine with a GPU the
# probe passes and the missing model is what they name instead (still exit 2, one line). In a
# CUDA build: llmsim and llmserve link no CUDA library, and a missing or broken backend module is
# named (exit 2, one line).
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

# A CUDA build loads the backend from libllm_cuda_backend.so, beside the programs, only when
# --backend cuda asks (backends/cuda/loader): the programs themselves link no CUDA library, and a
# missing module is named.
if "$build/llmsim" --version | grep -q 'CUDA built in'; then
  for b in llmsim llmserve; do
    if ldd "$build/$b" | grep -qE 'libcublas|libcudart'; then
      echo "FAIL $b links a CUDA library: $(ldd "$build/$b" | grep -E 'libcublas|libcudart')"; failed=1
    else
      echo "ok   $b links no CUDA library"
    fi
  done
  if ! ldd "$build/libllm_cuda_backend.so" | grep -q libcublas; then
    echo "FAIL $build/libllm_cuda_backend.so does not link cuBLAS"; failed=1
  fi
  want='--backend cuda: the CUDA backend module \$LLM_CUDA_BACKEND=/nonexistent/libllm_cuda_backend.so does not exist'
  LLM_CUDA_BACKEND=/nonexistent/libllm_cuda_backend.so check "LLM_CUDA_BACKEND missing" \
    "$build/llmsim" calibrate --backend cuda --model /nonexistent/model.gguf --out "$work/p.json"
  mkdir "$work/alone" && cp "$build/llmserve" "$work/alone/"
  want="--backend cuda: the CUDA backend module libllm_cuda_backend.so was not found \\(looked at $work/alone/libllm_cuda_backend.so, $work/alone/lib/libllm_cuda_backend.so; set LLM_CUDA_BACKEND to its path\\)"
  check "llmserve without the module" "$work/alone/llmserve" --backend cuda \
    --model /nonexistent/model.gguf --port 0
  echo 'not a shared object' >"$work/alone/libllm_cuda_backend.so"
  want="--backend cuda: cannot load the CUDA backend module $work/alone/libllm_cuda_backend.so: "
  check "llmserve with a broken module" "$work/alone/llmserve" --backend cuda \
    --model /nonexistent/model.gguf --port 0
fi
exit $failed
