#!/usr/bin/env bash
# `llmsim alerts` against the promtool unit tests of monitoring/prometheus-rules.yml: for the
# normal and the overload replay of llmsim_rules_test.yml.in (same flags as monitoring_test.sh),
# every alert_rule_test expectation there (at eval_time, alertname fires with exactly these label
# sets, or with none) must hold on the timeline that llmsim alerts computes with a real Prometheus.
# Then the CI switches: --fail-on-fire, --expect-fire, --expect-quiet; rules that cannot be judged
# (old metric names, a replay too short: warnings, --strict errors); the two paging alerts under
# --fault engine-down and http-5xx (each fires under its fault, quiet without); bad usage (exit 2).
# Needs promtool, prometheus and python3 (ci/install-deps.sh installs them).
# Usage: tests/monitoring/alerts_test.sh PATH/TO/llmsim
set -u
llmsim=${1:?usage: alerts_test.sh PATH/TO/llmsim}
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/monitoring"
rules="$root/monitoring/prometheus-rules.yml"
trace="$root/traces/azure-conv-sample.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

for tool in promtool prometheus python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "FAIL: $tool is not installed (run ci/install-deps.sh)" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
done

normal=(--data-parallel-size 2)
overload=(--gpu L40S --model Llama-3.1-70B --tensor-parallel-size 4 --no-async-scheduling
  --arrival-rate-scale 4 --num-gpu-blocks-override 620 --max-model-len 8192)

# --- the promtool expectations ---------------------------------------------------------------
# llmsim_rules_test.yml.in evaluates every 15 s, as here.
for s in normal overload; do
  declare -n flags=$s
  "$llmsim" alerts "$trace" --quiet --rules "$rules" --evaluation-interval 15s "${flags[@]}" \
    --timeline-json "$work/$s.json" --report "$work/$s.html" >"$work/$s.out" 2>&1 && ok || fail "$s: $(cat "$work/$s.out")"
done
# --report: the replay's report with the firing windows; the overload's have the timeline's times.
python3 - "$work" >"$work/report.out" 2>&1 <<'PY' && ok || fail "alerts --report: $(cat "$work/report.out")"
import json, re, sys
work = sys.argv[1]
for s in ("normal", "overload"):
    html = open("%s/%s.html" % (work, s), encoding="utf-8").read()
    assert "<title>llmsim alerts: azure-conv-sample.json" in html, s
    assert 'data-plot="alerts"' in html and 'data-plot="kv_cache"' in html, s
    fired = set(float(t) for t in re.findall(r"<title>firing ([0-9.]+) s to", html))
    want = set()
    for alert in json.load(open("%s/%s.json" % (work, s)))["alerts"]:
        for e in alert["episodes"]:
            if e.get("fired_s") is not None:
                want.add(float(e["fired_s"]))
    assert fired == want, (s, sorted(fired), sorted(want))
    assert (len(want) > 0) == (s == "overload"), (s, want)
print("ok")
PY
python3 - "$here/llmsim_rules_test.yml.in" "$work" >"$work/check.out" 2>&1 <<'PY'
import json, re, sys
# The .in file's alert_rule_test entries, in its two forms (no YAML library needed):
#   - {eval_time: 4m, alertname: A, exp_alerts: []}
#   - eval_time: 7m / alertname: A / exp_alerts: / - exp_labels: {k: v, ...}
def seconds(d):
    return sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in re.findall(r"(\d+)([hms])", d))
def flow_map(text):
    out = {}
    for part in text.strip().strip("{}").split(","):
        k, v = part.split(":", 1)
        out[k.strip()] = v.strip().strip('"')
    return out
cases, test, cur = [], None, None
for line in open(sys.argv[1]):
    m = re.match(r"\s*# @llmsim-series (\w+)", line)
    if m:
        test = m.group(1)
        continue
    m = re.match(r"\s*- \{eval_time: (\w+), alertname: (\w+), exp_alerts: \[\]\}", line)
    if m:
        cases.append((test, seconds(m.group(1)), m.group(2), []))
        continue
    m = re.match(r"\s*- eval_time: (\w+)\s*$", line)
    if m:
        cur = [test, seconds(m.group(1)), None, []]
        cases.append(cur)
        continue
    m = re.match(r"\s*alertname: (\w+)", line)
    if m and cur is not None:
        cur[2] = m.group(1)
        continue
    m = re.match(r"\s*- exp_labels: (\{.*\})", line)
    if m and cur is not None:
        cur[3].append(flow_map(m.group(1)))
