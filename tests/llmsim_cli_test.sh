#!/usr/bin/env bash
# End-to-end checks of the llmsim command line: outputs, determinism, importers of the shared
# traces, and bad input (exit code 2, a message naming the file:line or flag, no output files).
# Usage: tests/llmsim_cli_test.sh PATH/TO/llmsim
set -u
llmsim=${1:?usage: llmsim_cli_test.sh PATH/TO/llmsim}
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared/traces"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# expect_error NAME PATTERN ARGS...: exit code 2, stderr matching PATTERN, no output files.
expect_error() {
  local name=$1 pattern=$2
  shift 2
  rm -rf "$work/err"
  "$llmsim" replay "$@" --output-dir "$work/err" >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  if [[ $rc -ne 2 ]]; then fail "$name: exit code $rc, want 2"; return; fi
  if ! grep -qE -- "$pattern" "$work/stderr"; then
    fail "$name: stderr does not match '$pattern': $(cat "$work/stderr")"; return
  fi
  if [[ -e $work/err/requests.jsonl || -e $work/err/summary.json ]] || compgen -G "$work/err/*.partial" >/dev/null; then
    fail "$name: output files left behind"; return
  fi
  ok
}

# --- a normal run writes both files and prints the table -------------------------------------
if "$llmsim" replay "$root/traces/tiny.json" --output-dir "$work/a" >"$work/table" 2>"$work/stderr"; then ok; else fail "tiny replay failed: $(cat "$work/stderr")"; fi
lines=$(wc -l <"$work/a/requests.jsonl")
[[ $lines -eq 11 ]] && ok || fail "tiny: $lines request lines, want 11 (10 requests, one with n=2)"
grep -q "TTFT, arrival to first token" "$work/table" && ok || fail "summary table lacks TTFT row"
python3 - "$work/a" <<'PY' && ok || fail "requests.jsonl / summary.json content"
import json, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(d + "/requests.jsonl")]
need = ["id", "arrival_s", "finish_reason", "prompt_tokens", "cached_tokens", "completion_tokens",
        "num_preemptions", "time_to_first_token_ms", "generation_time_ms", "queue_time_ms",
        "mean_itl_ms", "tokens_per_second"]
for r in rows:
    missing = [k for k in need if k not in r]
    assert not missing, missing
    n = r["completion_tokens"]
    if n > 1:
        assert abs(r["mean_itl_ms"] - r["generation_time_ms"] / (n - 1)) < 1e-9
    else:
        assert r["mean_itl_ms"] is None
s = json.load(open(d + "/summary.json"))
assert s["sequences"] == len(rows), (s["sequences"], len(rows))
assert s["completion_tokens"] == sum(r["completion_tokens"] for r in rows)
assert sum(s["finish_reasons"].values()) == len(rows)
assert s["prefix_cache_hits"] > 0  # tiny.json has a shared prefix and an n=2 request
PY

# --- determinism ----------------------------------------------------------------------------
"$llmsim" replay "$root/traces/tiny.json" --output-dir "$work/b" --quiet
cmp -s "$work/a/requests.jsonl" "$work/b/requests.jsonl" && cmp -s "$work/a/summary.json" "$work/b/summary.json" \
  && ok || fail "two identical runs differ"
"$llmsim" replay "$root/traces/tiny.json" --output-dir "$work/c" --quiet --seed 7
strip() { sed -E 's/,"output_digest":"[0-9a-f]+"//' "$1"; }
if cmp -s "$work/a/requests.jsonl" "$work/c/requests.jsonl"; then fail "--seed did not change token ids"; else ok; fi
[[ "$(strip "$work/a/requests.jsonl")" == "$(strip "$work/c/requests.jsonl")" ]] && ok \
  || fail "--seed changed the schedule of a length-only trace"

# --- what-if flags change the outcome in the expected direction ------------------------------
"$llmsim" replay "$root/traces/azure-conv-sample.json" --output-dir "$work/base" --quiet
"$llmsim" replay "$root/traces/azure-conv-sample.json" --output-dir "$work/fast" --quiet \
  --arrival-rate-scale 50 --num-gpu-blocks-override 2000 --max-model-len 8192
