#!/usr/bin/env python3
"""Fits the API server's costs of the GPU presets' hosts (backends/sim/api_server_presets.cpp)
from the recorded vLLM runs in ../shared/gpu-truth, and prints them with the data behind them.

Usage: tools/fit-api-server.py LLMSIM [GPU_TRUTH]

What each figure comes from (docs/api-server.md):
- per_prompt_token_ns and request_ns, from the RTX PRO 6000 run (vLLM 0.19): vLLM's arrival_time
  (set once the API server has the tokenized request) against the client's send time
  (trace.csv's arrival_time_ns after meta.json's started_at): its least-squares line against the
  prompt length; request_ns is the line's value at no tokens less the fastest send's network
  share, taken as the minimum residual (the process time is what the quickest request still
  needed beyond the wire);
- the total the client sees at low load (request + tokenization + hop + one token's detokenize
  and SSE + the response's way back), per host, from the H100 runs (vLLM 0.15.1, inference-perf
  at the client): the median over runs of the first (lowest-rate) stage's measured TTFT mean less
  llmsim's engine-only prediction of it (fidelity --recorded --no-api-server); hop_ns is that total less the parts above
  and less response_ns and per_output_token_ns, which the data cannot separate from it (their
  values are stated, not fitted: see the docs).
"""
import argparse
import csv
import datetime
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

# Not separable from the total in these runs (stated in docs/api-server.md).
PER_OUTPUT_TOKEN_NS = 40e3  # vLLM's detokenize + SSE chunk per token and request (Python)
RESPONSE_NS = 0.5e6         # a chunk from the API process to the client's parse


def rtx_ingest(truth):
    run = pathlib.Path(truth) / "llmservingsim" / "rtxpro6000-llama-3.1-8b"
    meta = json.loads((run / "vllm" / "meta.json").read_text())
    start = datetime.datetime.fromisoformat(meta["started_at"].replace("Z", "+00:00")).timestamp()
    sent = {}
    with open(run / "trace.csv") as f:
        for row in csv.DictReader(f):
            sent[int(row["idx"])] = (start + int(row["arrival_time_ns"]) / 1e9, int(row["input_toks"]))
    xs, ys = [], []
    for line in open(run / "vllm" / "requests.jsonl"):
        r = json.loads(line)
        t, n = sent[int(r["request_id"].split("-")[1])]
        xs.append(n)
        ys.append((r["arrival_time"] - t) * 1e9)
    # The first request also paid the server's warm-up; leave it out.
    xs, ys = xs[1:], ys[1:]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    intercept = my - slope * mx
    residuals = [y - (intercept + slope * x) for x, y in zip(xs, ys)]
    return {"requests": len(xs), "slope_ns_per_token": slope, "intercept_ns": intercept,
            "min_residual_ns": min(residuals),
            "median_ns": statistics.median(ys), "p90_ns": sorted(ys)[int(0.9 * len(ys))]}


def low_load_gaps(result):
    """(card, run, ns): each client-measured run's first-stage TTFT mean, measured less llmsim's
    engine-only prediction, from a `fidelity --recorded --no-api-server --result-json` result."""
    rows = []
    for r in result["runs"]:
        if r["view"] != "client" or r["failed_recorded"] > 0:
            continue
        # The lowest load: the first stage (the runs' stages raise the rate).
        figures = r["stages"][0]["figures"] if r["stages"] else r["figures"]
        fig = {f["figure"]: f for f in figures}
        if "ttft_mean" in fig:
            gap = (fig["ttft_mean"]["measured_ms"] - fig["ttft_mean"]["predicted_ms"]) * 1e6
            rows.append((r["card"], r["run"], gap))
    return rows


def costs_from(total_ns, ingest):
    """The five figures: the reads from the RTX run, the hop what is left of the low-load total."""
    request = max(0.0, ingest["intercept_ns"] + ingest["min_residual_ns"])
    per_token = max(0.0, ingest["slope_ns_per_token"])
    hop = max(0.0, total_ns - request - per_token * 550 - PER_OUTPUT_TOKEN_NS - RESPONSE_NS)
    return {"request_ns": round(request, -3), "per_prompt_token_ns": round(per_token, 1),
            "hop_ns": round(hop, -3), "per_output_token_ns": PER_OUTPUT_TOKEN_NS,
            "response_ns": RESPONSE_NS}


def no_api_result(llmsim, truth, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "noapi.json"
        proc = subprocess.run([llmsim, "fidelity", "--recorded", str(truth), "--no-api-server",
                               "--result-json", str(out), *extra], capture_output=True, text=True)
        if not out.exists():
            sys.exit(f"fit-api-server: llmsim fidelity failed:\n{proc.stderr}")
        return json.loads(out.read_text())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("llmsim")
    ap.add_argument("truth", nargs="?", default=str(pathlib.Path(__file__).resolve().parents[2]
                                                      / "shared" / "gpu-truth"))
    a = ap.parse_args()
    ingest = rtx_ingest(a.truth)
    print("RTX PRO 6000 run (vLLM 0.19): client send -> vLLM arrival_time over "
          f"{ingest['requests']} requests: {ingest['intercept_ns'] / 1e6:.3f} ms + "
          f"{ingest['slope_ns_per_token']:.0f} ns per prompt token (median "
          f"{ingest['median_ns'] / 1e6:.3f} ms, p90 {ingest['p90_ns'] / 1e6:.3f} ms; the quickest "
          f"{-ingest['min_residual_ns'] / 1e6:.3f} ms under the line)")
    result = no_api_result(a.llmsim, a.truth)
    rows, refused = low_load_gaps(result), result["not_predicted"]
    for nr in refused:
        print(f"not predicted: {nr['run']}: {nr['reason']}")
    by_card = {}
    for card, run, gap in rows:
        by_card.setdefault(card, []).append(gap)
        print(f"  {run} ({card}): measured TTFT mean - llmsim's engine-only = {gap / 1e6:+.3f} ms")
    for card, gaps in sorted(by_card.items()):
        total = statistics.median(gaps)
        q = statistics.quantiles(gaps, n=4) if len(gaps) > 1 else [total, total, total]
        print(f"{card}: the client's total at low load, median over {len(gaps)} runs "
              f"{total / 1e6:.3f} ms (quartiles {q[0] / 1e6:.3f} / {q[2] / 1e6:.3f} ms)")
        print(f"  -> {json.dumps(costs_from(total, ingest))} (hop = total - request - 550 "
              f"prompt tokens - one output token - response)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
