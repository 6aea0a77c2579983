#!/usr/bin/python3
"""The table of tools/bench-vs-llamacpp.sh: reads the tools' outputs in OUT (runs 1..RUNS) and
prints figure, llama.cpp, ours, ratio and the issue's goal, each figure the median over the runs.

  tools/bench-vs-llamacpp-table.py OUT RUNS
"""
import json
import os
import re
import statistics
import sys


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def llama_bench(out, run):
    """(pp512 tok/s, tg64 tok/s) from llama-bench -o json."""
    rows = load_json(os.path.join(out, f"llama-bench.{run}.json")) or []
    pp = next((r["avg_ts"] for r in rows if r.get("n_prompt") == 512 and r.get("n_gen") == 0), None)
    tg = next((r["avg_ts"] for r in rows if r.get("n_prompt") == 0 and r.get("n_gen") == 64), None)
    return pp, tg


def batched_bench(out, run):
    """S_TG t/s of the 16-stream row of llama-batched-bench's markdown table."""
    try:
        text = open(os.path.join(out, f"llama-batched.{run}.txt")).read()
    except OSError:
        return None
    header = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if "S_TG t/s" in cells:
            header = cells
        elif header and len(cells) == len(header) and re.fullmatch(r"\d+", cells[0] or ""):
            row = dict(zip(header, cells))
            if row.get("B") == "16":
                return float(row["S_TG t/s"])
    return None


def llmbench(out, name, run):
    """(output tok/s, completed, failed) of one llmbench --result-json."""
    j = load_json(os.path.join(out, f"{name}.{run}.json"))
    if not j:
        return None, 0, 0
    return j.get("output_throughput"), j.get("completed", 0), j.get("failed", 0)


def ours_bench(out, run):
    """tok_s of BM_Prefill/512, BM_Decode/1 and BM_Decode/16 from llm_bench's JSON."""
    j = load_json(os.path.join(out, f"ours-bench.{run}.json")) or {}
    got = {}
    for b in j.get("benchmarks", []):
        for key in ("BM_Prefill/512", "BM_Decode/1/", "BM_Decode/16/"):
            if b["name"].startswith(key):
                got[key] = b.get("tok_s")
    return got


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v):
    return "n/a" if v is None else f"{v:.1f}"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench-vs-llamacpp-table.py OUT RUNS")
    out, runs = sys.argv[1], range(1, int(sys.argv[2]) + 1)
    pp = median([llama_bench(out, r)[0] for r in runs])
    tg = median([llama_bench(out, r)[1] for r in runs])
    stg = median([batched_bench(out, r) for r in runs])
    ls = [llmbench(out, "llama-llmbench", r) for r in runs]
    os_ = [llmbench(out, "ours-llmbench", r) for r in runs]
    ob = [ours_bench(out, r) for r in runs]
    rows = [
        ("prefill 512 tokens (llama-bench pp512 / BM_Prefill/512)", pp,
         median([b.get("BM_Prefill/512") for b in ob]), ">= 1.2x"),
        ("decode batch 1 (llama-bench tg64 / BM_Decode/1)", tg,
         median([b.get("BM_Decode/1/") for b in ob]), ">= 1.1x"),
        ("decode 16 streams x 128 (llama-batched-bench S_TG / BM_Decode/16)", stg,
         median([b.get("BM_Decode/16/") for b in ob]), ">= 1.8x"),
        ("server 16 streams x 128 (llama-server / llmserve, llmbench output tok/s)",
         median([x[0] for x in ls]), median([x[0] for x in os_]), ">= 1.5x"),
    ]
    print("| figure | llama.cpp | ours | ratio | goal |")
    print("| --- | --- | --- | --- | --- |")
    for name, theirs, ours, goal in rows:
        ratio = f"{ours / theirs:.2f}x" if theirs and ours else "n/a"
        print(f"| {name} | {fmt(theirs)} | {fmt(ours)} | {ratio} | {goal} |")
    print()
    for label, results in (("llama-server", ls), ("llmserve", os_)):
        done = sum(x[1] for x in results)
        failed = sum(x[2] for x in results)
        print(f"{label}: {done} requests answered, {failed} failed over {len(results)} run(s)")


if __name__ == "__main__":
    main()
