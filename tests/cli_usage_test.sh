#!/usr/bin/env bash
# Every program's command line through the shared flag layer (core/flag_set.h): --help prints the
# usage and exits 0; an unknown flag, a missing value, a value on a switch and a bad number each
# exit 2 with the one wording, naming the program and the flag.
# Usage: tests/cli_usage_test.sh BUILD_DIR
set -u
build=${1:?usage: cli_usage_test.sh BUILD_DIR}
passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# program (binary and sub-command) | name it prints | a flag taking a value | a switch | an integer flag
table=(
  "llmserve|llmserve|--host|--disable-log-stats|--port"
  "llmbench|llmbench|--endpoint|--quiet|--concurrency"
  "llmbench fake-server|llmbench fake-server|--chunks||--threads"
  "llmsim replay|llmsim replay|--output-dir|--quiet|--max-num-seqs"
  "llmsim tokenize|llmsim tokenize|--tokenizer|--parse-special|"
  "llmsim make-model|llmsim make-model|--vocab|--tied|--dim"
  "llmsim calibrate|llmsim calibrate|--out|--quick|--repeats"
  "llmsim fidelity|llmsim fidelity|--url|--enable-prefix-caching|--real-runs"
  "llmsim dst|llmsim dst|--start|--verbose|--seeds"
  "llmsim alerts|llmsim alerts|--rules|--fail-on-fire|--max-num-seqs"
  "llmsim sweep|llmsim sweep|--out|--quiet|--jobs"
  "llmsim sweep-merge|llmsim sweep-merge|--out|--quiet|--shards"
  "llmsim capacity-merge|llmsim capacity-merge|--report||--shards"
  "llmsim capacity|llmsim capacity|--result-json|--enable-prefix-caching|--max-engines"
)

# --version's string (core/build_info.h): VERSION+gCOMMIT.cuda|nocuda, or +unknown without git.
version_re='[0-9]+\.[0-9]+\.[0-9]+\+(g[0-9a-f]+|unknown)\.(cuda|nocuda)'

# expect NAME WANT_RC WANT_STREAM PATTERN COMMAND...: exit code and a fixed-string line on a stream.
expect() {
  local name=$1 want_rc=$2 stream=$3 pattern=$4
  shift 4
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  local file="$work/out"
  [[ $stream == err ]] && file="$work/err"
  if [[ $rc -ne $want_rc ]]; then
    failed=$((failed + 1))
    echo "FAIL $name: exit code $rc, want $want_rc ($(head -c 200 "$work/err"))"
  elif ! grep -qxF -- "$pattern" "$file"; then
    failed=$((failed + 1))
    echo "FAIL $name: no line '$pattern' in std$stream: $(head -c 300 "$file")"
  else
    passed=$((passed + 1))
  fi
}

for row in "${table[@]}"; do
  IFS='|' read -r program printed value_flag switch_flag int_flag <<<"$row"
  read -r -a cmd <<<"$program"
  cmd[0]="$build/${cmd[0]}"
  "${cmd[@]}" --help >"$work/help" 2>&1
  if [[ $? -eq 0 ]] && head -1 "$work/help" | grep -q "^usage: $printed"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $program --help: $(head -c 200 "$work/help")"
  fi
  expect "$program unknown flag" 2 err "$printed: unknown flag --no-such-flag (see $printed --help)" \
    "${cmd[@]}" --no-such-flag
  expect "$program missing value" 2 err "$printed: $value_flag: missing value" "${cmd[@]}" "$value_flag"
  if [[ -n $switch_flag ]]; then
    expect "$program switch value" 2 err "$printed: $switch_flag: takes no value" \
      "${cmd[@]}" "$switch_flag=1"
  fi
  if [[ -n $int_flag ]]; then
    expect "$program bad integer" 2 err "$printed: $int_flag: expected an integer, got 'many'" \
      "${cmd[@]}" "$int_flag" many
  fi
  # A typo of a known flag (one letter too many) names the flag meant.
  expect "$program flag typo" 2 err \
    "$printed: unknown flag ${value_flag}x: did you mean $value_flag? (see $printed --help)" \
    "${cmd[@]}" "${value_flag}x"
  # --version: the binary's name, then the one version string of GET /version.
  "${cmd[@]}" --version >"$work/version" 2>&1
  if [[ $? -eq 0 ]] && grep -qxE "${program%% *} $version_re \(commit ([0-9a-f]+|unknown), (CUDA built in|without CUDA)\)" \
    "$work/version"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $program --version: $(head -c 200 "$work/version")"
  fi
