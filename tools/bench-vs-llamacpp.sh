#!/usr/bin/env bash
# Side by side with llama.cpp on this machine (issue 15; not part of CI: it takes a long time).
#
#   tools/bench-vs-llamacpp.sh [BUILD_DIR]      # BUILD_DIR holds llmsim, llmserve, llmbench, llm_bench
#
# 1. fetch:  `npm pack node-llama-cpp` (the package bundles llama.cpp's source as a git bundle at
#            package/llama/gitRelease.bundle; npm pack runs no install scripts), clone the bundle.
# 2. build:  llama.cpp's CPU tools (-DGGML_NATIVE=ON): llama-bench, llama-batched-bench,
#            llama-server only.
# 3. model:  the issue's 124.7M f32 model, written by `llmsim make-model` (llama-spm vocabulary,
#            dim 768, 12 layers, 12/4 heads, untied output, seed 1); both engines load this file.
# 4. llama:  llama-bench pp512 and tg64, llama-batched-bench 16 streams x 128 tokens, llama-server
#            driven by llmbench (16 concurrent streams x 128 tokens).
# 5. ours:   llm_bench BM_Prefill/512, BM_Decode/1 and /16 on the same file ($LLM_BENCH_MODEL),
#            and llmserve --backend cpu driven by the same llmbench command.
# 6. table:  figure, llama.cpp, ours, ratio, the issue's goal.
#
# Everything runs with THREADS (default 2) threads. Work files (the llama.cpp clone and build, the
# model, every tool's output) go to WORK (default /tmp/bench-vs-llamacpp) and are reused by the
# next run; nothing of llama.cpp is written into the repository. STAGES (default
# "fetch build model llama ours table") picks stages, e.g. STAGES="model ours table".
# RUNS (default 2) repeats each measurement, the engines taking turns; the table shows the median
# of the runs.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
WORK=${WORK:-/tmp/bench-vs-llamacpp}
THREADS=${THREADS:-2}
RUNS=${RUNS:-2}
STAGES=${STAGES:-"fetch build model llama ours table"}
PORT_LLAMA=${PORT_LLAMA:-18431}
PORT_OURS=${PORT_OURS:-18432}
VOCAB=${VOCAB:-$ROOT/../shared/testdata/tokenizers/ggml-vocab-llama-spm.gguf}
MODEL=$WORK/model/model.gguf
OUT=$WORK/out
LLAMA_SRC=$WORK/llama.cpp
LLAMA_BUILD=$WORK/llama-build
PY=/usr/bin/python3

mkdir -p "$WORK" "$OUT"
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
say() { echo "bench-vs-llamacpp: $*" >&2; }
die() { say "$*"; exit 1; }

for tool in llmsim llmserve llmbench llm_bench; do
  [[ -x $BUILD/$tool ]] || die "$BUILD/$tool is missing (build it: ninja -C $BUILD $tool)"
done

if has_stage fetch; then
  if [[ ! -d $LLAMA_SRC/.git ]]; then
    command -v npm >/dev/null || die "npm is needed to fetch llama.cpp (apt-get install npm)"
    rm -rf "$WORK/npm" && mkdir -p "$WORK/npm"
    (cd "$WORK/npm" && npm pack node-llama-cpp --silent >/dev/null)
    tgz=$(ls "$WORK"/npm/node-llama-cpp-*.tgz)
    tar -xzf "$tgz" -C "$WORK/npm" package/llama/gitRelease.bundle
    git -c advice.detachedHead=false clone --quiet "$WORK/npm/package/llama/gitRelease.bundle" "$LLAMA_SRC"
    say "llama.cpp $(git -C "$LLAMA_SRC" describe --tags --always) from $(basename "$tgz")"
  fi
fi

if has_stage build; then
  [[ -d $LLAMA_SRC ]] || die "no llama.cpp source at $LLAMA_SRC (run the fetch stage)"
  if [[ ! -f $LLAMA_BUILD/build.ninja ]]; then
    cmake -S "$LLAMA_SRC" -B "$LLAMA_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DGGML_CUDA=OFF \
      -DGGML_VULKAN=OFF -DGGML_METAL=OFF >"$OUT/llama-cmake.log" 2>&1 ||
      die "llama.cpp configure failed: $OUT/llama-cmake.log"
  fi
  ninja -C "$LLAMA_BUILD" -j"${BUILD_JOBS:-2}" llama-bench llama-batched-bench llama-server \
    >"$OUT/llama-build.log" 2>&1 || die "llama.cpp build failed: $OUT/llama-build.log"