assert len(cases) >= 30 and {c[0] for c in cases} == {"normal", "overload"}, cases
timelines = {t: json.load(open("%s/%s.json" % (sys.argv[2], t))) for t in ("normal", "overload")}
bad = 0
for test, t, alert, want in cases:
    a = [x for x in timelines[test]["alerts"] if x["alert"] == alert]
    assert len(a) == 1, (test, alert)
    got = []
    for e in a[0]["episodes"]:
        if e["fired_s"] is not None and e["fired_s"] <= t and (e["resolved_s"] is None or t < e["resolved_s"]):
            got.append({k: v for k, v in e["labels"].items() if k != "alertname"})
    key = lambda d: sorted(d.items())
    if sorted(got, key=key) != sorted(want, key=key):
        bad += 1
        print("FAIL %s at %ds: %s firing %s, promtool expects %s" % (test, t, alert, got, want))
print("%d expectations, %d failed" % (len(cases), bad))
sys.exit(1 if bad else 0)
PY
if [[ $? -eq 0 ]]; then ok; else fail "promtool expectations: $(cat "$work/check.out")"; fi
echo "    $(tail -n 1 "$work/check.out")"

# --- CI switches -----------------------------------------------------------------------------
run() { "$llmsim" alerts "$trace" --quiet --rules "$rules" --evaluation-interval 15s "$@" >"$work/cli.out" 2>&1; }
expect_code() {  # WANT WHAT ARGS...
  local want=$1 what=$2
  shift 2
  run "$@"
  local got=$?
  if [[ $got -eq $want ]]; then ok; else fail "$what: exit $got, want $want: $(cat "$work/cli.out")"; fi
}
expect_code 0 "normal traffic with --fail-on-fire" "${normal[@]}" --fail-on-fire
expect_code 1 "overload with --fail-on-fire" "${overload[@]}" --fail-on-fire
grep -q "^fail-on-fire: 6 alerts fired$" "$work/cli.out" && ok || fail "fail-on-fire line: $(cat "$work/cli.out")"
expect_code 0 "overload, --expect-fire met" "${overload[@]}" --expect-fire VLLMKVCacheUsageHigh \
  --expect-quiet VLLMAnswersTruncated
expect_code 1 "overload, --expect-quiet not met" "${overload[@]}" --expect-quiet VLLMRequestsWaitingHigh
grep -q "^expect-quiet VLLMRequestsWaitingHigh: FAILED, it fired at 5m15s$" "$work/cli.out" && ok \
  || fail "expect-quiet line: $(cat "$work/cli.out")"
expect_code 1 "normal, --expect-fire not met" "${normal[@]}" --expect-fire VLLMTTFTSLOShareLow
grep -q "^expect-fire VLLMTTFTSLOShareLow: FAILED, it never fired$" "$work/cli.out" && ok \
  || fail "expect-fire line: $(cat "$work/cli.out")"

# --- rules that cannot be judged: warnings, --strict errors, --expect-quiet fails ---------------
# Old metric names select nothing on the overload replay, which has preemptions and a full cache.
cat >"$work/old.yml" <<'YML'
groups:
  - name: old-names
    rules:
      - alert: OldPreemptions
        expr: rate(vllm:num_preemptions[5m]) * 60 > 1
        for: 1m
      - alert: OldKVCache
        expr: vllm:gpu_cache_usage_perc > 0.9
        for: 1m
      - alert: Preemptions
        expr: rate(vllm:num_preemptions_total[5m]) * 60 > 1
        for: 1m
YML
old() { "$llmsim" alerts "$trace" --quiet --rules "$work/old.yml" --evaluation-interval 15s "${overload[@]}" "$@" >"$work/old.out" 2>"$work/old.err"; }
old --expect-fire Preemptions
rc=$?
[[ $rc -eq 0 ]] && ok || fail "old names: exit $rc: $(cat "$work/old.out" "$work/old.err")"
grep -q "^  warning: selector vllm:num_preemptions matches no series of the replay" "$work/old.out" && ok \
  || fail "old names: no warning under OldPreemptions: $(cat "$work/old.out")"
grep -q "^  warning: selector vllm:gpu_cache_usage_perc matches no series of the replay" "$work/old.out" && ok \
  || fail "old names: no warning under OldKVCache: $(cat "$work/old.out")"
grep -q "^llmsim alerts: warning: 2 rules cannot be judged on this replay .*: OldPreemptions, OldKVCache$" "$work/old.err" && ok \
  || fail "old names: stderr: $(cat "$work/old.err")"
