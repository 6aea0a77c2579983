#!/usr/bin/env bash
# `llmsim replay --report FILE` from the command line: the report is written atomically, is the
# same for the same run, changes none of the replay's other outputs, and bad input names --report
# (exit 2, nothing left behind).
# Usage: tests/report/report_cli_test.sh PATH/TO/llmsim
set -u
llmsim=${1:?usage: report_cli_test.sh PATH/TO/llmsim}
root=$(cd "$(dirname "$0")/../.." && pwd)
trace="$root/traces/azure-conv-sample.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# --- a report next to the usual outputs -----------------------------------------------------
run() { "$llmsim" replay "$trace" --quiet --no-progress --data-parallel-size 2 "$@"; }
if run --report "$work/r.html" --output-dir "$work/with" 2>"$work/stderr"; then ok; else fail "replay --report failed: $(cat "$work/stderr")"; fi
[[ -s $work/r.html ]] && ok || fail "no report written"
compgen -G "$work/*.partial" >/dev/null && fail "a .partial file was left" || ok
plots=$(grep -o '<svg [^>]*data-plot="[a-z0-9_]*"' "$work/r.html" | grep -o 'data-plot="[a-z0-9_]*"' | sort | tr '\n' ' ')
want='data-plot="cdf_e2e" data-plot="cdf_itl" data-plot="cdf_tpot" data-plot="cdf_ttft" data-plot="engine_load" data-plot="kv_cache" data-plot="preemptions" data-plot="requests" data-plot="throughput" '
[[ $plots == "$want" ]] && ok || fail "plots: $plots"
grep -q "llmsim replay $trace --quiet --no-progress --data-parallel-size 2 --report $work/r.html" "$work/r.html" && ok || fail "the command line is not in the header"
grep -q "Trace: <b>azure-conv-sample.json</b>" "$work/r.html" && ok || fail "the trace name is not in the header"
/usr/bin/python3 - "$work/r.html" <<'PY' && ok || fail "the report is not well-formed XML"
import sys, xml.etree.ElementTree as ET
ET.fromstring(open(sys.argv[1], encoding="utf-8").read().replace("<!DOCTYPE html>", "", 1))
PY

# --- deterministic, and it changes nothing else --------------------------------------------------
mv "$work/r.html" "$work/first.html"
run --report "$work/r.html" --output-dir "$work/with" >/dev/null 2>&1
cmp -s "$work/first.html" "$work/r.html" && ok || fail "two identical runs wrote different reports"
run --output-dir "$work/without" >/dev/null 2>&1
cmp -s "$work/with/summary.json" "$work/without/summary.json" && ok || fail "--report changed summary.json"
cmp -s "$work/with/requests.jsonl" "$work/without/requests.jsonl" && ok || fail "--report changed requests.jsonl"

# --- bad input --------------------------------------------------------------------------------
expect_error() {
  local name=$1 pattern=$2
  shift 2
  "$llmsim" replay "$trace" --quiet --no-progress "$@" >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  if [[ $rc -ne 2 ]]; then fail "$name: exit code $rc, want 2"; return; fi
  if ! grep -qE -- "$pattern" "$work/stderr"; then fail "$name: stderr does not match '$pattern': $(cat "$work/stderr")"; return; fi
  ok
}
expect_error "report in a missing folder" "--report.*no-such-dir" --report "$work/no-such-dir/r.html"
[[ ! -e $work/no-such-dir ]] && ok || fail "a failed run created the folder"
expect_error "empty report path" "--report" --report ""
expect_error "report without a value" "--report" --report
expect_error "report and a bad flag" "--max-num-seqs" --report "$work/bad.html" --max-num-seqs 0
[[ ! -e $work/bad.html && ! -e $work/bad.html.partial ]] && ok || fail "a failed run left a report"
"$llmsim" replay --help | grep -q -- "--report FILE" && ok || fail "--help does not list --report"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
