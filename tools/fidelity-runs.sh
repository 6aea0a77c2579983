#!/usr/bin/env bash
# The fidelity measurement of docs/fidelity.md (not in CI; 13-19 minutes on 2 cores with
# REAL_RUNS=2, run on a quiet machine): the 124.7M-parameter f32 model of the issue, llmserve --backend cpu on both
# cores, four profiles of it, then llmsim fidelity at three loads (30%, 60% and 90% of the
# engine's measured capacity) for two traces, every profile against the same real runs:
#   chat     prompts lognormal(200) up to 1,500 tokens, outputs lognormal(100)
#   long     prompts of 1,200-1,900 tokens past a 512-token budget (--max-num-batched-tokens 512:
#            every prompt is prefilled in 3 or 4 chunks), and a squeezed KV cache
#            (--num-gpu-blocks-override 320: 5,120 tokens, room for two or three of them) that
#            preempts
#            (their shapes and engine arguments are TRACES in tools/fidelity_series.py, which the
#            Python tools read too)
# The profiles, all measured on the chat trace's engine (the long trace is not used for any):
#   cpu      llmsim calibrate --backend cpu (in-process probes)
#   url      llmsim calibrate --url (probes from outside, timed on the client and /metrics)
#   probes   calibrate --step-log of the server's own steps while calibrate --url probed it
#   traffic  calibrate --step-log of those steps and of the server's steps under the chat trace
#            at 60% load with a seed (600) that no check uses
#   mixed    calibrate --step-log of the in-process probes' steps (calibrate --steps-out) and of
#            that chat-trace log: every batch size from the probes, the server's own costs from
#            its traffic
#   fresh    (only when named in PROFILES) calibrate --step-log of the comparison's own server's
#            steps in the half minute just before it: a burst of the trace's shape at 60% load
#            with a seed no check uses (700 + load). One profile per comparison, written as
#            OUT_DIR/fresh-profiles/TRACE-LOAD/fresh.json: it measures the model with the
#            machine's drift since calibrating taken out (docs/fidelity.md)
#   freshNN  the same with the burst at NN% load (fresh90: the batches of the highest load);
#   freshown the same with the burst at the comparison's own load. Several fresh profiles burst
#            one after the other, in the order named, each fitted to its own burst's steps, the
#            k-th (from 0) with seed 700 + load + 1000 k: a burst that repeated another's prompts
#            would find them in the prefix cache (llmbench derives prompts from the seed)
# Usage: tools/fidelity-runs.sh [BUILD_DIR] [OUT_DIR]     (defaults: build, /tmp/fidelity-runs)
# MODEL=FILE.gguf uses that model instead of writing one; PROFILES="cpu url probes traffic mixed"
# (the default) names the profiles compared, TRACES="chat long" the traces, REAL_RUNS=3 the real runs
# per comparison. A profile already in OUT_DIR is reused. The server of each trace logs its steps
# (OUT_DIR/TRACE-steps.jsonl), and each comparison prices those of its real runs with every
# profile (llmsim fidelity --server-step-log). Each comparison's tables are printed
# and written as OUT_DIR/TRACE-LOAD.json (llmsim fidelity --result-json, one table per profile);
# tools/fidelity-table.py OUT_DIR PROFILE prints one profile's as docs/fidelity.md's tables.
set -euo pipefail
build=${1:-build}
out=${2:-/tmp/fidelity-runs}
root=$(cd "$(dirname "$0")/.." && pwd)
vocab="$root/../shared/testdata/tokenizers/ggml-vocab-llama-spm.gguf"
runs=${REAL_RUNS:-3}
read -r -a profiles <<<"${PROFILES:-cpu url probes traffic mixed}"
read -r -a traces <<<"${TRACES:-chat long}"
mkdir -p "$out"
series() { python3 "$root/tools/fidelity_series.py" "$@"; }  # series engine-args|shape TRACE
chat_shape=$(series shape chat)
read -r -a chat_args <<<"$(series engine-args chat)"

model=${MODEL:-$out/m125/model.gguf}
if [[ ! -f $model ]]; then
  "$build/llmsim" make-model --arch llama --vocab "$vocab" --dim 768 --layers 12 --heads 12 \
    --kv-heads 4 --out "$out/m125"
fi

server=
stop_server() { [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; server=; }
trap stop_server EXIT
start_server() {  # start_server SERVER_ARGS...
  stop_server
  "$build/llmserve" --backend cpu --model "$model" --cpu-threads 2 "$@" --host 127.0.0.1 \
    --port 0 2>"$out/server.log" &
  server=$!
  for _ in $(seq 300); do
    port=$(grep -oE 'listening on [0-9.]+:[0-9]+' "$out/server.log" | grep -oE '[0-9]+$' || true)
    [[ -n ${port:-} ]] && return
    sleep 0.1
  done
  echo "llmserve did not start" >&2
  exit 1
}
# capacity SHAPE: completed requests/s of a closed loop of 16 streams.
capacity() {
  "$build/llmbench" "synthetic:n=32,rate=1,$1,seed=99" --base-url "http://127.0.0.1:$port" \
    --concurrency 16 --quiet --result-json "$out/capacity.json" >/dev/null
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['request_throughput'])" \
    "$out/capacity.json"
}
rate_at() { python3 -c "print(round($1 * $2 / 100, 4))"; }        # rate_at CAPACITY LOAD
requests_at() { python3 -c "print(max(24, min(60, int($1 * 90))))"; }  # about 90 s of arrivals

