#!/usr/bin/python3
"""A/B of two llm_bench binaries on a loaded machine: runs them alternately (A, B, A, B, ...),
each run one repetition of the chosen benchmarks, and prints per benchmark the median time
(--metric) of each binary and the ratio A/B (> 1: B is faster). Alternating keeps both sides under the same
background load, so the ratio means something even when the absolute figures do not.

  bench/cpu_ab.py OLD_LLM_BENCH NEW_LLM_BENCH --filter 'BM_Decode/16|BM_Prefill' --runs 5
"""
import argparse
import json
import statistics
import subprocess
import sys


def run_once(binary, flt, min_time, metric):
    cmd = [binary, f"--benchmark_filter={flt}", "--benchmark_format=json"]
    if min_time:
        cmd.append(f"--benchmark_min_time={min_time}")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        # One entry per benchmark (no repetitions): real time in ms.
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        times[b["name"]] = b[metric] * scale
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", help="the old llm_bench")
    ap.add_argument("b", help="the new llm_bench")
    ap.add_argument("--filter", required=True, help="--benchmark_filter regex")
    ap.add_argument("--runs", type=int, default=5, help="runs of each binary (default 5)")
    ap.add_argument("--min-time", default="", help="--benchmark_min_time for every run")
    ap.add_argument("--metric", default="real_time", choices=["real_time", "cpu_time"],
                    help="the time compared: real_time (default), or cpu_time (the main "
                    "thread's CPU time: all the work with LLM_BENCH_THREADS=1)")
    args = ap.parse_args()
    if args.runs < 1:
        sys.exit("cpu_ab.py: --runs must be at least 1")
    samples = {"a": {}, "b": {}}
    for _ in range(args.runs):
        for side, binary in (("a", args.a), ("b", args.b)):
            for name, ms in run_once(binary, args.filter, args.min_time, args.metric).items():
                samples[side].setdefault(name, []).append(ms)
    names = [n for n in samples["a"] if n in samples["b"]]
    if not names:
        sys.exit("cpu_ab.py: no benchmark ran in both binaries (check --filter)")
    print(f"| benchmark | A median {args.metric} ms | B median ms | A/B | runs |")
    print(f"| --- | --- | --- | --- | --- |")
    for n in names:
        a, b = statistics.median(samples["a"][n]), statistics.median(samples["b"][n])
        print(f"| {n} | {a:.2f} | {b:.2f} | {a / b:.2f} | {len(samples['a'][n])} |")


if __name__ == "__main__":
    main()
