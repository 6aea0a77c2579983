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
  "llmsim capacity|llmsim capacity|--result-json|--enable-prefix-caching|--max-engines"
)

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
done
expect "llmsim without a command" 2 out "usage: llmsim COMMAND [args]" "$build/llmsim"

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

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
