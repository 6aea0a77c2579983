#!/usr/bin/env bash
# Checks monitoring/prometheus-rules.yml and monitoring/grafana-dashboard.json with Prometheus's own
# tools, on metrics that the llmsim under test produces:
#   1. promtool check rules;
#   2. the dashboard's JSON: variables, and a model_name filter on every vLLM selector;
#   3. promtool test rules: hand-written series (rules_test.yml), then llmsim_rules_test.yml.in
#      with series that llmsim writes (--promtool-series) for a normal and an overloaded replay;
#   4. a simulated day written as OpenMetrics (--metrics-out), backfilled with promtool into a
#      TSDB, served by a local Prometheus: every dashboard query must parse and return data.
# Needs promtool, prometheus, curl and python3 (ci/install-deps.sh installs them).
# Usage: tests/monitoring/monitoring_test.sh PATH/TO/llmsim
set -u
llmsim=${1:?usage: monitoring_test.sh PATH/TO/llmsim}
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/monitoring"
rules="$root/monitoring/prometheus-rules.yml"
dashboard="$root/monitoring/grafana-dashboard.json"
work=$(mktemp -d)
prom_pid=
cleanup() {
  if [[ -n $prom_pid ]]; then kill "$prom_pid" 2>/dev/null; wait "$prom_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
step() { echo "--- $* ($SECONDS s)"; }

for tool in promtool prometheus curl python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "FAIL: $tool is not installed (run ci/install-deps.sh)" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
done

# The model_name of the simulated day in step 4 (set with --served-model-name), which the
# dashboard's queries are run with.
model=meta-llama/Llama-3.1-8B-Instruct

# --- 1. the rules file ----------------------------------------------------------------------
step "promtool check rules"
if promtool check rules "$rules" >"$work/check.out" 2>&1; then ok; else fail "promtool check rules: $(cat "$work/check.out")"; fi

# --- 2. the dashboard -----------------------------------------------------------------------
# Writes every panel query, with Grafana's variables replaced, one per line to queries.txt.
step "dashboard JSON"
python3 - "$dashboard" "$work/queries.txt" "$model" <<'PY' && ok || fail "dashboard JSON"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert 36 <= d["schemaVersion"] <= 41, d["schemaVersion"]
assert d.get("id") is None and d["uid"] and d["title"]
var = {v["name"]: v for v in d["templating"]["list"]}
assert var["datasource"]["type"] == "datasource" and var["datasource"]["query"] == "prometheus"
mv = var["model_name"]
assert mv["type"] == "query", mv
q = mv["query"]["query"] if isinstance(mv["query"], dict) else mv["query"]
assert q == "label_values(vllm:num_requests_running, model_name)", q
panels = list(d["panels"])
for p in d["panels"]:
    panels += p.get("panels", [])  # panels inside collapsed rows
ids = [p["id"] for p in panels]
assert len(ids) == len(set(ids)), "duplicate panel ids"
titles = [p["title"] for p in panels]
for want in ["Time to first token", "Inter-token latency", "Time per output token (per request)",
             "End-to-end request latency", "Token throughput", "Requests running and waiting",
             "KV cache usage", "Prompt length", "Generation length", "Finish reasons",
             "Queue, prefill and decode time (mean)", "Preemptions", "Share of requests with TTFT <= 1 s",
             "TTFT error budget burn rate", "Prefix cache hit rate", "Running requests by engine"]:
    assert want in titles, "missing panel " + want
out = []
for p in panels:
    if p["type"] == "row":
        continue
    assert p["datasource"]["uid"] == "${datasource}", p["title"]
    assert p.get("targets"), "panel without queries: " + p["title"]
    for t in p["targets"]:
        e = t["expr"]
        assert t["datasource"]["uid"] == "${datasource}", p["title"]
        # Every selector of a vLLM metric filters on the chosen model, except the info gauge
        # vllm:cache_config_info, which has no model_name (as in vLLM): it must be joined to a
        # series that has.
        for m in re.finditer(r"(vllm:[a-zA-Z0-9_:]+)(\{[^}]*\})?", e):
            if m.group(1) == "vllm:cache_config_info":
                assert " and on (instance, engine) vllm:" in e, (p["title"], e)
                continue
            assert m.group(2) and 'model_name="$model_name"' in m.group(2), (p["title"], e)
        e = (e.replace("$__rate_interval", "1m").replace("${__rate_interval}", "1m")
              .replace("$__interval", "15s").replace("${__interval}", "15s")
              .replace("$model_name", sys.argv[3]).replace("${model_name}", sys.argv[3]))
        assert "$" not in e, ("unsubstituted variable", e)
        assert "\n" not in e
        out.append(p["title"] + "\t" + e)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY

# --- 3. promtool test rules -----------------------------------------------------------------
step "promtool test rules (hand-written series)"
if promtool test rules "$here/rules_test.yml" >"$work/unit.out" 2>&1; then ok; else fail "rules_test.yml: $(cat "$work/unit.out")"; fi

# The llmsim test compares alert labels only: its copy of the rules has no annotations, since
# these print the current value, which depends on the cost model. (rules_test.yml checks the
# annotation templates; promtool check rules checks their syntax.)
awk '{
  match($0, /^ */); ind = RLENGTH
  if (skip && (ind > skip_ind || $0 ~ /^[[:space:]]*$/)) next
  skip = 0
  if ($0 ~ /^ *annotations: *$/) { skip = 1; skip_ind = ind; next }
  print
}' "$rules" >"$work/prometheus-rules.yml"
if promtool check rules "$work/prometheus-rules.yml" >/dev/null 2>&1 && ! grep -q annotations "$work/prometheus-rules.yml" \
   && [[ $(grep -c -- '- alert:' "$work/prometheus-rules.yml") -eq $(grep -c -- '- alert:' "$rules") ]]; then ok