python3 - "$work/base" "$work/fast" <<'PY' && ok || fail "--arrival-rate-scale / small KV cache did not add load"
import json, sys
a = json.load(open(sys.argv[1] + "/summary.json"))
b = json.load(open(sys.argv[2] + "/summary.json"))
assert b["duration_s"] < a["duration_s"] / 2, (a["duration_s"], b["duration_s"])
assert b["ttft_s"]["p99"] > a["ttft_s"]["p99"]
assert b["peak_waiting"] > a["peak_waiting"]
assert b["preemptions"] > 0
PY

# --- the shared traces import as they are ----------------------------------------------------
if [[ -d $shared ]]; then
  "$llmsim" replay "$shared/AzureLLMInferenceTrace_code.csv" --output-dir "$work/code" --quiet
  [[ $(wc -l <"$work/code/requests.jsonl") -eq 8819 ]] && ok || fail "Azure code: wrong request count"
  # A KV cache large enough to keep earlier turns (1B model, fp8): the trace's shared hash ids
  # must turn into hits (an unbounded cache would reach 37%).
  "$llmsim" replay "$shared/mooncake_conversation_trace.jsonl" --output-dir "$work/moon" --quiet \
    --model Llama-3.2-1B --kv-cache-dtype fp8
  python3 - "$work/moon" <<'PY' && ok || fail "Mooncake hash ids did not drive prefix-cache hits"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert s["requests"] == 12031, s["requests"]
assert s["prefix_cache_hit_rate"] > 0.2, s["prefix_cache_hit_rate"]
PY
else
  echo "SKIP: ../shared/traces is absent; the shared-trace checks did not run"
fi

# --- Prometheus metrics agree with the per-request file of the same replay ---------------------
"$llmsim" replay "$root/traces/azure-conv-sample.json" --output-dir "$work/m" --quiet \
  --arrival-rate-scale 20 --metrics-snapshot "$work/m/metrics.prom"
python3 - "$work/m" <<'PY' && ok || fail "metrics disagree with requests.jsonl"
import json, re, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(d + "/requests.jsonl")]
metrics = {}
for line in open(d + "/metrics.prom"):
    if line.startswith("#"):
        continue
    series, value = line.rsplit(" ", 1)
    metrics[series] = float(value)
def get(name, **labels):
    want = {"engine": "0", "model_name": "Llama-3.1-8B", **labels}
    for series, v in metrics.items():
        m = re.fullmatch(r"([^{]+)\{(.*)\}", series)
        got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        if m.group(1) == name and got == want:
            return v
    raise KeyError((name, labels))
assert get("vllm:generation_tokens_total") == sum(r["completion_tokens"] for r in rows)
produced = [r for r in rows if r["ttft_from_arrival_s"] is not None]
assert get("vllm:time_to_first_token_seconds_count") == len(produced)
within = sum(1 for r in produced if r["ttft_from_arrival_s"] <= 1.0)
assert within < len(produced), "the load should push some TTFTs past 1 s"
share_metrics = get("vllm:time_to_first_token_seconds_bucket", le="1.0") / get("vllm:time_to_first_token_seconds_count")
assert share_metrics == within / len(produced), (share_metrics, within / len(produced))
for reason in ["stop", "length", "abort", "error"]:
    assert get("vllm:request_success_total", finished_reason=reason) == sum(1 for r in rows if r["finish_reason"] == reason)
assert get("vllm:prompt_tokens_total") == sum(r["prompt_tokens"] for r in produced)
assert get("vllm:e2e_request_latency_seconds_count") == len(produced)
PY
# promtool objects to the colon in vLLM's names; with it renamed, the exposition must parse, and
# the only lint is vLLM's own histogram name ending in _total.
if command -v promtool >/dev/null; then
  sed 's/vllm:/vllm_/g' "$work/m/metrics.prom" | promtool check metrics >"$work/lint" 2>&1
  rc=$?
  if [[ $rc -eq 0 ]] || { [[ $rc -eq 3 ]] && ! grep -qv 'vllm_iteration_tokens_total non-counter metrics should not have "_total" suffix' "$work/lint"; }; then
    ok
  else
    fail "promtool check metrics (rc $rc): $(cat "$work/lint")"
  fi
else
  fail "promtool is not installed (ci/install-deps.sh installs Debian's prometheus package)"
fi

# --- several engines --------------------------------------------------------------------------
"$llmsim" replay "$root/traces/mooncake-sample.jsonl" --output-dir "$work/rr" --quiet \
  --data-parallel-size 2 --routing-policy least-outstanding --metrics-snapshot "$work/rr/metrics.prom"
