#!/usr/bin/env bash
# llmsim calibrate and fidelity end to end on a tiny generated model: calibrate the CPU backend
# in-process (its probes' steps written with --steps-out and priced) and a running llmserve from
# outside, replay with each profile (deterministic), bad input refused with the right exit code
# and message, and a short fidelity run against the real server. The p50 bound is on a profile
# fitted to the server's own logged steps while `calibrate --url` probed it (so not to the trace it
# is checked on), with the host time between steps counted and the fit scaled to their total
# (--no-step-noise), and with its step costs refitted to the server's steps during the real runs
# (--check-p50-as-run): quiet, its p50 errors as predicted measured -20% to +12%. The in-process profile's fidelity is
# printed but not bounded: on this tiny model (1 ms steps, a third of a step's time in the server's
# host work between steps, which no in-process probe sees) it read TTFT p50 45-60% low on a quiet
# machine and past 70% low when the tests run two at a time, before its profile kept the API
# server's time (calibrate's api_server block, measured on the llmserve beside llmsim); with it,
# +20% on a loaded machine, inside the real runs' 38% spread (2026-12-07). What the bound is for, a broken cost
# model or scheduler, gives errors of several times (the 5x optimism of issue 9 was -80%).
# Usage: tests/fidelity_test.sh BUILD_DIR
set -u
build=${1:?usage: fidelity_test.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
vocab="$root/../shared/testdata/tokenizers/ggml-vocab-llama-spm.gguf"
P50_BOUND=${P50_BOUND:-50}  # percent
work=$(mktemp -d)
server=
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
if [[ ! -f $vocab ]]; then
  echo "SKIP: $vocab is absent (../shared); the calibration checks did not run"
  exit 0
fi
engine=(--max-num-seqs 8 --num-gpu-blocks-override 512 --max-model-len 1024)

# --- in-process calibration -----------------------------------------------------------------
"$build/llmsim" make-model --arch llama --vocab "$vocab" --dim 128 --layers 2 --heads 4 \
  --max-position-embeddings 1024 --out "$work/m" >/dev/null || fail "make-model"
if "$build/llmsim" calibrate --backend cpu --model "$work/m/model.gguf" --cpu-threads 1 \
  "${engine[@]}" --quick --repeats 2 --out "$work/cpu.json" --steps-out "$work/cpu-steps.jsonl" \
  >"$work/cal.out" 2>"$work/cal.err"; then
  ok
else
  fail "calibrate --backend cpu: $(cat "$work/cal.err")"
fi
grep -q "per new token" "$work/cal.out" && grep -q "fit over" "$work/cal.out" && ok \
  || fail "calibrate prints no fit: $(cat "$work/cal.out")"
python3 - "$work/cpu.json" <<'PY' && ok || fail "the profile's facts"
import json, sys
p = json.load(open(sys.argv[1]))
e = p["engine"]
assert p["llmsim_profile"] == 1
assert e["num_gpu_blocks"] == 512 and e["block_size"] == 16 and e["max_model_len"] == 1024, e
assert e["max_num_seqs"] == 8 and e["async_scheduling"] is False, e
assert e["vocab_size"] == 32000, e
assert p["fit"]["steps"] >= 20, p["fit"]
assert all(v >= 0 for v in p["step_time"].values()), p["step_time"]
# The API server of the llmserve beside llmsim, measured once the steps were (docs/api-server.md).
api = p["api_server"]
assert api["response_ns"] > 0 and api["hop_ns"] >= 0 and api["per_prompt_token_ns"] >= 0, api
assert api["request_ns"] == 0 and api["per_output_token_ns"] == 0, api
assert "llmserve --backend cpu" in api["source"], api
PY
# --steps-out: the probes' steps as a step log, one line per fitted step, which price-steps reads
steps=$(grep -oE 'wrote [0-9]+ steps to' "$work/cal.out" | grep -oE '[0-9]+')
[[ -n $steps && $(wc -l <"$work/cpu-steps.jsonl") -eq $steps ]] \
  && grep -q "\"steps\": $steps," "$work/cpu.json" && ok \
  || fail "--steps-out wrote $(wc -l <"$work/cpu-steps.jsonl") lines, calibrate says '${steps:-}'"
"$build/llmsim" price-steps "$work/cpu-steps.jsonl" --profile "$work/cpu.json" 2>&1 \
  | grep -qE "^all +$steps " && ok || fail "price-steps on the --steps-out log"

# --- a replay with the profile is deterministic and follows its facts ----------------------------
for run in a b; do
  "$build/llmsim" replay "$root/traces/tiny.json" --profile "$work/cpu.json" --quiet \
    --output-dir "$work/$run" || fail "replay --profile"
done
cmp -s "$work/a/requests.jsonl" "$work/b/requests.jsonl" && cmp -s "$work/a/summary.json" \
  "$work/b/summary.json" && ok || fail "two replays with one profile differ"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['num_gpu_blocks'] == 512" \
  "$work/a/summary.json" && ok || fail "replay ignored the profile's KV blocks"

# --- bad input ----------------------------------------------------------------------------------
expect() {  # expect NAME RC PATTERN COMMAND...
  local name=$1 rc=$2 pattern=$3
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [[ $got -ne $rc ]]; then fail "$name: exit $got, want $rc: $(head -c 300 "$work/err")"; return; fi
  grep -qE -- "$pattern" "$work/err" && ok || fail "$name: stderr lacks '$pattern': $(head -c 300 "$work/err")"
}
expect "calibrate without --out" 2 "--out: required" "$build/llmsim" calibrate --backend cpu --model x
expect "calibrate cuda" 2 "--backend cuda: |--model x: cannot load" "$build/llmsim" calibrate --backend cuda --model x --out "$work/x.json"
expect "calibrate both" 2 "--backend" "$build/llmsim" calibrate --backend cpu --url http://127.0.0.1:1 --model x --out "$work/x.json"
expect "calibrate a server that is down" 1 "cannot GET http://127.0.0.1:1/v1/models" \
  "$build/llmsim" calibrate --url http://127.0.0.1:1 --out "$work/x.json"
[[ ! -e $work/x.json && ! -e $work/x.json.partial ]] && ok || fail "a failed calibration left a file"
python3 - "$work/cpu.json" "$work/bad.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["step_time"]["per_token_ns"] = -5
json.dump(p, open(sys.argv[2], "w"))
PY
expect "negative cost" 2 "bad.json: step_time: field 'per_token_ns': must be a finite number >= 0" \
  "$build/llmsim" replay "$root/traces/tiny.json" --profile "$work/bad.json"
expect "profile with --gpu" 2 "--profile: replaces --gpu and --model" \
  "$build/llmsim" replay "$root/traces/tiny.json" --profile "$work/cpu.json" --gpu H100

# --- a real server: calibrated from outside, and the fidelity of the in-process profile ---------
"$build/llmserve" --backend cpu --model "$work/m/model.gguf" --cpu-threads 1 "${engine[@]}" \
  --host 127.0.0.1 --port 0 --step-log "$work/steps.jsonl" 2>"$work/server.log" &
server=$!
port=
for _ in $(seq 100); do
  port=$(grep -oE 'listening on [0-9.]+:[0-9]+' "$work/server.log" | grep -oE '[0-9]+$')
  [[ -n $port ]] && break
  sleep 0.1
done
if [[ -z $port ]]; then
  fail "llmserve did not start: $(cat "$work/server.log")"
else
  url=http://127.0.0.1:$port
  if "$build/llmsim" calibrate --url "$url" --max-num-seqs 8 --quick --repeats 2 \
    --out "$work/url.json" >"$work/url.out" 2>"$work/url.err"; then ok; else fail "calibrate --url: $(cat "$work/url.err")"; fi
  grep -q "assumed: max_num_batched_tokens 2048" "$work/url.out" && ok || fail "calibrate --url names no assumption"
  grep -q '"num_gpu_blocks": 512' "$work/url.json" && ok || fail "calibrate --url did not read vllm:cache_config_info"
  python3 -c "import json,sys; a = json.load(open(sys.argv[1]))['api_server']; assert a['response_ns'] > 0, a" \
    "$work/url.json" && grep -q "^API server: " "$work/url.out" && ok || fail "calibrate --url measured no API server"
  # The server's steps so far are calibrate --url's probes: a profile fitted to them has not seen
  # the trace below.
  cp "$work/steps.jsonl" "$work/probe-steps.jsonl"
  "$build/llmsim" calibrate --step-log "$work/probe-steps.jsonl" --facts "$work/cpu.json" \
    --out "$work/probe.json" >/dev/null 2>"$work/probe.err" || fail "calibrate --step-log on the probes: $(cat "$work/probe.err")"
  # The bounded run's profile keeps no scatter: on this model the probes' steps scatter far more
  # (measured / modelled 3.7 at p99, mean 1.22: host jitter on 1 ms steps) than the trace's,
  # and drawn from, that scatter leaves the typical step cheap and put TTFT p50 at -31 to -55%,
  # against -20 to +12% with the fit scaled to the total (docs/cost-model.md).
  "$build/llmsim" calibrate --step-log "$work/probe-steps.jsonl" --facts "$work/cpu.json" --no-step-noise \
    --out "$work/probe-scaled.json" >/dev/null 2>"$work/probe.err" || fail "calibrate --step-log --no-step-noise on the probes: $(cat "$work/probe.err")"
  trace='synthetic:n=24,rate=6,prompt=lognormal:80:0.6:8:400,output=lognormal:24:0.5:4:64,seed=11'
  # fidelity NAME PROFILE WHAT [FLAGS...]: a fidelity run of the trace with PROFILE, its table
  # printed under WHAT, its output in $work/NAME.out
  fidelity() {
    local name=$1 profile=$2 what=$3
    shift 3
    if "$build/llmsim" fidelity "$trace" --url "$url" --profile "$profile" "${engine[@]}" \
      --real-runs 2 "$@" >"$work/$name.out" 2>"$work/$name.err"; then
      ok
    else
      fail "fidelity with $what: $(cat "$work/$name.out" "$work/$name.err")"
    fi
    echo "--- $what:"
    cat "$work/$name.out"
  }
  # Two profiles against the same real runs: a table each (and a JSON array of two), and the
  # server's steps during the runs priced by each (--server-step-log).
  logged_before=$(wc -l <"$work/steps.jsonl")
  fidelity fid "$work/cpu.json,$work/probe.json" "the in-process and the probe-log profiles (not bounded)" \
    --result-json "$work/fid.json" --server-step-log "$work/steps.jsonl"
  logged=$(($(wc -l <"$work/steps.jsonl") - logged_before))
  python3 - "$work/fid.json" "$logged" <<'PY' && ok || fail "fidelity --server-step-log: $(cat "$work/fid.json")"
import json, sys
logged = int(sys.argv[2])
for t in json.load(open(sys.argv[1])):
    s, a = t["server_steps"], t["step_costs_as_run"]
    assert s["steps"] == logged > 0, (s, logged)  # exactly the steps of the real runs
    assert s["execute_s"] > 0 and s["host_gaps_s"] > 0 and s["priced_s"] > 0, s
    assert abs(s["took_s"] - s["execute_s"] - s["host_gaps_s"]) < 1e-9, s
    assert abs(s["error"] - (s["priced_s"] / s["took_s"] - 1)) < 1e-9, s
    # the costs as run: a profile refitted to exactly those steps, with a scatter as the profile's
    f = a["fit"]
    assert f["steps"] == logged and 0 < f["median_abs_error"] <= f["p90_abs_error"], f
    assert f["scatter"] is True, f
    assert len(a["rows"]) == 13, a
    # the real side is the same; the prediction is another
    assert [r["real"] for r in a["rows"]] == [r["real"] for r in t["rows"]]
    assert [r["predicted"] for r in a["rows"]] != [r["predicted"] for r in t["rows"]]
    # the prediction is the mean of 5 replays (--sim-runs' default), whose scatter draws differ
    assert t["sim_runs"] == 5, t["sim_runs"]
    for r in t["rows"] + a["rows"]:
        runs = r["predicted_runs"]
        assert len(runs) == 5 and abs(r["predicted"] - sum(runs) / 5) <= 1e-9 * max(1, r["predicted"]), r
    assert any(r["predicted_spread"] > 0 for r in t["rows"]), "five replays drew alike"
PY
  grep -q "steps during the real runs took" "$work/fid.out" && ok || fail "fidelity printed no step pricing"
  # Bounded with the step costs as run (the step model refitted to the server's steps during the
  # real runs, no scatter as the profile keeps none): this VM's speed drifts by a third within
  # seconds (real TPOT p50 1.05 ms in one comparison, 0.67 ms in the next, 2026-12-06), which no
  # profile measured before can follow; what is left is llmsim's own error (scheduling, batching,
  # queueing, the step model's form). A profile that prices steps wrongly is caught by the refit
  # sums below.
  fidelity fid2 "$work/probe-scaled.json" "the profile fitted to the probes' logged steps, scaled to their total (p50 bound ${P50_BOUND}% with the step costs as run)" \
    --server-step-log "$work/steps.jsonl" --check-p50-as-run "$P50_BOUND"
  python3 - "$work/fid.json" "$work/cpu.json" "$work/probe.json" <<'PY' && ok || fail "fidelity --result-json with two profiles: $(cat "$work/fid.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert isinstance(j, list) and [t["profile"] for t in j] == sys.argv[2:], [t.get("profile") for t in j]
assert all(len(t["rows"]) == 13 for t in j)
assert [r["real"] for r in j[0]["rows"]] == [r["real"] for r in j[1]["rows"]], "not the same real runs"
assert [r["predicted"] for r in j[0]["rows"]] != [r["predicted"] for r in j[1]["rows"]], "one prediction"
PY
  [[ $(grep -c '^fidelity of ' "$work/fid.out") == 2 ]] && ok || fail "fidelity printed not two tables: $(cat "$work/fid.out")"
  # The server's own steps, refitted: with --no-step-noise the profile prices the steps it was
  # fitted to at their measured total (the fit is scaled to it) and each within tens of percent (a
  # fit on the wrong times or batches would be several times off), and keeps the facts of
  # --facts; by default it keeps their scatter instead, whose draws make the sum up to a few
  # percent (the ratios' mean is not weighted by the steps' times).
  for noise in off on; do
    flags=(--gap-limit-ms 0)
    [[ $noise == off ]] && flags+=(--no-step-noise)
    if "$build/llmsim" calibrate --step-log "$work/steps.jsonl" --facts "$work/cpu.json" \
      "${flags[@]}" --out "$work/log-$noise.json" >"$work/log.out" 2>"$work/log.err"; then ok; else fail "calibrate --step-log (noise $noise): $(cat "$work/log.err")"; fi
    "$build/llmsim" price-steps "$work/steps.jsonl" --profile "$work/log-$noise.json" >"$work/priced.out" 2>&1
    echo "the server's own steps priced by the profile refitted to them (scatter $noise): $(grep '^all ' "$work/priced.out")"
    python3 - "$work/priced.out" "$work/log-$noise.json" "$noise" <<'PY' && ok || fail "calibrate --step-log (scatter $noise): $(cat "$work/priced.out")"
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("all ")]
err_p50, err_sum = float(rows[0][4].rstrip("%")), float(rows[0][-1].rstrip("%"))
p = json.load(open(sys.argv[2]))
if sys.argv[3] == "off":
    assert "step_time_noise" not in p, "--no-step-noise kept a scatter"
    assert abs(err_sum) <= 0.5, f"the refitted profile prices its own steps {err_sum:+.1f}% off in sum"