old --expect-quiet OldPreemptions
rc=$?
[[ $rc -eq 1 ]] && grep -q "^expect-quiet OldPreemptions: FAILED, its quiet proves nothing: vllm:num_preemptions matches no series of the replay$" "$work/old.out" && ok \
  || fail "old names, --expect-quiet: exit $rc: $(cat "$work/old.out")"
old --strict
rc=$?
[[ $rc -eq 1 ]] && grep -q "^strict: FAILED, 2 rules cannot be judged on this replay: OldPreemptions, OldKVCache$" "$work/old.out" \
  && grep -q "^  error: selector vllm:num_preemptions" "$work/old.out" \
  && grep -q "^llmsim alerts: error: 2 rules" "$work/old.err" && ok \
  || fail "old names, --strict: exit $rc: $(cat "$work/old.out" "$work/old.err")"
# Too short: the sample at its own rate lasts about 2 minutes, against for: 5m rules.
run "${normal[@]}" --expect-quiet VLLMRequestsWaitingHigh
rc=$?
[[ $rc -eq 0 ]] && grep -q "^  warning: the replay (1m[0-9]*s) is shorter than the 5m15s this rule needs to mean something (for 5m + interval 15s + window 0s)$" "$work/cli.out" && ok \
  || fail "short replay: exit $rc: $(cat "$work/cli.out")"
expect_code 1 "short replay, --strict" "${normal[@]}" --strict

# --- the paging alerts under faults: each fires under its fault and stays quiet without ------
# The sample stretched to about 18 minutes on two engines.
long=(--arrival-rate-scale 0.1 --data-parallel-size 2)
expect_code 0 "no fault: both paging alerts quiet" "${long[@]}" --expect-quiet VLLMTargetDown \
  --expect-quiet VLLMServerErrorsHigh --timeline-json "$work/nofault.json"
expect_code 0 "engine-down: VLLMTargetDown fires" "${long[@]}" --fault engine-down:1:1m:4m \
  --expect-fire VLLMTargetDown --expect-quiet VLLMServerErrorsHigh --timeline-json "$work/down.json"
grep -q "^fault engine-down:1:1m:4m: engine 1 down from 1m to 4m$" "$work/cli.out" && ok \
  || fail "engine-down: no fault line: $(cat "$work/cli.out")"
expect_code 0 "http-5xx: VLLMServerErrorsHigh fires" "${long[@]}" --fault http-5xx:20:1m:12m \
  --expect-fire VLLMServerErrorsHigh --expect-quiet VLLMTargetDown --timeline-json "$work/5xx.json" \
  --report "$work/5xx.html"
python3 - "$work" >"$work/faults.out" 2>&1 <<'PY' && ok || fail "fault timelines: $(cat "$work/faults.out")"
import json, sys
work = sys.argv[1]
def episodes(name, alert):
    doc = json.load(open("%s/%s.json" % (work, name)))
    [a] = [a for a in doc["alerts"] if a["alert"] == alert]
    assert a["unmatched_selectors"] == [], a
    return doc, [(e["labels"], e["pending_s"], e["fired_s"], e["resolved_s"]) for e in a["episodes"]]
doc, down = episodes("down", "VLLMTargetDown")
# Down from 1m to 4m, for: 1m, evaluated every 15s: pending at 1m, firing at 2m, resolved at 4m.
assert down == [({"alertname": "VLLMTargetDown", "instance": "engine-1", "job": "vllm",
                  "severity": "page"}, 60.0, 120.0, 240.0)], down
assert doc["faults"] == [{"spec": "engine-down:1:1m:4m", "kind": "engine-down", "engine": 1,
                          "description": "engine 1 down from 1m to 4m", "from_s": 60.0,
                          "to_s": 240.0}], doc["faults"]
doc, errors = episodes("5xx", "VLLMServerErrorsHigh")
# Both instances answer 20% with 5xx from 1m to 12m; for: 5m.
assert {e[0]["instance"] for e in errors} == {"engine-0", "engine-1"}, errors
for instance in ("engine-0", "engine-1"):
    mine = [e for e in errors if e[0]["instance"] == instance]
    assert all(pending >= 60 for _, pending, _, _ in mine), mine
    assert any(fired is not None and 360 <= fired <= 720 for _, _, fired, _ in mine), mine
for name in ("nofault", "5xx"):
    _, quiet = episodes(name, "VLLMTargetDown")
    assert quiet == [], (name, quiet)
_, quiet = episodes("nofault", "VLLMServerErrorsHigh")
assert quiet == [], quiet
html = open("%s/5xx.html" % work, encoding="utf-8").read()
assert "http-5xx:20:1m:12m (20% of requests answered 5xx from 1m to 12m)" in html
assert '<rect class="fault"' in html
print("ok")
PY