python3 - "$work/rr" <<'PY' && ok || fail "data-parallel summary"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert len(s["engines"]) == 2
assert all(e["sequences"] > 0 for e in s["engines"])
assert sum(e["sequences"] for e in s["engines"]) == s["sequences"]
assert sum(e["completion_tokens"] for e in s["engines"]) == s["completion_tokens"]
assert s["preemptions"] == sum(e["preemptions"] for e in s["engines"])
text = open(sys.argv[1] + "/metrics.prom").read()
assert 'vllm:num_requests_running{engine="1",model_name="Llama-3.1-8B"}' in text
PY
if [[ -d $shared ]]; then
  # Routing by cached prefix must find more of the Mooncake trace's shared prefixes than
  # round-robin, which scatters each conversation's turns over the engines. Without the API
  # server: with it, the requests reach the router one read at a time, the first one's blocks
  # (every request's first block is the trace's hash id 0) are cached on engine 0 before the next
  # is routed, and this policy, which balances load only between equal hits, sends all 12,031
  # there (hit rate 0.18 against round-robin's 0.15).
  for policy in round-robin prefix-affinity; do
    "$llmsim" replay "$shared/mooncake_conversation_trace.jsonl" --output-dir "$work/$policy" \
      --quiet --data-parallel-size 4 --model Llama-3.2-1B --routing-policy "$policy" --no-api-server
  done
  python3 - "$work/round-robin" "$work/prefix-affinity" <<'PY' && ok || fail "prefix-affinity routing"
import json, sys
rr = json.load(open(sys.argv[1] + "/summary.json"))
pa = json.load(open(sys.argv[2] + "/summary.json"))
assert pa["prefix_cache_hit_rate"] > 1.5 * rr["prefix_cache_hit_rate"], (pa["prefix_cache_hit_rate"], rr["prefix_cache_hit_rate"])
PY
fi

# --- bad input -------------------------------------------------------------------------------
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,10,4\n2023-11-16 18:15:45.0,10,4\n' >"$work/order.csv"
printf 'TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.0,10\n' >"$work/columns.csv"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,-3,4\n' >"$work/negative.csv"
printf '{"timestamp": 0, "input_length": 10, "output_length": 2, "hash_ids": [1]}\n{"timestamp": 5, "input_length": 10\n' >"$work/broken.jsonl"
printf '{"metadata": {}, "requests": [{"arrival": 0, "prompt_len": 5, "output_len": 2, "bogus": 1}]}' >"$work/unknown.json"
expect_error "out-of-order CSV" "order.csv:3" "$work/order.csv"
expect_error "missing CSV column" "columns.csv:1" "$work/columns.csv"
expect_error "negative length" "negative.csv:2.*ContextTokens" "$work/negative.csv"
expect_error "malformed JSONL" "broken.jsonl:2" "$work/broken.jsonl"
expect_error "unknown JSON field" "bogus" "$work/unknown.json"
expect_error "missing trace file" "no-such-file.json" "$work/no-such-file.json"
expect_error "unknown GPU preset" "--gpu.*H200" "$root/traces/tiny.json" --gpu Z80
expect_error "unknown model preset" "--model" "$root/traces/tiny.json" --model gpt-5
expect_error "bad integer" "--max-num-seqs" "$root/traces/tiny.json" --max-num-seqs many
expect_error "contradictory flags" "--enable-prefix-caching" "$root/traces/tiny.json" --enable-prefix-caching --no-enable-prefix-caching
expect_error "unknown flag" "--max-num-sequences" "$root/traces/tiny.json" --max-num-sequences 4
expect_error "bad kv dtype" "--kv-cache-dtype" "$root/traces/tiny.json" --kv-cache-dtype int3
expect_error "model does not fit" "no room for a KV cache" "$root/traces/tiny.json" --model Llama-3.1-70B
expect_error "context over KV capacity" "--max-model-len" "$root/traces/tiny.json" --num-gpu-blocks-override 100
expect_error "bad rate scale" "--arrival-rate-scale" "$root/traces/tiny.json" --arrival-rate-scale -1
expect_error "bad routing policy" "--routing-policy" "$root/traces/tiny.json" --routing-policy random
expect_error "bad scrape interval" "--scrape-interval" "$root/traces/tiny.json" --scrape-interval 5x --metrics-out "$work/err.om"
expect_error "bad start time" "--start-time" "$root/traces/tiny.json" --start-time 2026-13-01
[[ ! -e $work/err.om && ! -e $work/err.om.partial ]] && ok || fail "a failed run left a metrics file"

