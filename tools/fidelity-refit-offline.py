#!/usr/bin/env python3
"""The step costs as run, the way llmsim fidelity computes them since 2026-12-06 (the profile's step
model and scatter refitted to the real runs' own steps), for a series that tools/fidelity-runs.sh
recorded before (its tables scaled the profile's costs by one factor instead). For each
TRACE-LOAD.json in DIR, it cuts the real runs' steps out of DIR/TRACE-steps.jsonl (the log holds,
in order, the capacity run, then per comparison its fresh profiles' bursts, whose step files are
in DIR/fresh-profiles/TRACE-LOAD/, and its real runs, whose count the JSON gives), fits them with
`llmsim calibrate --step-log` (facts from DIR/cpu.json), replays the trace with seeds 0..K-1 and
compares the mean with the real runs' mean: median |error| over the twelve latency cells, and
the misses (p50/p90 beyond 10%, p99 beyond 20%, and beyond the real runs' spread).

Usage: tools/fidelity-refit-offline.py DIR [K] [--llmsim build/llmsim]     (K: replays, default 5)
"""
import argparse
import pathlib
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
import fidelity_series as fs  # noqa: E402  (tools/fidelity_series.py)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("replays", nargs="?", type=int, default=5)
    ap.add_argument("--llmsim", default="build/llmsim")
    o = ap.parse_args()
    d = pathlib.Path(o.dir)
    medians, misses = [], 0
    series = fs.load_series(d)
    for trace in fs.TRACES:
        log = d / f"{trace}-steps.jsonl"
        if not log.exists():
            continue
        lines = log.read_text().splitlines()
        comparisons = []
        for c in series:
            if c.trace != trace or c.path.stem != f"{trace}-{c.load}" or c.load not in (30, 60, 90):
                continue
            table = c.tables[0]  # every profile's table holds the same real runs
            bursts = sum(len(p.read_text().splitlines())
                         for p in (d / "fresh-profiles" / f"{trace}-{c.load}").glob("*steps.jsonl"))
            comparisons.append((c.load, bursts, table["server_steps"]["steps"], table))
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
            real = {r["figure"].split(" (")[0]: (r["real_mean"], r["spread"])
                    for r in table["rows"]}
            predicted = {}
            for seed in range(o.replays):
                summary = fs.replay_summary(o.llmsim, table["trace"], profile,
                                            fs.engine_args(trace) + ["--seed", str(seed)])
                for name in fs.SUMMARY_KEYS:
                    for q in ("p50", "p90", "p99"):
                        predicted.setdefault(f"{name} {q}", []).append(
                            fs.latency_ms(summary, name, q))
            errors = {f: statistics.mean(v) / real[f][0] - 1 for f, v in predicted.items()}
            missed = [f for f, e in errors.items() if fs.is_miss(f, e, real[f][1])]
            median = statistics.median(abs(e) for e in errors.values())
            medians.append(median)
            misses += len(missed)
            print(f"{trace} {load}%: median |error| {100 * median:.1f}%, misses {missed}; " +
                  ", ".join(f"{f} {100 * e:+.1f}%" for f, e in errors.items()))
    print("median |error| per comparison: " + " / ".join(f"{100 * m:.1f}%" for m in medians) +
          f"; misses {misses} of {12 * len(medians)}")


if __name__ == "__main__":
    main()
