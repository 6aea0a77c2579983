#!/usr/bin/env python3
"""What the step-time scatter (a profile's step_time_noise) does to a fidelity series' predictions,
on the same real runs: for each TRACE-LOAD.json that tools/fidelity-runs.sh left in DIR, replays
the trace with PROFILE's step costs scaled as the server's steps ran (fidelity's
step_costs_as_run scale, took_s / priced_s of server_steps), once drawing each step from the
scatter and once at the model's time with the scatter's mean folded into the costs
(--no-step-noise), and prints each figure's error against the mean of the real runs as
"with / without" (llmsim replay's figures read from its summary.json). The profile is read from
DIR/PROFILE.json.

Usage: tools/fidelity-scatter-ab.py DIR PROFILE [--llmsim build/llmsim]
"""
import argparse
import json
import pathlib
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
import fidelity_series as fs  # noqa: E402  (tools/fidelity_series.py)

COSTS = ["overhead_ns", "per_sequence_ns", "per_token_ns", "per_context_token_ns",
         "per_attention_pair_ns", "per_sample_ns", "multi_token_ns"]
# (figure, quantile) of each cell, as llmsim fidelity names them
FIGURES = [("TTFT", "p50"), ("TTFT", "p90"), ("TPOT", "p50"), ("TPOT", "p90"), ("ITL", "p50"),
           ("ITL", "p90"), ("ITL", "p99")]


def noise_mean(noise):
    p, r = noise["probabilities"], noise["ratios"]
    mean = r[0] * p[0] + r[-1] * (1 - p[-1])
    return mean + sum((r[i - 1] + r[i]) / 2 * (p[i] - p[i - 1]) for i in range(1, len(p)))


def scaled(profile, factor, path):
    p = json.loads(json.dumps(profile))
    for key in COSTS:
        if key in p["step_time"]:
            p["step_time"][key] *= factor
    path.write_text(json.dumps(p))
    return str(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("profile")
    ap.add_argument("--llmsim", default="build/llmsim")
    o = ap.parse_args()
    d = pathlib.Path(o.dir)
    profile = json.loads((d / f"{o.profile}.json").read_text())
    if "step_time_noise" not in profile:
        sys.exit(f"{d / o.profile}.json: no step_time_noise")
    mean = noise_mean(profile["step_time_noise"])
    tmp = pathlib.Path("/tmp")
    print(f"{o.profile}: scatter mean {mean:.3f}; each cell: error with the scatter / without")
    for c in fs.load_series(d):
        t = c.table(o.profile)
        if c.trace not in fs.TRACES or t is None or "step_costs_as_run" not in t:
            continue
        scale = t["server_steps"]["took_s"] / t["server_steps"]["priced_s"]
        real = {r["figure"].split(" (")[0]: r["real_mean"] for r in t["step_costs_as_run"]["rows"]}
        args = fs.engine_args(c.trace)
        with_noise = fs.replay_summary(o.llmsim, t["trace"],
                                       scaled(profile, scale, tmp / "ab_with.json"), args)
        without = fs.replay_summary(o.llmsim, t["trace"],
                                    scaled(profile, scale * mean, tmp / "ab_without.json"),
                                    args + ["--no-step-noise"])
        cells = []
        for figure, q in FIGURES:
            name = f"{figure} {q}"
            a, b = (100 * (fs.latency_ms(summary, figure, q) / real[name] - 1)
                    for summary in (with_noise, without))
            cells.append(f"{name} {a:+.1f} / {b:+.1f}")
        print(f"{c.trace} {c.load}%: " + ", ".join(cells))


if __name__ == "__main__":
    main()