# --- llmsim sweep: a point's summary.json is the same replay's; a refused --set exits 2 -------
"$llmsim" sweep "$root/traces/tiny.json" --set max-num-seqs=1,4 --set kv-cache-dtype=auto,fp8 \
  --out "$work/sweep" --no-progress >"$work/sweep.txt" 2>"$work/stderr" && ok || fail "sweep failed: $(cat "$work/stderr")"
[[ -f $work/sweep/sweep.csv && $(grep -c '' "$work/sweep/sweep.csv") -eq 5 ]] && ok || fail "sweep.csv: want a header and 4 rows"
"$llmsim" replay "$root/traces/tiny.json" --max-num-seqs 4 --kv-cache-dtype fp8 --output-dir "$work/sweep-replay" --quiet
cmp -s "$work/sweep/3_max-num-seqs=4_kv-cache-dtype=fp8/summary.json" "$work/sweep-replay/summary.json" \
  && ok || fail "a sweep point's summary.json differs from the same replay's"
"$llmsim" sweep "$root/traces/tiny.json" --set max-num-seqs=4,-1 --out "$work/sweep-bad" >/dev/null 2>"$work/stderr"
[[ $? -eq 2 && ! -e $work/sweep-bad/sweep.json ]] && grep -qF -- "--set max-num-seqs=4,-1: --max-num-seqs" "$work/stderr" \
  && ok || fail "sweep with a bad --set value: $(cat "$work/stderr")"
"$llmsim" sweep "$root/traces/azure-conv-sample.json" --set max-num-seqs=2,64 --slo ttft_p99=1s \
  --out "$work/sweep-slo" --no-progress >"$work/sweep-slo.txt" 2>"$work/stderr"
[[ $? -eq 0 ]] && grep -q "^1  *64  *met " "$work/sweep-slo.txt" && grep -q "^2  *2  *MISSED " "$work/sweep-slo.txt" \
  && grep -q ',missed,' "$work/sweep-slo/sweep.csv" && ok || fail "sweep --slo: $(cat "$work/sweep-slo.txt" "$work/stderr")"
# --metric-percentiles adds its columns to sweep.csv; --slo per-request targets a goodput column
"$llmsim" sweep "$root/traces/tiny.json" --set max-num-seqs=1,4 --metric-percentiles 25,99 \
  --slo ttft=10s,attainment=0.5 --out "$work/sweep-pct" --no-progress >"$work/sweep-pct.txt" 2>"$work/stderr"
[[ $? -eq 0 ]] && head -1 "$work/sweep-pct/sweep.csv" | grep -q ',ttft_p99.9,ttft_p25,ttft_max,' \
  && grep -q ' goodput  attainment$' "$work/sweep-pct.txt" && ! grep -q 'goodput' "$work/sweep.txt" \
  && ok || fail "sweep --metric-percentiles / goodput: $(cat "$work/sweep-pct.txt" "$work/stderr")"
# Stretching a bursty trace (4 requests on each instant): sweep and capacity warn as replay does.
python3 -c 'import json,sys; json.dump({"requests": [{"id": "r%d" % i, "arrival": i // 4 * 0.5, "prompt_len": 32, "output_len": 8} for i in range(40)]}, open(sys.argv[1], "w"))' "$work/bursty.json"
"$llmsim" sweep "$work/bursty.json" --set arrival-rate-scale=1,2 --quiet --no-progress 2>"$work/stderr"
[[ $? -eq 0 ]] && grep -qx "llmsim sweep: warning: --arrival-rate-scale 2 stretches time, and 40 requests arrive on 10 instants (up to 4 at once).*" "$work/stderr" \
  && ok || fail "sweep of a bursty trace: $(cat "$work/stderr")"
"$llmsim" capacity "$work/bursty.json" --slo ttft_p99=2s --max-engines 2 >/dev/null 2>"$work/stderr"
[[ $? -eq 0 ]] && grep -q "^llmsim capacity: warning: the search for one engine's largest --arrival-rate-scale stretches time" "$work/stderr" \
  && ok || fail "capacity of a bursty trace: $(cat "$work/stderr")"
