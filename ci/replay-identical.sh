#!/usr/bin/env bash
# Checks that two llmsim binaries replay the same traces into byte-identical files: the summary
# table on stdout, requests.jsonl, summary.json, the OpenMetrics series, the promtool series and
# the final /metrics snapshot. Run it before and after a refactoring that must not change output:
#   git worktree add /tmp/before HEAD~1 && cmake -S /tmp/before -B /tmp/before/build -G Ninja \
#     && cmake --build /tmp/before/build --target llmsim
#   ci/replay-identical.sh /tmp/before/build/llmsim build/llmsim
# Covers the public traces in ../shared/traces (skipped with a note when the folder is absent),
# the samples in traces/, a synthetic spec, and flag variants (data parallel with each routing
# policy, fp8 KV, a squeezed KV cache with preemptions, priority scheduling, no chunked prefill,
# an overload that parks thousands of waiting requests, and an engine failing under it, the sampled
# load scaling, sorted arrivals; NEW_ARGS='--sort-in-memory 100' sorts those in runs on disk).
# Exit code 0 when every file matches, 1 otherwise (each difference is named).
# NEW_ARGS (environment) is appended to the new binary's arguments only, for a change that is
# byte-identical behind a flag: NEW_ARGS=--no-api-server ci/replay-identical.sh OLD NEW.
# IGNORE_SERIES=REGEX (an extended regex of sample names, anchored at both ends, e.g.
# 'up|http_[a-z_]+') drops those series (their samples, their families' # TYPE/# HELP/# UNIT
# lines, their input_series entries) from metrics.om and series.yml of both sides before comparing:
# for a change that adds families to the series exports and must leave every other byte alone.
set -u
old=${1:?usage: ci/replay-identical.sh OLD_LLMSIM NEW_LLMSIM}
new=${2:?usage: ci/replay-identical.sh OLD_LLMSIM NEW_LLMSIM}
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared/traces"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

runs=(
  "tiny|$root/traces/tiny.json"
  "tiny-seed|$root/traces/tiny.json --seed 7 --scheduling-policy priority"
  "azure-sample|$root/traces/azure-conv-sample.json"
  "azure-sample-squeezed|$root/traces/azure-conv-sample.json --arrival-rate-scale 50 --num-gpu-blocks-override 2000 --max-model-len 8192"
  "azure-sample-nochunk|$root/traces/azure-conv-sample.json --no-enable-chunked-prefill --no-enable-prefix-caching --max-num-seqs 64 --max-model-len 8192"
  "mooncake-sample|$root/traces/mooncake-sample.jsonl"
  "mooncake-sample-dp|$root/traces/mooncake-sample.jsonl --data-parallel-size 2 --routing-policy least-outstanding"
  "mooncake-sample-sampled|$root/traces/mooncake-sample.jsonl --arrival-rate-scale 2.5 --load-scaling sample --seed 5 --loop-to 3m"
  "azure-sample-thinned-sorted|$root/traces/azure-conv-sample.json --arrival-rate-scale 0.6 --load-scaling sample --sort-arrivals"
  "synthetic|synthetic:n=500,rate=20,arrival=gamma,cv=2 --kv-cache-dtype fp8"
  "synthetic-overload|synthetic:n=6000,rate=300 --max-num-seqs 64"
  "synthetic-overload-down|synthetic:n=6000,rate=300 --max-num-seqs 64 --data-parallel-size 2 --fault engine-down:1:5s:10s"
)
if [[ -d $shared ]]; then
  runs+=(
    "azure-code|$shared/AzureLLMInferenceTrace_code.csv"
    "azure-conv|$shared/AzureLLMInferenceTrace_conv.csv"
    "azure-conv-fp8|$shared/AzureLLMInferenceTrace_conv.csv --kv-cache-dtype fp8 --max-num-seqs 256"
    "azure-conv-sorted|$shared/AzureLLMInferenceTrace_conv.csv --sort-arrivals --start 10m"
    "mooncake|$shared/mooncake_conversation_trace.jsonl --model Llama-3.2-1B --kv-cache-dtype fp8"
    "mooncake-affinity|$shared/mooncake_conversation_trace.jsonl --model Llama-3.2-1B --data-parallel-size 4 --routing-policy prefix-affinity"
    "mooncake-rr|$shared/mooncake_conversation_trace.jsonl --model Llama-3.2-1B --data-parallel-size 4 --routing-policy round-robin"
  )
else
  echo "SKIP: $shared is absent; only the samples in traces/ are compared"
fi

failed=0
for run in "${runs[@]}"; do
  name=${run%%|*}
  run_failed=0
  read -r -a args <<<"${run#*|}"
  for side in old new; do
    bin=$old
    extra=()
    if [[ $side == new ]]; then
      bin=$new
      read -r -a extra <<<"${NEW_ARGS:-}"
    fi
    dir="$work/$side/$name"
    mkdir -p "$dir"
    if ! "$bin" replay "${args[@]}" "${extra[@]}" --no-progress --output-dir "$dir" \
      --metrics-out "$dir/metrics.om" --promtool-series "$dir/series.yml" \
      --metrics-snapshot "$dir/metrics.prom" >"$dir/stdout" 2>"$dir/stderr"; then
      echo "FAIL $name: $side llmsim exited non-zero: $(head -c 300 "$dir/stderr")"
      run_failed=1
    fi
  done
  if [[ -n ${IGNORE_SERIES:-} ]]; then
    for side in old new; do
      dir="$work/$side/$name"
      grep -Ev "^(# (TYPE|HELP|UNIT) )?(${IGNORE_SERIES})([ {]|\$)" "$dir/metrics.om" >"$dir/metrics.om.kept"
      mv "$dir/metrics.om.kept" "$dir/metrics.om"
      awk -v re="^  - series: '(${IGNORE_SERIES})[{']" \
        'skip && /^    values:/ { skip = 0; next } { skip = 0 } $0 ~ re { skip = 1; next } { print }' \
        "$dir/series.yml" >"$dir/series.yml.kept"
      mv "$dir/series.yml.kept" "$dir/series.yml"
    done
  fi
  for file in stdout stderr requests.jsonl summary.json metrics.om series.yml metrics.prom; do
    if ! cmp -s "$work/old/$name/$file" "$work/new/$name/$file"; then
      echo "FAIL $name: $file differs"
      run_failed=1
    fi
  done
  if [[ $run_failed -eq 0 ]]; then
    echo "ok   $name ($(wc -l <"$work/new/$name/requests.jsonl") sequences)"
  else
    failed=1
  fi
done
if [[ $failed -ne 0 ]]; then
  echo "replay-identical: outputs differ"
  exit 1
fi
echo "replay-identical: ${#runs[@]} replays, every file byte-identical${IGNORE_SERIES:+ (without the series ${IGNORE_SERIES})}"
