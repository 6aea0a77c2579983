#!/usr/bin/env bash
# Server CPU per request with tracing off and on (to a local OTLP/HTTP sink that answers 200),
# 256 concurrent streams of 256 tokens on the sim backend with zero step cost, alternating runs:
# the end-to-end counterpart of bench/tracing_bench.cpp (docs/tracing.md, "Cost"). Not run in CI.
# It also prints the exporter thread's share of the traced server's CPU (the exporter's own work,
# measured where it runs; less noisy than the difference of two servers on a loaded machine).
# Usage: bench/tracing_server_cpu.sh [BUILD_DIR]   (needs llmserve and llmbench built there)
# Environment: RUNS (per setting, default 3), N (requests per run, default 3000).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${RUNS:-3}
n=${N:-3000}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

/usr/bin/python3 - "$work/sink.port" <<'PY' &
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
open(sys.argv[1], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
pids+=($!)
for _ in $(seq 100); do [[ -s $work/sink.port ]] && break; sleep 0.1; done
sink=$(cat "$work/sink.port")

# start NAME [FLAGS...]: llmserve on a free port; sets $port and $pid.
start() {
  local name=$1
  shift
  "$build/llmserve" --host 127.0.0.1 --port 0 --step-time-scale 0 --max-num-seqs 1024 \
    --max-num-batched-tokens 65536 "$@" >"$work/$name.log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do
    port=$(sed -n 's/^llmserve: listening on .*:\([0-9]*\)$/\1/p' "$work/$name.log")
    [[ -n $port ]] && return 0
    sleep 0.1
  done
  cat "$work/$name.log" >&2
  exit 1
}
start off
off_port=$port off_pid=$pid
start on --otlp-traces-endpoint "http://127.0.0.1:$sink"
on_port=$port on_pid=$pid

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
off=() on=()
for i in $(seq "$runs"); do
  order=(off on)
  ((i % 2 == 0)) && order=(on off)
  for which in "${order[@]}"; do
    if [[ $which == off ]]; then p=$off_port pid=$off_pid; else p=$on_port pid=$on_pid; fi
    before=$(ticks "$pid")
    "$build/llmbench" "synthetic:n=$n,rate=1e9,prompt=fixed:32,output=fixed:256" \
      --concurrency 256 --num-requests "$n" --base-url "http://127.0.0.1:$p" --quiet \
      --result-json "$work/r.json" >/dev/null
    us=$(/usr/bin/python3 -c "print(($(ticks "$pid") - $before) * 1e6 / $(getconf CLK_TCK) / $n)")
    if [[ $which == off ]]; then off+=("$us"); else on+=("$us"); fi
  done
done
sleep 6  # one OTEL_BSP_SCHEDULE_DELAY: the last batch goes out
dropped=$(curl -s "http://127.0.0.1:$on_port/metrics" | sed -n 's/^llmserve:otlp_spans_dropped_total //p')
# The exporter thread's share of the traced server's CPU (the thread is named otlp-exporter).
exporter=0 all=0
for task in /proc/"$on_pid"/task/*; do
  t=$(awk '{print $14 + $15}' "$task/stat")
  all=$((all + t))
  [[ $(cat "$task/comm") == otlp-exporter ]] && exporter=$((exporter + t))
done
echo "  exporter thread: $exporter of $all CPU ticks of the traced server" \
  "($(/usr/bin/python3 -c "print(f'{100 * $exporter / max($all, 1):.2f}')")%)"
/usr/bin/python3 - "${off[*]}" "${on[*]}" "$dropped" <<'PY'
import statistics, sys
off, on = ([float(x) for x in a.split()] for a in sys.argv[1:3])
for name, xs in (("off", off), ("on", on)):
    print(f"  tracing {name:3}: median {statistics.median(xs):6.0f} us server CPU per request "
          f"({' '.join(f'{x:.0f}' for x in xs)})")
print(f"  on/off: {100 * (statistics.median(on) / statistics.median(off) - 1):+.1f}%; "
      f"spans dropped: {sys.argv[3]}")
PY
