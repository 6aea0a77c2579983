#!/usr/bin/env python3
"""What the step-time scatter (a profile's step_time_noise) does to a fidelity series' predictions,
on the same real runs: for each TRACE-LOAD.json that ci/fidelity-runs.sh left in DIR, replays the
trace with PROFILE's step costs scaled as the server's steps ran (fidelity's step_costs_as_run
scale, took_s / priced_s of server_steps), once drawing each step from the scatter and once at the model's time with the scatter's
mean folded into the costs (--no-step-noise), and prints each figure's error against the mean of
the real runs as "with / without". The profile is read from DIR/PROFILE.json.

Usage: ci/fidelity-scatter-ab.py DIR PROFILE [--llmsim build/llmsim]
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

ENGINE_ARGS = {  # as ci/fidelity-runs.sh starts the server for each trace
    "chat": ["--max-num-seqs", "16", "--num-gpu-blocks-override", "2048"],
    "long": ["--max-num-seqs", "16", "--max-num-batched-tokens", "512",
             "--num-gpu-blocks-override", "320"],
}
COSTS = ["overhead_ns", "per_sequence_ns", "per_token_ns", "per_context_token_ns",
         "per_attention_pair_ns", "per_sample_ns", "multi_token_ns"]
# (replay table row prefix, column of mean/p50/p90/p99, fidelity figure)
FIGURES = [("TTFT, arrival", 1, "TTFT p50"), ("TTFT, arrival", 2, "TTFT p90"),
           ("TPOT ((last", 1, "TPOT p50"), ("TPOT ((last", 2, "TPOT p90"),
           ("ITL (every", 1, "ITL p50"), ("ITL (every", 2, "ITL p90"),
           ("ITL (every", 3, "ITL p99")]


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


def replay(llmsim, spec, profile_path, args):
    out = subprocess.run([llmsim, "replay", spec, "--profile", profile_path] + args,
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        for prefix, _, _ in FIGURES:
            if line.startswith(prefix) and prefix not in rows:
                rows[prefix] = [float(x) for x in re.findall(r"[-\d.]+", line.split(")")[-1])[-4:]]
    return rows


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
    for path in sorted(d.glob("*-*.json"), key=lambda p: (not p.stem.startswith("chat"), p.stem)):
        trace, load = path.stem.split("-")[:2]
        if trace not in ENGINE_ARGS or not load.isdigit():
            continue
        tables = [t for t in json.loads(path.read_text())
                  if pathlib.Path(t["profile"]).stem == o.profile and "step_costs_as_run" in t]
        if not tables:
            continue
        t = tables[0]
        scale = t["server_steps"]["took_s"] / t["server_steps"]["priced_s"]
        real = {r["figure"].split(" (")[0]: r["real_mean"] for r in t["step_costs_as_run"]["rows"]}
        args = ENGINE_ARGS[trace]
        with_noise = replay(o.llmsim, t["trace"], scaled(profile, scale, tmp / "ab_with.json"), args)
        without = replay(o.llmsim, t["trace"],
                         scaled(profile, scale * mean, tmp / "ab_without.json"),
                         args + ["--no-step-noise"])
        cells = [f"{name} {100 * (with_noise[row][col] / real[name] - 1):+.1f} / "
                 f"{100 * (without[row][col] / real[name] - 1):+.1f}"
                 for row, col, name in FIGURES]
        print(f"{trace} {load}%: " + ", ".join(cells))


if __name__ == "__main__":
    main()
