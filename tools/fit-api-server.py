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
  at the client): each run's first (lowest-rate) stage's measured TTFT mean less
  llmsim's engine-only prediction of it (fidelity --recorded --no-api-server), against the
  model's layers (Theil-Sen: the runs' totals grow with the layers, docs/api-server.md, "The hop
  per layer"): hop_per_layer_ns is the line's slope, hop_ns its value at no layers less the parts
  above and less response_ns and per_output_token_ns, which the data cannot separate from it
  (their values are stated, not fitted: see the docs).
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


def model_layers(config_path):
    """The layers of a run's model from its config.json (Llama 4 nests them in text_config)."""
    config = json.loads(pathlib.Path(config_path).read_text())
    return config.get("text_config", config)["num_hidden_layers"]


def theil_sen(points):
    """(intercept, slope) of the median line through (x, y) points: the median of the pairwise
    slopes, then the median intercept (robust: a third of the points may be off the line)."""
    slopes = [(y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(points)
              for x2, y2 in points[i + 1:] if x2 != x1]
    slope = statistics.median(slopes) if slopes else 0.0
    return statistics.median(y - slope * x for x, y in points), slope


def gap_line(rows, layers):
    """The low-load total against the model's layers: (total at no layers, per layer) over the
    runs `rows` (card, run, gap) with `layers` (run -> layers), the per-layer part at least 0."""
    points = [(layers[run], gap) for _, run, gap in rows]
    intercept, slope = theil_sen(points)
    if slope < 0:
        return statistics.median(g for _, g in points), 0.0
    return intercept, slope


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


def costs_from(total_ns, ingest, per_layer_ns=0.0):
    """The figures: the reads from the RTX run, the hop what is left of the low-load total (at no
    layers when per_layer_ns, the total's growth per layer of the model, is given)."""
    request = max(0.0, ingest["intercept_ns"] + ingest["min_residual_ns"])
    per_token = max(0.0, ingest["slope_ns_per_token"])
    hop = max(0.0, total_ns - request - per_token * 550 - PER_OUTPUT_TOKEN_NS - RESPONSE_NS)
    costs = {"request_ns": round(request, -3), "per_prompt_token_ns": round(per_token, 1),
             "hop_ns": round(hop, -3), "per_output_token_ns": PER_OUTPUT_TOKEN_NS,
             "response_ns": RESPONSE_NS}
    if per_layer_ns > 0:
        costs["hop_per_layer_ns"] = round(per_layer_ns, -1)
    return costs


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
    layers = {r["run"]: model_layers(r["model_config"]) for r in result["runs"]}
    by_card = {}
    for card, run, gap in rows:
        by_card.setdefault(card, []).append((card, run, gap))
        print(f"  {run} ({card}, {layers[run]} layers): measured TTFT mean - llmsim's engine-only "
              f"= {gap / 1e6:+.3f} ms")
    for card, card_rows in sorted(by_card.items()):
        gaps = [g for _, _, g in card_rows]
        intercept, per_layer = gap_line(card_rows, layers)
        residuals = sorted(abs(g - intercept - per_layer * layers[run]) for _, run, g in card_rows)
        print(f"{card}: the client's total at low load over {len(gaps)} runs: median "
              f"{statistics.median(gaps) / 1e6:.3f} ms; against the layers (Theil-Sen) "
              f"{intercept / 1e6:.3f} ms + {per_layer / 1e3:.1f} us per layer, |residual| median "
              f"{statistics.median(residuals) / 1e6:.2f} ms, max {residuals[-1] / 1e6:.2f} ms")
        print(f"  -> {json.dumps(costs_from(intercept, ingest, per_layer))} (hop = total at no "
              f"layers - request - 550 prompt tokens - one output token - response)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