else fail "could not strip the annotations from the rules"; fi

# The two replays of llmsim_rules_test.yml.in (the flags are part of its expectations).
step "llmsim --promtool-series"
"$llmsim" replay "$root/traces/azure-conv-sample.json" --quiet --no-progress \
  --data-parallel-size 2 --promtool-series "$work/normal.series.yml" >"$work/normal.out" 2>&1 \
  && ok || fail "normal replay: $(cat "$work/normal.out")"
# The alert times of llmsim_rules_test.yml.in were read off the synchronous schedule: under async
# scheduling (vLLM's default, llmsim's too) the KV cache's 5-minute mean hovers at the 90% line.
"$llmsim" replay "$root/traces/azure-conv-sample.json" --quiet --no-progress \
  --gpu L40S --model Llama-3.1-70B --tensor-parallel-size 4 --no-async-scheduling \
  --arrival-rate-scale 4 --num-gpu-blocks-override 620 --max-model-len 8192 \
  --promtool-series "$work/overload.series.yml" >"$work/overload.out" 2>&1 \
  && ok || fail "overload replay: $(cat "$work/overload.out")"
for s in normal overload; do
  f="$work/$s.series.yml"
  if [[ -s $f && $(head -n 2 "$f") == $'interval: 5s\ninput_series:' ]] && grep -q "^  - series: 'vllm:num_requests_waiting{" "$f"; then ok
  else fail "$s.series.yml does not start with 'interval: 5s' / 'input_series:': $(head -c 300 "$f" 2>/dev/null)"; fi
done

# Splice each series file in place of its '# @llmsim-series NAME' line, at that line's indent.
step "promtool test rules (llmsim series)"
awk -v dir="$work" '
  /^ *# @llmsim-series [a-z]+ *$/ {
    ind = substr($0, 1, index($0, "#") - 1); file = dir "/" $3 ".series.yml"; n = 0
    while ((getline line < file) > 0) { print ind line; n++ }
    close(file)
    if (n == 0) { print "no series in " file > "/dev/stderr"; exit 1 }
    next
  }
  { print }' "$here/llmsim_rules_test.yml.in" >"$work/llmsim_rules_test.yml" || fail "splicing the series"
if (cd "$work" && promtool test rules llmsim_rules_test.yml) >"$work/llmsim_unit.out" 2>&1; then ok
else fail "llmsim_rules_test.yml.in: $(head -c 4000 "$work/llmsim_unit.out")"; fi

# --- 4. a backfilled day, queried panel by panel --------------------------------------------
# 24 h of synthetic chat traffic at 0.25 requests/s (30% of the prompts start with one of 4 shared
# system prompts), one sample per series every 15 s: the dashboard's $__rate_interval is 1m,
# 4 scrape intervals, as Grafana computes it. One engine: 1.7 million samples, 220 MB, 10 to 20 s
# of backfill; a second engine would double that, and the promtool test above covers two.
step "llmsim --metrics-out (simulated day)"
day=86400
start=2026-01-01T00:00:00Z
start_unix=1767225600
"$llmsim" replay "synthetic:n=21600,rate=0.25,seed=5,prefix=0.3,prefixes=4" --quiet --no-progress \
  --served-model-name "$model" --scrape-interval 15s --start-time "$start" \
  --metrics-out "$work/day.om" >"$work/day.out" 2>&1 \
  && ok || fail "day replay: $(cat "$work/day.out")"
[[ $(tail -n 1 "$work/day.om" 2>/dev/null) == "# EOF" ]] && ok || fail "day.om does not end with '# EOF'"
echo "    $(wc -c <"$work/day.om" 2>/dev/null) bytes, $(grep -vc '^#' "$work/day.om" 2>/dev/null) samples"

step "promtool tsdb create-blocks-from openmetrics"
if promtool tsdb create-blocks-from openmetrics --quiet "$work/day.om" "$work/tsdb" >"$work/backfill.out" 2>&1; then ok
else fail "backfill: $(head -c 2000 "$work/backfill.out")"; fi
rm -f "$work/day.om"

