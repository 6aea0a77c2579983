#!/usr/bin/python3
"""A/B of llm_bench binaries on a loaded machine: runs them in turn (A, B, ..., A, B, ...), each
run one repetition of the chosen benchmarks, and prints per benchmark the median time (--metric)
of each binary and its speed-up over the first (A's time / its time: > 1 is faster). Taking turns
keeps every side under the same background load, so the ratios mean something even when the
absolute figures do not. A "binary" may be a script that sets an environment and execs llm_bench.

  bench/cpu_ab.py OLD_LLM_BENCH NEW_LLM_BENCH [MORE...] --filter 'BM_Decode/16|BM_Prefill' --runs 5
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
    ap.add_argument("binaries", nargs="+", help="llm_bench binaries, the baseline first")
    ap.add_argument("--filter", required=True, help="--benchmark_filter regex")
    ap.add_argument("--runs", type=int, default=5, help="runs of each binary (default 5)")
    ap.add_argument("--min-time", default="", help="--benchmark_min_time for every run")
    ap.add_argument("--metric", default="real_time", choices=["real_time", "cpu_time"],
                    help="the time compared: real_time (default), or cpu_time (the main "
                    "thread's CPU time: all the work with LLM_BENCH_THREADS=1)")
    args = ap.parse_args()
    if args.runs < 1:
        sys.exit("cpu_ab.py: --runs must be at least 1")
    if len(args.binaries) < 2:
        sys.exit("cpu_ab.py: give at least two binaries")
    samples = [{} for _ in args.binaries]
    for _ in range(args.runs):
        for side, binary in enumerate(args.binaries):
            for name, ms in run_once(binary, args.filter, args.min_time, args.metric).items():
                samples[side].setdefault(name, []).append(ms)
    names = [n for n in samples[0] if all(n in s for s in samples)]
    if not names:
        sys.exit("cpu_ab.py: no benchmark ran in every binary (check --filter)")
    labels = [chr(ord("A") + i) for i in range(len(args.binaries))]
    for label, binary in zip(labels, args.binaries):
        print(f"{label}: {binary}")
    print()
    head = " | ".join(f"{l} ms" for l in labels)
    ratios = " | ".join(f"A/{l}" for l in labels[1:])
    print(f"| benchmark ({args.metric}, median of {args.runs}) | {head} | {ratios} |")
    print("| --- " * (1 + 2 * len(labels) - 1) + "|")
    for n in names:
        med = [statistics.median(s[n]) for s in samples]
        cells = " | ".join(f"{m:.2f}" for m in med)
        rs = " | ".join(f"{med[0] / m:.2f}" for m in med[1:])
        print(f"| {n} | {cells} | {rs} |")

if __name__ == "__main__":
    main()