# --- bad usage: exit 2, naming what is wrong --------------------------------------------------
for bad in "engine-down:x:1m:2m|ENGINE 'x' is not an engine index" \
  "engine-down:2:1m:2m|--fault engine-down:2:1m:2m: ENGINE 2 is not an engine of this replay (--data-parallel-size 2: engines 0 to 1)" \
  "http-5xx:150:1m:2m|PERCENT '150' is not a share of requests above 0 and at most 100" \
  "slow:0:1m:2m|expected slow:ENGINE:FACTOR:FROM:TO (5 parts separated by ':'), got 4 parts" \
  "engine-down:0:2m:1m|TO '1m' is not after FROM '2m'" \
  "reboot:0:1m:2m|unknown fault 'reboot'"; do
  expect_code 2 "--fault ${bad%%|*}" "${normal[@]}" --fault "${bad%%|*}"
  grep -qF -- "${bad#*|}" "$work/cli.out" && ok || fail "--fault ${bad%%|*}: $(cat "$work/cli.out")"
done
expect_code 2 "unknown alert" --expect-fire NoSuchAlert
grep -q -- "--expect-fire: no alert NoSuchAlert in" "$work/cli.out" && ok || fail "unknown alert: $(cat "$work/cli.out")"
"$llmsim" alerts "$trace" >"$work/cli.out" 2>&1
[[ $? -eq 2 ]] && grep -q -- "--rules: required" "$work/cli.out" && ok || fail "missing --rules: $(cat "$work/cli.out")"
printf 'groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up ==\n' >"$work/bad.yml"
"$llmsim" alerts "$trace" --rules "$work/bad.yml" >"$work/cli.out" 2>&1
[[ $? -eq 2 ]] && grep -q "promtool check rules" "$work/cli.out" && ok || fail "bad PromQL: $(cat "$work/cli.out")"
printf 'groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up == 0\n        for: soon\n' >"$work/bad.yml"
"$llmsim" alerts "$trace" --rules "$work/bad.yml" >"$work/cli.out" 2>&1
[[ $? -eq 2 ]] && grep -q "bad.yml:6: 'for': expected a duration" "$work/cli.out" && ok || fail "bad for: $(cat "$work/cli.out")"
"$llmsim" alerts "$trace" --rules "$rules" --promtool /nonexistent/promtool >"$work/cli.out" 2>&1
[[ $? -eq 1 ]] && grep -q "cannot run /nonexistent/promtool" "$work/cli.out" && ok || fail "missing promtool: $(cat "$work/cli.out")"
# The server is stopped by its PID when llmsim is stopped by a signal: a stand-in prometheus that
# never gets ready writes its PID and sleeps; SIGTERM to llmsim must end it and remove the work
# folder.
printf '#!/bin/sh\necho $$ >"%s"\nexec sleep 300\n' "$work/fake.pid" >"$work/fake-prometheus"
chmod +x "$work/fake-prometheus"
mkdir "$work/tmp"
TMPDIR="$work/tmp" "$llmsim" alerts "$trace" --quiet --rules "$rules" --prometheus "$work/fake-prometheus" \
  >"$work/sig.out" 2>&1 &
llmsim_pid=$!
for _ in $(seq 1 100); do [[ -s $work/fake.pid ]] && break; sleep 0.1; done
fake_pid=$(cat "$work/fake.pid" 2>/dev/null)
if [[ -n $fake_pid ]]; then
  kill -TERM "$llmsim_pid"
  wait "$llmsim_pid"
  rc=$?
  gone=0
  for _ in $(seq 1 50); do
    state=$(ps -o stat= -p "$fake_pid" 2>/dev/null)
    if [[ -z $state || $state == Z* ]]; then gone=1; break; fi
    sleep 0.1
  done
  if [[ $gone -eq 1 && $rc -eq 143 ]]; then ok; else fail "after SIGTERM (exit $rc) the server $fake_pid is still running"; kill "$fake_pid" 2>/dev/null; fi
  # ... and its work folder is removed.
  if [[ -z $(ls -A "$work/tmp") ]]; then ok; else fail "work folder left after SIGTERM: $(ls "$work/tmp")"; fi
else
  fail "the stand-in prometheus did not start: $(cat "$work/sig.out")"
  kill "$llmsim_pid" 2>/dev/null
fi

echo "$passed passed, $failed failed ($SECONDS s)"
[[ $failed -eq 0 ]]