# --- sharded sweep (issue 36): 3 shards + sweep-merge = the unsharded run, byte for byte ----
# (the report's command line is the shards' without --shard, with the merge's --out and --report)
(cd "$work" && "$llmsim" sweep "$root/traces/tiny.json" --set max-num-seqs=1,4 --set kv-cache-dtype=auto,fp8 \
  --quiet --out whole --report whole/report.html) && ok || fail "the unsharded sweep failed"
for i in 0 1 2; do
  (cd "$work" && "$llmsim" sweep "$root/traces/tiny.json" --set max-num-seqs=1,4 --set kv-cache-dtype=auto,fp8 \
    --quiet --out sharded --shard $i/3) || fail "shard $i/3 failed"
done
mv "$work/whole" "$work/whole-unsharded"
(cd "$work" && "$llmsim" sweep-merge sharded --out whole --report whole/report.html --quiet) \
  && diff -r "$work/whole-unsharded" "$work/whole" >/dev/null && ok \
  || fail "3 shards merged differ from the unsharded sweep"
rm "$work/sharded/shard-1-of-3.json"
"$llmsim" sweep-merge "$work/sharded" --out "$work/merged-bad" 2>"$work/stderr"
[[ $? -eq 1 && ! -e $work/merged-bad ]] && grep -qF "shard 1/3 is missing" "$work/stderr" && ok \
  || fail "sweep-merge with a missing shard: $(cat "$work/stderr")"
# --- replay --slo (issue 12): exit 1 on a missed target with --fail-on-slo, 2 on a bad --slo -----
"$llmsim" replay "$root/traces/tiny.json" --quiet --no-progress --slo ttft_p99=100s,tpot_p99=10s --fail-on-slo >"$work/slo" 2>&1 && grep -q "slo ttft_p99 .* met" "$work/slo" && ok || fail "replay --slo met: $(cat "$work/slo")"
"$llmsim" replay "$root/traces/tiny.json" --quiet --no-progress --slo ttft_p99=1us --fail-on-slo >"$work/slo" 2>&1
[[ $? -eq 1 ]] && grep -q "MISSED" "$work/slo" && ok || fail "replay --slo missed: want exit 1 and MISSED: $(cat "$work/slo")"
expect_error "bad slo key" "--slo: ttft_p42x=2s: unknown figure" "$root/traces/tiny.json" --slo ttft_p42x=2s
expect_error "slo without unit" "--slo: ttft_p99=2: .*unit" "$root/traces/tiny.json" --slo ttft_p99=2
# --- capacity (issue 12): an answer and its JSON; bad usage exits 2 naming the flag ------------------
if "$llmsim" capacity "$root/traces/azure-conv-sample.json" --slo ttft_p99=2s,tpot_p99=100ms --arrival-rate-scale 40 --result-json "$work/capacity.json" >"$work/capacity" 2>&1; then ok; else fail "capacity: $(cat "$work/capacity")"; fi
python3 - "$work/capacity.json" <<'PY' && ok || fail "capacity --result-json content"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["engines"] >= 2, j["engines"]
assert set(["engines", "engine_args", "slo", "at_answer", "below_answer"]) <= set(j), list(j)
assert j["at_answer"]["ttft_s"]["p99"] <= 2.0 and j["at_answer"]["tpot_s"]["p99"] <= 0.1
b = j["below_answer"]
assert b["ttft_s"]["p99"] > 2.0 or b["tpot_s"]["p99"] > 0.1
PY
"$llmsim" capacity "$root/traces/tiny.json" --slo ttft_p99=2s --data-parallel-size 2 >/dev/null 2>"$work/stderr"
[[ $? -eq 2 ]] && grep -q -- "--data-parallel-size: capacity searches" "$work/stderr" && ok || fail "capacity --data-parallel-size: $(cat "$work/stderr")"

# --- the API server (issue 32): on with a GPU preset, client-side figures in requests.jsonl; --no-api-server
# gives the engine-side ones; the Prometheus TTFT keeps vLLM's definition ------------------------
"$llmsim" replay "$root/traces/tiny.json" --gpu H100-SXM --output-dir "$work/api" --quiet --no-progress \
  && "$llmsim" replay "$root/traces/tiny.json" --gpu H100-SXM --no-api-server --output-dir "$work/noapi" --quiet --no-progress \
  && ok || fail "replay with and without the API server"