step "prometheus on the backfilled data"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 15s\nscrape_configs: []\n' >"$work/prometheus.yml"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$port" --storage.tsdb.retention.time=100y \
  >"$work/prometheus.log" 2>&1 &
prom_pid=$!
api="http://127.0.0.1:$port"
ready=0
for _ in $(seq 1 100); do
  if curl -sf "$api/-/ready" >/dev/null 2>&1; then ready=1; break; fi
  kill -0 "$prom_pid" 2>/dev/null || break
  sleep 0.2
done
if [[ $ready -eq 1 ]]; then ok; else fail "prometheus did not become ready: $(tail -n 20 "$work/prometheus.log")"; fi

if [[ $ready -eq 1 ]]; then
  # The model_name variable's values, as Grafana's label_values() asks for them.
  curl -sfG "$api/api/v1/label/model_name/values" --data-urlencode 'match[]=vllm:num_requests_running' \
    --data-urlencode "start=$start_unix" --data-urlencode "end=$((start_unix + day))" >"$work/labels.json" 2>&1
  python3 - "$work/labels.json" "$model" <<'PY' && ok || fail "label_values(vllm:num_requests_running, model_name)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "success" and r["data"] == [sys.argv[2]], r
PY
  # Queries at noon of the simulated day, one per line: KIND<TAB>WHAT<TAB>PROMQL. Every panel query
  # (KIND panel) must parse and return at least one series; its values may be NaN (a quantile of a
  # histogram without observations in that minute). KIND positive: one finite value > 0.
  # KIND labels: exactly the one engine "0" with the served model name.
  t=$((start_unix + day / 2))
  {
    sed 's/^/panel\t/' "$work/queries.txt"
    printf 'positive\tTTFT share within 1 s\tsum(rate(vllm:time_to_first_token_seconds_bucket{model_name="%s",le="1.0"}[5m])) / sum(rate(vllm:time_to_first_token_seconds_count{model_name="%s"}[5m]))\n' "$model" "$model"
    printf 'positive\tITL p90\thistogram_quantile(0.9, sum by (le) (rate(vllm:inter_token_latency_seconds_bucket{model_name="%s"}[1m])))\n' "$model"
    printf 'positive\tgeneration tokens/s\tsum(rate(vllm:generation_tokens_total{model_name="%s"}[1m]))\n' "$model"
    printf 'positive\tprefix cache hit rate\tsum(rate(vllm:prefix_cache_hits_total{model_name="%s"}[5m])) / sum(rate(vllm:prefix_cache_queries_total{model_name="%s"}[5m]))\n' "$model" "$model"
    printf 'labels\tengine and model_name labels\tcount by (engine, model_name) (vllm:kv_cache_usage_perc)\n'
  } >"$work/checks.tsv"
  mkdir -p "$work/q"
  i=0
  while IFS=$'\t' read -r kind what expr; do
    i=$((i + 1))
    curl -sG "$api/api/v1/query" --data-urlencode "query=$expr" --data-urlencode "time=$t" >"$work/q/$i.json" 2>&1
  done <"$work/checks.tsv"
  # One python for all answers (it prints ok, or FAIL and why, per query).
  python3 - "$work/checks.tsv" "$work/q" "$model" >"$work/checks.out" 2>&1 <<'PY'
import json, math, sys
checks, qdir, model = sys.argv[1:4]
for i, line in enumerate(open(checks), 1):
    kind, what, expr = line.rstrip("\n").split("\t")
    why = None
    try:
        r = json.load(open("%s/%d.json" % (qdir, i)))
        res = r["data"]["result"] if r.get("status") == "success" else None
        if res is None:
            why = "%s: %s" % (r.get("errorType"), r.get("error"))
        elif not res:
            why = "empty result"
        elif kind == "positive":
            v = [float(x["value"][1]) for x in res]
            if not (len(v) == 1 and math.isfinite(v[0]) and v[0] > 0):
                why = "want one finite value > 0, got %s" % v
        elif kind == "labels":
            got = [(x["metric"], x["value"][1]) for x in res]
            if got != [({"engine": "0", "model_name": model}, "1")]:
                why = "got %s" % got
    except Exception as e:  # no answer, or not JSON
        why = repr(e)
    print("ok" if why is None else "FAIL %s '%s': %s\n    %s" % (kind, what, expr, why))
PY
  n=0
  while IFS= read -r line; do
    case $line in
      ok) ok; n=$((n + 1)) ;;
      FAIL*) fail "${line#FAIL }"; n=$((n + 1)) ;;
      *) echo "$line" >&2 ;;
    esac
  done <"$work/checks.out"
  [[ $n -eq $i && $i -gt 0 ]] || fail "checked $n of $i queries: $(tail -n 5 "$work/checks.out")"
  echo "    $i queries"
  kill "$prom_pid"
  wait "$prom_pid" 2>/dev/null
  prom_pid=
fi

echo "$passed passed, $failed failed ($SECONDS s)"
[[ $failed -eq 0 ]]