fi
LLAMA_BIN=$LLAMA_BUILD/bin

if has_stage model; then
  if [[ ! -f $MODEL ]]; then
    "$BUILD/llmsim" make-model --arch llama --vocab "$VOCAB" --dim 768 --layers 12 --heads 12 \
      --kv-heads 4 --seed 1 --out "$WORK/model" >"$OUT/make-model.log"
  fi
fi

# The same client for both servers: 16 closed-loop streams, 32 requests of 128 output tokens
# after a 32-token prompt (ignore_eos, so every request asks for exactly 128 tokens).
run_llmbench() {  # PORT RESULT_JSON
  "$BUILD/llmbench" 'synthetic:n=32,rate=1e9,prompt=fixed:32,output=fixed:128' \
    --base-url "http://127.0.0.1:$1" --concurrency 16 --num-requests 32 --timeout 600 \
    --result-json "$2" >"$2.txt" 2>&1 || true
}

wait_ready() {  # PORT PID
  for _ in $(seq 1 600); do
    kill -0 "$2" 2>/dev/null || return 1
    curl -sf "http://127.0.0.1:$1/health" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

SERVER_PID=
stop_server() {
  if [[ -n $SERVER_PID ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
}
trap stop_server EXIT

llama_run() {  # RUN
  local run=$1
  [[ -x $LLAMA_BIN/llama-bench ]] || die "llama.cpp tools missing in $LLAMA_BIN (build stage)"
  "$LLAMA_BIN/llama-bench" -m "$MODEL" -t "$THREADS" -p 512 -n 64 -r 3 -o json \
    >"$OUT/llama-bench.$run.json" 2>"$OUT/llama-bench.$run.log"
  "$LLAMA_BIN/llama-batched-bench" -m "$MODEL" -t "$THREADS" -c 4608 -b 2048 -ub 512 \
    -npp 128 -ntg 128 -npl 16 >"$OUT/llama-batched.$run.txt" 2>&1
  "$LLAMA_BIN/llama-server" -m "$MODEL" -t "$THREADS" -np 16 -c 8192 --port "$PORT_LLAMA" \
    --host 127.0.0.1 >"$OUT/llama-server.$run.log" 2>&1 &
  SERVER_PID=$!
  wait_ready "$PORT_LLAMA" "$SERVER_PID" || die "llama-server did not start: $OUT/llama-server.$run.log"
  run_llmbench "$PORT_LLAMA" "$OUT/llama-llmbench.$run.json"
  stop_server
}

ours_run() {  # RUN
  local run=$1
  LLM_BENCH_MODEL=$MODEL "$BUILD/llm_bench" --benchmark_filter='BM_Decode/|BM_Prefill/512' \
    --benchmark_format=json >"$OUT/ours-bench.$run.json" 2>"$OUT/ours-bench.$run.log"
  "$BUILD/llmserve" --backend cpu --model "$MODEL" --cpu-threads "$THREADS" \
    --max-num-seqs 16 --num-gpu-blocks-override 2048 --host 127.0.0.1 --port "$PORT_OURS" \
    >"$OUT/llmserve.$run.log" 2>&1 &
  SERVER_PID=$!
  wait_ready "$PORT_OURS" "$SERVER_PID" || die "llmserve did not start: $OUT/llmserve.$run.log"
  run_llmbench "$PORT_OURS" "$OUT/ours-llmbench.$run.json"
  stop_server
}

# The two engines take turns, run by run, so that both see the same background load.
for run in $(seq 1 "$RUNS"); do
  if has_stage llama; then llama_run "$run"; fi
  if has_stage ours; then ours_run "$run"; fi
done

if has_stage table; then
  "$PY" "$ROOT/tools/bench-vs-llamacpp-table.py" "$OUT" "$RUNS"
fi