else:
    ratios = p["step_time_noise"]["ratios"]
    assert len(ratios) == 21 and ratios[0] < 1 < ratios[-1], ratios
    assert abs(err_sum) <= 10, f"the refitted profile's draws price its own steps {err_sum:+.1f}% off in sum"
assert abs(err_p50) <= 30, f"the refitted profile's median step error is {err_p50:+.1f}%"
assert p["engine"]["num_gpu_blocks"] == 512 and p["fit"]["steps"] >= 100, p
assert p["source"].startswith("step log "), p["source"]
PY
  done
  # Two logs fitted together: each log's steps counted on its own, the fit over all of them.
  if "$build/llmsim" calibrate --step-log "$work/probe-steps.jsonl,$work/steps.jsonl" --facts "$work/cpu.json" \
    --out "$work/two.json" >/dev/null 2>"$work/two.err"; then ok; else fail "calibrate --step-log A,B: $(cat "$work/two.err")"; fi
  python3 - "$work/two.err" "$work/two.json" <<'PY' && ok || fail "calibrate --step-log A,B: $(cat "$work/two.err")"
import json, re, sys
counts = [int(n) for n in re.findall(r"calibrate: (\d+) steps from ", open(sys.argv[1]).read())]
p = json.load(open(sys.argv[2]))
assert len(counts) == 2 and 0 < counts[0] < counts[1], counts
assert p["fit"]["steps"] == sum(counts), (p["fit"]["steps"], counts)
PY
  printf '{"engine":0}\n' >"$work/bad-steps.jsonl"
  expect "calibrate --step-log with a bad line" 2 "bad-steps.jsonl:1: " \
    "$build/llmsim" calibrate --step-log "$work/bad-steps.jsonl" --facts "$work/cpu.json" --out "$work/x.json"
  expect "calibrate --step-log with an empty item" 2 "--step-log: an empty item in" \
    "$build/llmsim" calibrate --step-log "$work/steps.jsonl," --facts "$work/cpu.json" --out "$work/x.json"
  expect "calibrate --step-log without --facts" 2 "--facts: required with --step-log" \
    "$build/llmsim" calibrate --step-log "$work/steps.jsonl" --out "$work/x.json"
  # Every probe and every real run sent prompts new to the server (salted), so its prefix cache
  # never hit: a hit would have timed a shortened prefill (calibrate) or a run the replay cannot
  # know of (fidelity's second run finding the first one's prompts).
  python3 - "$url/metrics" <<'PY' && ok || fail "the server's prefix cache was hit by calibrate or fidelity"
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
def total(name):
    return sum(float(l.rsplit(" ", 1)[1]) for l in text.splitlines()
               if l.startswith(name + "{") or l.startswith(name + " "))
queries, hits = total("vllm:prefix_cache_queries_total"), total("vllm:prefix_cache_hits_total")
assert queries > 0, "no prefix-cache queries counted"
assert hits == 0, f"{hits:g} of {queries:g} prompt tokens hit the prefix cache"
PY
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