python3 - "$work/api" "$work/noapi" <<'PY' && ok || fail "the API server's client-side figures"
import json, sys
api = {r["id"]: r for r in map(json.loads, open(sys.argv[1] + "/requests.jsonl"))}
plain = {r["id"]: r for r in map(json.loads, open(sys.argv[2] + "/requests.jsonl"))}
for k, r in api.items():
    for f in ("ttft_from_arrival_s", "e2e_s", "prompt_tokens", "completion_tokens"):
        assert f in r, (k, f)
    assert r["arrival_s"] == plain[k]["arrival_s"], k  # the request reaching the server
    if r["ttft_from_arrival_s"] is not None:
        assert r["ttft_from_arrival_s"] > plain[k]["ttft_from_arrival_s"] + 0.005, (k, r, plain[k])
        assert r["e2e_s"] > plain[k]["e2e_s"] + 0.005, k
s = json.load(open(sys.argv[1] + "/summary.json"))
assert s["client_ttft_s"]["count"] > 0 and s["client_ttft_s"]["mean"] > s["ttft_s"]["mean"]
assert "client_ttft_s" not in json.load(open(sys.argv[2] + "/summary.json"))
PY
# The client rows take any --metric-percentiles level from their samples, aligned with the others.
"$llmsim" replay "$root/traces/tiny.json" --gpu H100-SXM --metric-percentiles 50,97 --no-progress \
  >"$work/api-p97.txt" 2>&1 || fail "replay --metric-percentiles with the API server: $(cat "$work/api-p97.txt")"
python3 - "$work/api-p97.txt" <<'PY' && ok || fail "the client rows at p97: $(grep -i client "$work/api-p97.txt")"
import sys
lines = open(sys.argv[1]).read().splitlines()
header = next(l for l in lines if l.startswith("Latency "))
end_of_n = header.index(" n ") + 1  # the count column ends under the header's "n"
rows = [l for l in lines if l.startswith(("TTFT, client", "E2E, client", "TTFT, arrival"))]
assert len(rows) == 3, rows
for row in rows:
    assert "nan" not in row and len(row.split()[-4:]) == 4, row  # mean, p50, p97, unit
    assert row[end_of_n].isdigit() and row[end_of_n + 1] == " ", (row, header)
PY
# --- fidelity --recorded (issue 32): the samples, a table and its JSON; bad input exits 2 naming file and field
samples="$root/sim/recorded/testdata"
"$llmsim" fidelity --recorded "$samples/vllm-bench-result.json" --gpu H100-SXM --model Llama-3.1-8B \
  --max-model-len 4096 --result-json "$work/recorded.json" >"$work/recorded.txt" 2>"$work/stderr" \
  && grep -q "^  ttft_mean " "$work/recorded.txt" && grep -q "median over 1 runs" "$work/recorded.txt" \
  && ok || fail "fidelity --recorded: $(cat "$work/recorded.txt" "$work/stderr")"
python3 - "$work/recorded.json" <<'PY' && ok || fail "fidelity --recorded --result-json content"
import json, sys
j = json.load(open(sys.argv[1]))
run = j["runs"][0]
assert run["kind"] == "vllm-bench" and run["completed"] == 5 and run["api_server"] is True, run
figs = {f["figure"]: f for f in run["figures"]}
assert abs(figs["ttft_mean"]["measured_ms"] - 33.8) < 1e-9, figs["ttft_mean"]
e = figs["e2e_mean"]
assert abs(e["error"] - (e["predicted_ms"] - e["measured_ms"]) / e["measured_ms"]) < 1e-12
assert [m["figure"] for m in j["medians"]][:2] == ["ttft_mean", "ttft_p50"], j["medians"]
PY
cp -r "$samples/inference-perf-run" "$work/bad-run"
echo "max_num_seq: 64" >>"$work/bad-run/exp-config.yaml"
"$llmsim" fidelity --recorded "$work/bad-run" --model Llama-3.1-8B >/dev/null 2>"$work/stderr"
[[ $? -eq 2 ]] && grep -qF "exp-config.yaml: max_num_seq: not a field" "$work/stderr" && ok \
  || fail "fidelity --recorded on a bad run: $(cat "$work/stderr")"
"$llmsim" fidelity --recorded "$work/nowhere" >/dev/null 2>"$work/stderr"
[[ $? -eq 2 ]] && grep -qF "no such file or folder" "$work/stderr" && ok || fail "fidelity --recorded on no path: $(cat "$work/stderr")"
# --- --fault (issue 33): up and the HTTP metrics in the series, errors in the outputs ------------
# Without a fault the exports gain only the target families: up and http_* per engine, all up.
"$llmsim" replay "$root/traces/azure-conv-sample.json" --data-parallel-size 2 --quiet --no-progress \
  --promtool-series "$work/nofault.yml" --metrics-snapshot "$work/nofault.prom" >/dev/null 2>&1 && ok || fail "replay without faults"
