#!/usr/bin/env bash
# The CUDA backend on a lent GPU machine, in one non-interactive run (docs/cuda.md):
#   ci/gpu-check.sh --prepare   here (the build machine): fill gpu-carry/ with stripped builds of
#                               cuda_gpu_check, llmserve, llmsim and the CUDA backend module
#                               they dlopen() (libllm_cuda_backend.so, beside them) and the
#                               non-system libraries they load (the GPU machine has none of our
#                               Debian libraries),
#                               and a small generated model; git ignores the folder (its own
#                               .gitignore), so name it in the device tool's `carry`.
#   ci/gpu-check.sh             there: build kernels/ alone with CMake (Release, sm_90a), run its
#                               kernel tests, then, if gpu-carry/ holds binaries that start, the
#                               end-to-end check against the CPU backend, the benchmarks and an
#                               llmserve --backend cuda smoke test; print a summary.
# The raw log and the summary go to $OUT when it is set (the device tool's output folder), else
# to docs/gpu-runs/. Every step has a timeout; the whole run is meant to end within 8 minutes.
# Exit status: 0 when every step that ran passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
carry=${LLM_GPU_CARRY:-$root/gpu-carry}

if [[ ${1:-} == --prepare ]]; then
  build=${LLM_GPU_BUILD_DIR:-build}
  ninja -C "$build" cuda_gpu_check llmserve llmsim llm_cuda_backend || exit 1
  rm -rf "$carry" && mkdir -p "$carry/lib"
  for b in cuda_gpu_check llmserve llmsim libllm_cuda_backend.so; do
    strip -o "$carry/$b" "$build/$b" || exit 1
    # Libraries outside glibc and the CUDA toolkit (which the GPU machine has) travel along.
    ldd "$build/$b" | awk '/=> \// {print $3}' |
      grep -vE '/(libc|libm|libdl|librt|libpthread|libgcc_s|ld-linux[^/]*|libcublas(Lt)?|libcudart|libcuda)\.so' |
      while read -r lib; do cp -L "$lib" "$carry/lib/"; done
  done
  # A small generated model (Llama SPM vocabulary of ../shared) for the llmserve smoke test.
  "$build/llmsim" make-model --arch llama --vocab ../shared/testdata/tokenizers/ggml-vocab-llama-spm.gguf \
    --dim 128 --layers 2 --heads 4 --dtype bf16 --max-position-embeddings 1024 --tied --peaky \
    --out "$carry/model" >/dev/null || exit 1
  rm -f "$carry/model/model.safetensors"
  echo '*' >"$carry/.gitignore"  # git ignores the folder; name it in the device tool's carry
  du -sh "$carry"
  exit 0
fi

out=${OUT:-$root/docs/gpu-runs}
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
log="$out/gpu-check-$stamp.log"
summary="$out/gpu-check-$stamp.md"
exec > >(tee "$log") 2>&1
results=()
status=0
step() {  # step NAME TIMEOUT_S COMMAND...: runs it, records ok / FAIL / skipped (exit 77)
  local name=$1 limit=$2
  shift 2
  echo "==== $name (timeout ${limit}s): $*"
  local start=$SECONDS rc
  timeout "$limit" "$@"
  rc=$?
  local took=$((SECONDS - start))
  if [[ $rc -eq 0 ]]; then
    results+=("| $name | ok | ${took} s |")
  elif [[ $rc -eq 77 ]]; then
    results+=("| $name | skipped | ${took} s |")
  else
    results+=("| $name | FAIL (exit $rc) | ${took} s |")
    status=1
  fi
  return $rc
}

echo "ci/gpu-check.sh $stamp on $(hostname) ($(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
nvidia-smi -L || true
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv || true
export PATH=/usr/local/cuda/bin:$PATH
nvcc --version | tail -1
cmake --version | head -1

# 1. kernels/ alone: CMake, the CUDA toolkit and the standard library.
kbuild=/tmp/llm-kernels-build
step "build kernels/ (Release, sm_90a)" 300 bash -c \
  "cmake -S kernels -B $kbuild -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null && ninja -C $kbuild"
if [[ -x $kbuild/kernel_tests ]]; then
  step "kernel tests vs CPU reference" 180 "$kbuild/kernel_tests"
  command -v cuobjdump >/dev/null &&
    echo "sm targets in libllm_kernels.a: $(cuobjdump --list-elf "$kbuild/libllm_kernels.a" | grep -o 'sm_[0-9a]*' | sort -u | tr '\n' ' ')"
fi

# 2. The carried engine binaries (built on the build machine; see --prepare).
bench_table=""
if [[ -x $carry/cuda_gpu_check ]]; then
  export LD_LIBRARY_PATH="$carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  if ! ldd "$carry/cuda_gpu_check" | grep -q 'not found'; then
    step "engine end to end vs cpu backend" 240 "$carry/cuda_gpu_check" check
    step "benchmarks (Llama-3.2-1B shape)" 300 bash -c \
      "set -o pipefail; '$carry/cuda_gpu_check' bench | tee /tmp/llm-bench.txt"
    bench_table=$(grep '^|' /tmp/llm-bench.txt 2>/dev/null)
  else
    echo "carried cuda_gpu_check does not start here:"; ldd "$carry/cuda_gpu_check" | grep 'not found'
    results+=("| engine end to end, benchmarks | not run: carried binary does not load | |")
    status=1
  fi
  if [[ -f $carry/libllm_cuda_backend.so ]] && ldd "$carry/libllm_cuda_backend.so" | grep -q 'not found'; then
    echo "the carried CUDA backend module lacks libraries here (llmserve --backend cuda will say so):"
    ldd "$carry/libllm_cuda_backend.so" | grep 'not found'
  fi
  if [[ -x $carry/llmserve && -f $carry/model/model.gguf ]]; then
    step "llmserve --backend cuda smoke" 120 bash -c "
      set -e
      '$carry/llmserve' --backend cuda --model '$carry/model/model.gguf' --port 18123 \
        --max-model-len 512 --served-model-name smoke &
      pid=\$!
      trap 'kill \$pid 2>/dev/null' EXIT
      for i in \$(seq 100); do
        curl -sf http://127.0.0.1:18123/health >/dev/null && break
        kill -0 \$pid 2>/dev/null || exit 1
        sleep 0.3
      done
      curl -sf http://127.0.0.1:18123/v1/completions -H 'Content-Type: application/json' \
        -d '{\"model\":\"smoke\",\"prompt\":\"Hello\",\"max_tokens\":16,\"temperature\":0}'
      echo
      curl -sf http://127.0.0.1:18123/metrics | grep -E '^vllm:(generation_tokens_total|cache_config_info)'"
  fi
else
  echo "no carried binaries in $carry (run ci/gpu-check.sh --prepare on the build machine): the"
  echo "engine needs our Debian libraries, which this machine lacks, so only kernels/ was built here"
  results+=("| engine end to end, benchmarks, llmserve | not run: no carried binaries | |")
fi

{
  echo "## ci/gpu-check.sh $stamp"
  echo
  echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi'); $(nvcc --version | tail -1)"
  echo
  echo "| step | result | time |"
  echo "| --- | --- | --- |"
  printf '%s\n' "${results[@]}"
  if [[ -n $bench_table ]]; then
    echo
    echo "$bench_table"
  fi
  echo
  echo "Raw log: docs/gpu-runs/$(basename "$log")"
} >"$summary"
echo
cat "$summary"
exit $status