done
expect "llmsim without a command" 2 out "usage: llmsim COMMAND [args]" "$build/llmsim"
expect "llmsim command typo" 2 err "llmsim: unknown command 'relpay'; did you mean 'replay'?" \
  "$build/llmsim" relpay
expect "llmsim --version" 0 out "$("$build/llmsim" replay --version)" "$build/llmsim" --version

# An output file that cannot be created fails before the work, with core/pending_file.h's one
# message naming the flag and the path, and leaves nothing behind.
root=$(cd "$(dirname "$0")/.." && pwd)
nodir="$work/no-such-dir"
expect "llmbench --result-json in a missing directory" 2 err \
  "llmbench: --result-json: cannot write $nodir/r.json: No such file or directory" \
  "$build/llmbench" "$root/traces/tiny.json" --base-url http://127.0.0.1:1 --result-json "$nodir/r.json"
expect "llmsim alerts --timeline-json in a missing directory" 2 err \
  "llmsim alerts: --timeline-json: cannot write $nodir/t.json: No such file or directory" \
  "$build/llmsim" alerts "$root/traces/tiny.json" --rules "$root/monitoring/prometheus-rules.yml" \
  --timeline-json "$nodir/t.json"
expect "llmsim replay --report in a missing directory" 2 err \
  "llmsim replay: --report: cannot write $nodir/r.html: No such file or directory" \
  "$build/llmsim" replay "$root/traces/tiny.json" --report "$nodir/r.html"
if [[ -e $nodir ]]; then
  failed=$((failed + 1))
  echo "FAIL: a failed output left $nodir behind"
fi
expect "llmsim unknown command" 2 err "llmsim: unknown command 'bogus'" "$build/llmsim" bogus

# --gpu and --model list their presets in --help: the very names an unknown preset's error lists.
for program in "llmserve --port 0" "llmsim replay $root/traces/tiny.json --output-dir $work/x"; do
  read -r -a cmd <<<"$program"
  cmd[0]="$build/${cmd[0]}"
  for flag in --gpu --model; do
    "${cmd[@]}" --help >"$work/help" 2>&1
    "${cmd[@]}" "$flag" no-such-preset >/dev/null 2>"$work/preset.err"
    if python3 - "$flag" "$work/help" "$work/preset.err" <<'PY'; then
import re, sys
flag, help_text, error = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
lines = help_text.splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("  " + flag + " "))
# The flag's description may go on over several lines before its "presets:" line.
start = next(i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("presets:")) - 1
listed = []
for line in lines[start + 1:]:
    if not line.startswith(" " * 35):
        break
    listed += [n for n in line.replace("presets:", "").replace(",", " ").split()]
known = re.search(r"\(known: (.*); or a path", error).group(1).split(", ")
assert listed and listed == known, (listed, known)
PY
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "FAIL ${cmd[0]} --help: the presets of $flag are not those its error lists"
    fi
  done
done

