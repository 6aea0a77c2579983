#!/usr/bin/env bash
# The fidelity measurement of docs/fidelity.md (not in CI; about 70 minutes on 2 cores, run on a
# quiet machine): the 124.7M-parameter f32 model of the issue, llmserve --backend cpu on both
# cores, the profile from llmsim calibrate (in-process, and from outside with --url), then llmsim
# fidelity at three loads (30%, 60% and 90% of the engine's measured capacity) for two traces:
#   chat     prompts lognormal(200) up to 1,500 tokens, outputs lognormal(100)
#   long     prompts of 1,200-1,900 tokens past a 512-token budget (--max-num-batched-tokens 512:
#            every prompt is prefilled in 3 or 4 chunks), and a squeezed KV cache
#            (--num-gpu-blocks-override 320: 5,120 tokens, room for two or three of them) that
#            preempts
# Usage: ci/fidelity-runs.sh [BUILD_DIR] [OUT_DIR]     (defaults: build, /tmp/fidelity-runs)
# Each run's table is printed and written as OUT_DIR/TRACE-LOAD-PROFILE.json (llmsim fidelity
# --result-json); ci/fidelity-table.py OUT_DIR [PROFILE] prints them as docs/fidelity.md's tables.
# The profiles are OUT_DIR/cpu.json (in-process) and OUT_DIR/url.json (from outside, against the
# server of the chat trace); a profile already in OUT_DIR is reused. PROFILES="cpu url" (the
# default) names the profiles compared at every load, TRACES="chat long" the traces, REAL_RUNS=2
# the real runs per comparison.
set -euo pipefail
build=${1:-build}
out=${2:-/tmp/fidelity-runs}
root=$(cd "$(dirname "$0")/.." && pwd)
vocab="$root/../shared/testdata/tokenizers/ggml-vocab-llama-spm.gguf"
runs=${REAL_RUNS:-2}
read -r -a profiles <<<"${PROFILES:-cpu url}"
read -r -a traces <<<"${TRACES:-chat long}"
mkdir -p "$out"
engine=(--max-num-seqs 16 --num-gpu-blocks-override 2048)

model="$out/m125/model.gguf"
if [[ ! -f $model ]]; then
  "$build/llmsim" make-model --arch llama --vocab "$vocab" --dim 768 --layers 12 --heads 12 \
    --kv-heads 4 --out "$out/m125"
fi

server=
stop_server() { [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; server=; }
trap stop_server EXIT
start_server() {  # start_server ENGINE_ARGS...
  stop_server
  "$build/llmserve" --backend cpu --model "$model" --cpu-threads 2 "$@" --host 127.0.0.1 \
    --port 0 2>"$out/server.log" &
  server=$!
  for _ in $(seq 200); do
    port=$(grep -oE 'listening on [0-9.]+:[0-9]+' "$out/server.log" | grep -oE '[0-9]+$' || true)
    [[ -n ${port:-} ]] && return
    sleep 0.1
  done
  echo "llmserve did not start" >&2
  exit 1
}

echo "== calibrate in-process"
[[ -f $out/cpu.json ]] || "$build/llmsim" calibrate --backend cpu --model "$model" --cpu-threads 2 "${engine[@]}" \
  --out "$out/cpu.json"
start_server "${engine[@]}"
echo "== calibrate --url"
[[ -f $out/url.json ]] || "$build/llmsim" calibrate --url "http://127.0.0.1:$port" --max-num-seqs 16 --out "$out/url.json"

# capacity TRACE_SPEC ENGINE_ARGS...: completed requests/s of a closed loop of 16 streams.
capacity() {
  local spec=$1
  "$build/llmbench" "$spec" --base-url "http://127.0.0.1:$port" --concurrency 16 --quiet \
    --result-json "$out/capacity.json" >/dev/null
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['request_throughput'])" \
    "$out/capacity.json"
}

for trace in "${traces[@]}"; do
  case $trace in
    chat)
      shape="prompt=lognormal:200:0.8:16:1500,output=lognormal:100:0.6:8:400"
      args=("${engine[@]}")
      ;;
    long)
      shape="prompt=uniform:1200:1900,output=lognormal:60:0.5:8:200"
      args=(--max-num-seqs 16 --max-num-batched-tokens 512 --num-gpu-blocks-override 320)
      ;;
  esac
  start_server "${args[@]}"
  cap=$(capacity "synthetic:n=32,rate=1,$shape,seed=99")
  echo "== $trace: capacity $cap requests/s"
  for load in 30 60 90; do
    rate=$(python3 -c "print(round($cap * $load / 100, 4))")
    n=$(python3 -c "print(max(24, min(60, int($rate * 90))))")  # about 90 s of arrivals
    spec="synthetic:n=$n,rate=$rate,$shape,seed=$load"
    echo "== $trace at $load% ($rate requests/s, $n requests)"
    for profile in "${profiles[@]}"; do
      "$build/llmsim" fidelity "$spec" --url "http://127.0.0.1:$port" --profile "$out/$profile.json" \
        "${args[@]}" --real-runs "$runs" --result-json "$out/$trace-$load-$profile.json"
    done
  done
done
