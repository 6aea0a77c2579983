#!/usr/bin/env python3
"""The step costs as run, the way llmsim fidelity computes them since 2026-12-06 (the profile's step
model and scatter refitted to the real runs' own steps), for a series that ci/fidelity-runs.sh
recorded before (its tables scaled the profile's costs by one factor instead). For each
TRACE-LOAD.json in DIR, it cuts the real runs' steps out of DIR/TRACE-steps.jsonl (the log holds,
in order, the capacity run, then per comparison its fresh profiles' bursts, whose step files are
in DIR/fresh-profiles/TRACE-LOAD/, and its real runs, whose count the JSON gives), fits them with
`llmsim calibrate --step-log` (facts from DIR/cpu.json), replays the trace with seeds 0..K-1 and
compares the mean with the real runs' mean: median |error| over the twelve latency cells, and
the misses (p50/p90 beyond 10%, p99 beyond 20%, and beyond the real runs' spread).

Usage: ci/fidelity-refit-offline.py DIR [K] [--llmsim build/llmsim]     (K: replays, default 5)
"""
import argparse
import json
import pathlib
import re
import statistics
import subprocess

ENGINE_ARGS = {  # as ci/fidelity-runs.sh starts the server for each trace
    "chat": ["--max-num-seqs", "16", "--num-gpu-blocks-override", "2048"],
    "long": ["--max-num-seqs", "16", "--max-num-batched-tokens", "512",
             "--num-gpu-blocks-override", "320"],
}
ROWS = {"TTFT": "TTFT, arrival", "TPOT": "TPOT ((last", "ITL": "ITL (every", "E2E": "E2E (arrival"}


def replay(llmsim, spec, profile, args):
    out = subprocess.run([llmsim, "replay", spec, "--profile", profile] + args,
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        for name, prefix in ROWS.items():
            if line.startswith(prefix) and name not in rows:
                rows[name] = [float(x) for x in re.findall(r"[-\d.]+", line.split(")")[-1])[-4:]]
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("replays", nargs="?", type=int, default=5)
    ap.add_argument("--llmsim", default="build/llmsim")
    o = ap.parse_args()
    d = pathlib.Path(o.dir)
    medians, misses = [], 0
    for trace in ENGINE_ARGS:
        log = d / f"{trace}-steps.jsonl"
        if not log.exists():
            continue
        lines = log.read_text().splitlines()
        comparisons = []
        for load in (30, 60, 90):
            path = d / f"{trace}-{load}.json"
            if not path.exists():
                continue
            tables = json.loads(path.read_text())
            table = tables[0] if isinstance(tables, list) else tables
            bursts = sum(len(p.read_text().splitlines())
                         for p in (d / "fresh-profiles" / f"{trace}-{load}").glob("*steps.jsonl"))
            comparisons.append((load, bursts, table["server_steps"]["steps"], table))
        at = len(lines) - sum(b + r for _, b, r, _ in comparisons)  # after the capacity run
        for load, bursts, runs, table in comparisons:
            at += bursts
            steps = pathlib.Path(f"/tmp/refit-offline-{trace}-{load}.jsonl")
            steps.write_text("\n".join(lines[at:at + runs]) + "\n")
            at += runs
            profile = f"/tmp/refit-offline-{trace}-{load}.json"
            subprocess.run([o.llmsim, "calibrate", "--step-log", str(steps), "--facts",
                            str(d / "cpu.json"), "--out", profile],
                           capture_output=True, text=True, check=True)
            real = {r["figure"].split(" (")[0]: (r["real_mean"], r["spread"]) for r in table["rows"]}
            predicted = {}
            for seed in range(o.replays):
                rows = replay(o.llmsim, table["trace"], profile,
                              ENGINE_ARGS[trace] + ["--seed", str(seed)])
                for name in ROWS:
                    for column, q in ((1, "p50"), (2, "p90"), (3, "p99")):
                        predicted.setdefault(f"{name} {q}", []).append(rows[name][column])
            errors = {f: statistics.mean(v) / real[f][0] - 1 for f, v in predicted.items()}
            missed = [f for f, e in errors.items()
                      if abs(e) > (0.2 if f.endswith("99") else 0.1) and abs(e) > real[f][1]]
            median = statistics.median(abs(e) for e in errors.values())
            medians.append(median)
            misses += len(missed)
            print(f"{trace} {load}%: median |error| {100 * median:.1f}%, misses {missed}; " +
                  ", ".join(f"{f} {100 * e:+.1f}%" for f, e in errors.items()))
    print("median |error| per comparison: " + " / ".join(f"{100 * m:.1f}%" for m in medians) +
          f"; misses {misses} of {12 * len(medians)}")


if __name__ == "__main__":
    main()