# llmserve as scripts run it: `llmserve MODEL` (vLLM's positional model) on --port 0, the port read
# from --port-file, GET /version the string --version prints, vLLM's stats line on stderr every
# --log-stats-interval while there is traffic and none with --disable-log-stats, stdout empty.
# start_server NAME ARGS...: starts llmserve in the background; waits for its --port-file.
start_server() {
  local name=$1
  shift
  rm -f "$work/$name.port"
  "$build/llmserve" "$@" --port 0 --port-file "$work/$name.port" --step-time-scale 0 \
    >"$work/$name.out" 2>"$work/$name.err" &
  server_pid=$!
  for _ in $(seq 100); do
    [[ -s $work/$name.port ]] && break
    sleep 0.1
  done
  port=$(head -1 "$work/$name.port" 2>/dev/null)
}
# traffic PORT: a few completions, every one of them answered.
traffic() {
  local i
  for i in 1 2 3 4; do
    curl -sf "http://127.0.0.1:$1/v1/completions" -H 'Content-Type: application/json' \
      -d '{"prompt": "hello there", "max_tokens": 16}' >/dev/null || return 1
  done
}
stats_re='llmserve: Engine 000: Avg prompt throughput: [0-9]+\.[0-9] tokens/s, Avg generation '
stats_re+='throughput: [0-9]+\.[0-9] tokens/s, Running: [0-9]+ reqs, Waiting: [0-9]+ reqs, GPU KV cache '
stats_re+='usage: [0-9]+\.[0-9]%, Prefix cache hit rate: [0-9]+\.[0-9]%'
start_server stats Llama-3.2-1B --log-stats-interval 0.2
if [[ -n $port ]] && traffic "$port"; then
  sleep 0.6
  [[ $(curl -sf "http://127.0.0.1:$port/version") == "{\"version\":\"$("$build/llmserve" --version | cut -d' ' -f2)\"}" ]] \
    && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL: GET /version is not --version's string"; }
  curl -sf "http://127.0.0.1:$port/v1/models" | grep -q '"id":"Llama-3.2-1B"' \
    && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL: llmserve MODEL does not serve MODEL"; }
  kill -TERM "$server_pid"
  wait "$server_pid"
  grep -qE "^llmserve: listening on 0\.0\.0\.0:$port\$" "$work/stats.err" \
    && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL: no 'listening on' line"; }
  # A busy interval: some generation throughput (the idle intervals before print nothing).
  grep -E "^$stats_re\$" "$work/stats.err" | grep -qv "Avg generation throughput: 0\.0 tokens/s" \
    && passed=$((passed + 1)) \
    || { failed=$((failed + 1)); echo "FAIL: no stats line with traffic: $(head -c 600 "$work/stats.err")"; }
  [[ ! -s $work/stats.out ]] && passed=$((passed + 1)) \
    || { failed=$((failed + 1)); echo "FAIL: llmserve wrote to stdout: $(head -c 200 "$work/stats.out")"; }
else
  failed=$((failed + 1))
  echo "FAIL: llmserve did not start or serve: $(head -c 300 "$work/stats.err")"
  kill "$server_pid" 2>/dev/null
fi
start_server quiet --disable-log-stats --log-stats-interval 0.2
if [[ -n $port ]] && traffic "$port"; then
  sleep 0.6
  kill -TERM "$server_pid"
  wait "$server_pid"
  ! grep -q "Avg prompt throughput" "$work/quiet.err" && passed=$((passed + 1)) \
    || { failed=$((failed + 1)); echo "FAIL: stats lines with --disable-log-stats"; }
else
  failed=$((failed + 1))
  echo "FAIL: llmserve --disable-log-stats did not start or serve: $(head -c 300 "$work/quiet.err")"
  kill "$server_pid" 2>/dev/null
fi
expect "llmserve --failure-rate out of range" 2 err \
  "llmserve: --failure-rate: '5' is out of range (0 to 1, or 0% to 100%)" \
  "$build/llmserve" --failure-rate 5
expect "llmserve --inject-ttft without a unit" 2 err \
  "llmserve: --inject-ttft: expected a duration such as 200ms or 1.5s, got '200'" \
  "$build/llmserve" --inject-ttft 200
expect "llmserve MODEL and a different --model" 2 err \
  "llmserve: MODEL 'Qwen3-8B' and --model 'Llama-3.2-1B' differ: give the model once" \
  "$build/llmserve" Qwen3-8B --model Llama-3.2-1B

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
