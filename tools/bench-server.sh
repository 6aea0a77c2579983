#!/usr/bin/env bash
# Server throughput benchmarks of issue 4 (docs/benchmarks.md, "llmserve (issue 4)"): llmserve on
# the sim backend with zero step cost, llmbench on the same machine. Not run in CI.
#   1. non-streaming completions per second, max_tokens 16 (best of a concurrency sweep)
#   2. streamed tokens per second (best of a concurrency sweep)
#   3. --enable-per-request-metrics on vs off at 256 concurrent streams (alternating runs, medians)
# Usage: tools/bench-server.sh [BUILD_DIR]   (default build/; needs llmserve and llmbench built there)
# Environment: GOALS (default 123), RUNS (goal 3 runs per setting, default 5), N1 / N2 / N3
# (requests per run).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
goals=${GOALS:-123}
runs=${RUNS:-5}
n1=${N1:-60000}
n2=${N2:-6000}
n3=${N3:-6000}
for exe in llmserve llmbench; do
  [[ -x $build/$exe ]] || { echo "bench-server: $build/$exe is not built" >&2; exit 2; }
done
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# start_server NAME [FLAGS...]: starts llmserve on a free port; sets $port.
start_server() {
  local name=$1
  shift
  "$build/llmserve" --host 127.0.0.1 --port 0 --step-time-scale 0 --max-num-seqs 1024 \
    --max-num-batched-tokens 65536 "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's/^llmserve: listening on .*:\([0-9]*\)$/\1/p' "$work/$name.log")
    [[ -n $port ]] && return 0
    sleep 0.1
  done
  echo "bench-server: llmserve did not start:" >&2
  cat "$work/$name.log" >&2
  exit 1
}

# bench PORT OUT.json LLMBENCH-ARGS...: one llmbench run; prints nothing.
bench() {
  local p=$1 out=$2
  shift 2
  "$build/llmbench" "$@" --base-url "http://127.0.0.1:$p" --quiet --result-json "$out" >/dev/null
}

# field FILE KEY
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

start_server plain
plain=$port

if [[ $goals == *1* ]]; then
echo "== 1. non-streaming completions/s, max_tokens 16 (goal >= 10000)"
best1=0
for c in 32 64 128 256; do
  bench "$plain" "$work/g1.json" "synthetic:n=$n1,rate=1e9,prompt=fixed:32,output=fixed:16" \
    --no-stream --concurrency "$c" --num-requests "$n1"
  r=$(field "$work/g1.json" request_throughput)
  printf '  concurrency %4d: %9.0f req/s (failed %s)\n' "$c" "$r" "$(field "$work/g1.json" failed)"
  best1=$(python3 -c "print(max($best1, $r))")
done
printf '  best: %.0f req/s -> %s\n' "$best1" "$(python3 -c "print('PASS' if $best1 >= 10000 else 'FAIL')")"
fi

if [[ $goals == *2* ]]; then
echo "== 2. streamed tokens/s, 256 output tokens per request (goal >= 200000)"
best2=0
for c in 64 256 512; do
  bench "$plain" "$work/g2.json" "synthetic:n=$n2,rate=1e9,prompt=fixed:32,output=fixed:256" \
    --concurrency "$c" --num-requests "$n2"
  r=$(field "$work/g2.json" output_throughput)
  printf '  concurrency %4d: %9.0f tok/s (failed %s)\n' "$c" "$r" "$(field "$work/g2.json" failed)"
  best2=$(python3 -c "print(max($best2, $r))")
done
printf '  best: %.0f tok/s -> %s\n' "$best2" "$(python3 -c "print('PASS' if $best2 >= 200000 else 'FAIL')")"
fi

[[ $goals == *3* ]] || exit 0
echo "== 3. per-request metrics on vs off, 256 concurrent streams (goal: cost <= 2%)"
start_server plain3
plain=$port
plain_pid=${pids[-1]}
start_server metrics --enable-per-request-metrics
metrics=$port
metrics_pid=${pids[-1]}
# cpu_ticks PID: the server's user + system CPU time so far, in clock ticks (/proc/PID/stat).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
off=()
on=()
off_cpu=()
on_cpu=()
for i in $(seq "$runs"); do
  # Alternate which goes first so that drift (thermal, page cache, neighbours) hits both.
  order=("$plain" "$metrics")
  ((i % 2 == 0)) && order=("$metrics" "$plain")
  for p in "${order[@]}"; do
    pid=$plain_pid
    [[ $p == "$metrics" ]] && pid=$metrics_pid
    before=$(cpu_ticks "$pid")
    bench "$p" "$work/g3.json" "synthetic:n=$n3,rate=1e9,prompt=fixed:32,output=fixed:256" \
      --concurrency 256 --num-requests "$n3"
    ticks=$(($(cpu_ticks "$pid") - before))
    r=$(field "$work/g3.json" output_throughput)
    tokens=$(field "$work/g3.json" total_output_tokens)
    # Server CPU microseconds per streamed token: what the server pays, whatever the client and
    # the neighbours do to the wall clock.
    us=$(python3 -c "print($ticks * 1e6 / $(getconf CLK_TCK) / $tokens)")
    if [[ $p == "$plain" ]]; then off+=("$r"); off_cpu+=("$us"); else on+=("$r"); on_cpu+=("$us"); fi
  done
done
python3 - "${off[*]}" "${on[*]}" "${off_cpu[*]}" "${on_cpu[*]}" <<'EOF'
import statistics, sys
off, on, off_cpu, on_cpu = ([float(x) for x in a.split()] for a in sys.argv[1:5])
for name, xs in (("off", off), ("on", on)):
    print(f"  metrics {name:3}: median {statistics.median(xs):9.0f} tok/s, "
          f"min {min(xs):9.0f}, max {max(xs):9.0f}  ({' '.join(f'{x:.0f}' for x in xs)})")
for name, xs in (("off", off_cpu), ("on", on_cpu)):
    print(f"  metrics {name:3}: median {statistics.median(xs):6.3f} server CPU us/token "
          f"({' '.join(f'{x:.3f}' for x in xs)})")
cost = 100 * (1 - statistics.median(on) / statistics.median(off))
cpu_cost = 100 * (statistics.median(on_cpu) / statistics.median(off_cpu) - 1)
print(f"  cost of metrics: {cost:+.1f}% of the median throughput, {cpu_cost:+.1f}% server CPU "
      f"per token -> {'PASS' if cpu_cost <= 2 else 'FAIL'} (judged on CPU per token)")
EOF