grep -A1 "^  - series: 'up{instance=\"engine-1\",job=\"vllm\"}'" "$work/nofault.yml" | grep -q "values: '1x" && ok \
  || fail "up of engine-1: $(grep -A1 "series: 'up" "$work/nofault.yml")"
! grep -q "^up\|^http_\|^# TYPE http_" "$work/nofault.prom" && ok || fail "the /metrics snapshot gained target families"
"$llmsim" replay "$root/traces/azure-conv-sample.json" --data-parallel-size 2 --quiet --no-progress \
  --fault engine-down:1:20s:50s --fault http-5xx:30:10s:1m --fault slow:0:3:0:30s \
  --output-dir "$work/fault" --promtool-series "$work/fault.yml" --metrics-out "$work/fault.om" \
  --report "$work/fault.html" >"$work/fault.txt" 2>&1 && ok || fail "replay --fault: $(cat "$work/fault.txt")"
python3 - "$work" <<'PY' && ok || fail "replay --fault outputs"
import json, re, sys
w = sys.argv[1]
series = open(w + "/fault.yml").read()
def values(name):
    m = re.search(r"series: '" + re.escape(name) + r"'\n    values: '([^']*)'", series)
    assert m, name
    return m.group(1)
# Scrapes every 5s: engine 1 is down at the scrapes of 20s to 45s (6 of them).
assert values('up{instance="engine-1",job="vllm"}').startswith("1x3 0x5 1"), values('up{instance="engine-1",job="vllm"}')
assert values('up{instance="engine-0",job="vllm"}').startswith("1x"), values('up{instance="engine-0",job="vllm"}')
running = values('vllm:num_requests_running{engine="1",model_name="Llama-3.1-8B"}')
assert " stale _x5 " in running, running
five = values('http_requests_total{handler="/v1/completions",instance="engine-0",job="vllm",method="POST",status="5xx"}')
assert five.split()[-1].split("x")[0] not in ("0",), five
rows = [json.loads(l) for l in open(w + "/fault/requests.jsonl")]
summary = json.load(open(w + "/fault/summary.json"))
errors = sum(1 for r in rows if r["finish_reason"] == "error")
assert errors == summary["finish_reasons"]["error"] > 20, (errors, summary["finish_reasons"])
assert summary["sequences"] == len(rows) == 400, (summary["sequences"], len(rows))
assert [(f["spec"], f["ran"]) for f in summary["faults"]] == [("engine-down:1:20s:50s", True), ("http-5xx:30:10s:1m", True), ("slow:0:3:0s:30s", True)], summary["faults"]
om = open(w + "/fault.om").read()
assert not re.search(r'^vllm:num_requests_running\{engine="1",model_name="Llama-3.1-8B"\} \S+ 1767225630$', om, re.M)
assert re.search(r'^up\{instance="engine-1",job="vllm"\} 0 1767225630$', om, re.M)
html = open(w + "/fault.html").read()
assert "engine-down:1:20s:50s (engine 1 down from 20s to 50s)" in html
PY
# The same faults, the same outputs: the 5xx draws come from --seed.
"$llmsim" replay "$root/traces/azure-conv-sample.json" --data-parallel-size 2 --quiet --no-progress \
  --fault engine-down:1:20s:50s --fault http-5xx:30:10s:1m --fault slow:0:3:0:30s \
  --output-dir "$work/fault2" >/dev/null 2>&1
cmp -s "$work/fault/requests.jsonl" "$work/fault2/requests.jsonl" && ok || fail "replay --fault is not deterministic"
# sweep: every point runs under the faults.
"$llmsim" sweep "$root/traces/azure-conv-sample.json" --set max-num-seqs=16,64 --fault http-5xx:50:0:1m \
  --out "$work/sweep-fault" --report "$work/sweep-fault.html" --no-progress >/dev/null 2>"$work/stderr" && ok || fail "sweep --fault: $(cat "$work/stderr")"