date
echo "== calibrate in-process"
[[ -f $out/cpu.json ]] || "$build/llmsim" calibrate --backend cpu --model "$model" --cpu-threads 2 \
  "${chat_args[@]}" --out "$out/cpu.json" --steps-out "$out/cpu-steps.jsonl"
start_server "${chat_args[@]}"
chat_cap=$(capacity "$chat_shape")
echo "== chat: capacity $chat_cap requests/s"
if [[ ! -f $out/url.json || ! -f $out/probes.json ]]; then
  echo "== calibrate --url, the server logging its steps"
  start_server "${chat_args[@]}" --step-log "$out/probe-steps.jsonl"
  "$build/llmsim" calibrate --url "http://127.0.0.1:$port" --max-num-seqs 16 --out "$out/url.json"
  stop_server
  "$build/llmsim" calibrate --step-log "$out/probe-steps.jsonl" --facts "$out/cpu.json" \
    --out "$out/probes.json"
fi
if [[ ! -f $out/traffic.json ]]; then
  echo "== the chat trace at 60% (seed 600), the server logging its steps"
  rate=$(rate_at "$chat_cap" 60)
  start_server "${chat_args[@]}" --step-log "$out/traffic-steps.jsonl"
  "$build/llmbench" "synthetic:n=$(requests_at "$rate"),rate=$rate,$chat_shape,seed=600" \
    --base-url "http://127.0.0.1:$port" --quiet >/dev/null
  stop_server
  "$build/llmsim" calibrate --step-log "$out/probe-steps.jsonl,$out/traffic-steps.jsonl" \
    --facts "$out/cpu.json" --out "$out/traffic.json"
fi
if [[ ! -f $out/mixed.json && -f $out/cpu-steps.jsonl ]]; then
  echo "== the in-process probes' steps with the chat trace's log"
  "$build/llmsim" calibrate --step-log "$out/cpu-steps.jsonl,$out/traffic-steps.jsonl" \
    --facts "$out/cpu.json" --out "$out/mixed.json"
fi
fresh=()
stored=()
for p in "${profiles[@]}"; do
  if [[ $p =~ ^fresh([0-9]+|own)?$ ]]; then fresh+=("$p"); else stored+=("$p"); fi
done
list=
((${#stored[@]})) && list=$(printf "$out/%s.json," "${stored[@]}") && list=${list%,}
burst_at() { python3 -c "print(max(12, int($1 * 30)))"; }  # about 30 s of arrivals

for trace in "${traces[@]}"; do
  shape=$(series shape "$trace")
  read -r -a args <<<"$(series engine-args "$trace")"
  start_server "${args[@]}" --step-log "$out/$trace-steps.jsonl"
  cap=$(capacity "$shape")
  echo "== $trace: capacity $cap requests/s"
  for load in 30 60 90; do
    rate=$(rate_at "$cap" "$load")
    n=$(requests_at "$rate")
    spec="synthetic:n=$n,rate=$rate,$shape,seed=$load"
    echo "== $trace at $load% ($rate requests/s, $n requests)"; date
    profile_list=$list
    for i in "${!fresh[@]}"; do
      name=${fresh[$i]}
      case $name in
        fresh) burst_load=60 ;;
        freshown) burst_load=$load ;;
        *) burst_load=${name#fresh} ;;
      esac
      dir="$out/fresh-profiles/$trace-$load"
      mkdir -p "$dir"
      burst_rate=$(rate_at "$cap" "$burst_load")
      logged=$(wc -l <"$out/$trace-steps.jsonl")
      "$build/llmbench" \
        "synthetic:n=$(burst_at "$burst_rate"),rate=$burst_rate,$shape,seed=$((700 + load + 1000 * i))" \
        --base-url "http://127.0.0.1:$port" --quiet >/dev/null
      tail -n +"$((logged + 1))" "$out/$trace-steps.jsonl" >"$dir/$name-steps.jsonl"
      "$build/llmsim" calibrate --step-log "$dir/$name-steps.jsonl" --facts "$out/cpu.json" \
        --out "$dir/$name.json" >"$dir/$name-calibrate.txt"
      profile_list=${profile_list:+$profile_list,}$dir/$name.json
    done
    "$build/llmsim" fidelity "$spec" --url "http://127.0.0.1:$port" --profile "$profile_list" \
      "${args[@]}" --real-runs "$runs" --result-json "$out/$trace-$load.json" \
      --server-step-log "$out/$trace-steps.jsonl"
  done
done
date