python3 - "$work" "$root/traces/azure-conv-sample.json" <<'PY' && ok || fail "sweep --fault: the points' errors"
import csv, glob, json, sys
w, trace = sys.argv[1], sys.argv[2]
early = sum(1 for r in json.load(open(trace))["requests"] if r["arrival"] < 60)
points = glob.glob(w + "/sweep-fault/*/summary.json")
assert len(points) == 2, points
for f in points:
    errors = json.load(open(f))["finish_reasons"]["error"]
    assert 0.35 * early < errors < 0.65 * early, (f, errors, early)  # half of the first minute's
assert "http-5xx:50:0s:1m" in open(w + "/sweep-fault.html").read()
rows = list(csv.DictReader(open(w + "/sweep-fault/sweep.csv")))
assert [r["faults"] for r in rows] == ["http-5xx:50:0s:1m"] * 2, rows
assert all(p["faults"][0]["ran"] for p in json.load(open(w + "/sweep-fault/sweep.json"))["points"])
PY
# The summary names the faults it ran under (and says nothing of faults without --fault).
"$llmsim" replay "$root/traces/tiny.json" --no-progress --fault slow:0:2:0:1m --fault http-5xx:50:0:10s >"$work/fault-summary.txt" 2>&1
grep -qx "Faults: slow:0:2:0s:1m (engine 0 steps 2x slower from 0s to 1m); http-5xx:50:0s:10s (50% of requests answered 5xx from 0s to 10s)" "$work/fault-summary.txt" && ok \
  || fail "replay summary without its faults: $(tail -3 "$work/fault-summary.txt")"
"$llmsim" replay "$root/traces/tiny.json" --no-progress 2>&1 | grep -q "^Faults" && fail "a Faults line without --fault" || ok
expect_error "bad --fault" "--fault engine-down:0:1m: expected engine-down:ENGINE:FROM:TO \(4 parts separated by ':'\), got 3 parts" \
  "$root/traces/tiny.json" --fault engine-down:0:1m
expect_error "--fault engine past the last" "--fault engine-down:1:1m:2m: ENGINE 1 is not an engine of this replay \(--data-parallel-size 1: engines 0 to 0\)" \
  "$root/traces/tiny.json" --fault engine-down:1:1m:2m
expect_error "--fault time" "--fault slow:0:2:1m:later: TO 'later' is not a time such as 0, 90s, 10m or 1h" \
  "$root/traces/tiny.json" --fault slow:0:2:1m:later
# --- make-model: its message lists every file it writes, and nothing else is left -----------
vocab="$root/../shared/testdata/tokenizers/ggml-vocab-llama-spm.gguf"
if [[ -f $vocab ]]; then
  if "$llmsim" make-model --arch llama --vocab "$vocab" --dim 64 --layers 1 --heads 2 \
    --out "$work/model" >"$work/make-model" 2>&1; then
    listed=$(sed -n 's/^wrote \([^:]*\): .*/\1/p' "$work/make-model" | tr -d ' ' | tr ',' '\n' | sort)
    present=$(find "$work/model" -type f | sort)
    [[ -n $listed && $listed == "$present" ]] && ok \
      || fail "make-model lists '$listed' but wrote '$present'"
  else
    fail "make-model: $(cat "$work/make-model")"
  fi
else
  echo "SKIP: $vocab is absent (../shared); make-model's message was not checked"
fi

# --- --kv-cache-metrics: the vllm:kv_block_* histograms in the series export (and only with it) -
"$llmsim" replay "$root/traces/mooncake-sample.jsonl" --output-dir "$work/kvm" --quiet \
  --max-model-len 32768 --num-gpu-blocks-override 2100 \
  --kv-cache-metrics --kv-cache-metrics-sample 1 \
  --metrics-snapshot "$work/kvm/metrics.prom" >/dev/null 2>&1 || fail "replay with --kv-cache-metrics"
count=$(sed -n 's/^vllm:kv_block_lifetime_seconds_count{[^}]*} //p' "$work/kvm/metrics.prom")
if awk -v c="${count:-0}" 'BEGIN { exit !(c > 0) }' &&
  grep -q '^vllm:kv_block_idle_before_evict_seconds_bucket{.*le="1800.0"' "$work/kvm/metrics.prom" &&
  grep -q '^vllm:kv_block_reuse_gap_seconds_count' "$work/kvm/metrics.prom" &&
  ! grep -q 'kv_block_' "$work/m/metrics.prom"; then
  ok
else
  fail "--kv-cache-metrics: lifetime count '${count}' in the snapshot, or kv_block_ series without the flag"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
