#!/usr/bin/env python3
"""Prints the markdown tables of docs/fidelity.md from the --result-json files that
tools/fidelity-runs.sh leaves in OUT_DIR: TRACE-LOAD.json, each an array with one table per
profile (llmsim fidelity --profile A,B), or TRACE-LOAD-PROFILE.json with one table.

Usage: tools/fidelity-table.py OUT_DIR [PROFILE]   (PROFILE: a profile's file stem; cpu by default)

One column per trace and load; each cell is the signed error of the prediction against the mean
of the real runs, then the real runs' spread in brackets, marked ** when it misses its goal
(p50/p90 10%, p99 and throughput 20%) by more than the spread. Where the runs were made with
--server-step-log, three more rows: how the profile priced the steps the server ran, and the
median error and misses of the prediction with the step costs as those steps ran: the profile's
costs scaled to their total in results before 2026-12-06's fourth series, its step model refitted
to them since (fidelity's step_costs_as_run.fit says which).
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
import fidelity_series  # noqa: E402  (tools/fidelity_series.py)


def load_runs(out_dir, profile):
    """(trace, load, table) of every comparison of the series with a table of `profile`."""
    return [(c.trace, c.load, c.table(profile)) for c in fidelity_series.load_series(out_dir)
            if c.table(profile) is not None]


def cell(row):
    text = f"{100 * row['error']:+.1f}% ({100 * row['spread']:.0f}%)"
    return f"**{text}**" if row["verdict"] == "MISS" else text


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    profile = sys.argv[2] if len(sys.argv) == 3 else "cpu"
    runs = load_runs(sys.argv[1], profile)
    if not runs:
        sys.exit(f"no table of a profile {profile}.json in {sys.argv[1]}")
    print("| figure | " + " | ".join(f"{t} {l}%" for t, l, _ in runs) + " |")
    print("| --- |" + " --- |" * len(runs))
    for i, row in enumerate(runs[0][2]["rows"]):
        cells = [cell(r[2]["rows"][i]) for r in runs]
        print(f"| {row['figure']} | " + " | ".join(cells) + " |")
    print("| median abs error (goal 5%) | " +
          " | ".join(f"{100 * r[2]['median_abs_error']:.1f}%" for r in runs) + " |")
    print("| misses outside the spread | " +
          " | ".join(str(sum(x["verdict"] == "MISS" for x in r[2]["rows"])) for r in runs) + " |")
    print("| preemptions real / predicted | " +
          " | ".join(f"{r[2]['real_preemptions_per_run']:g} / {r[2]['predicted_preemptions']:g}"
                     for r in runs) + " |")
    print("| requests | " + " | ".join(r[2]["trace"].split(",")[0].split("=")[1] for r in runs) +
          " |")
    # llmsim fidelity --server-step-log: the real runs' steps priced by the profile, and the
    # table again with the step costs as they ran.
    if all("server_steps" in r[2] for r in runs):
        print("| the runs' steps priced by the profile | " +
              " | ".join(f"{100 * r[2]['server_steps']['error']:+.1f}%" for r in runs) + " |")
        print("| median abs error, step costs as run | " +
              " | ".join(f"{100 * r[2]['step_costs_as_run']['median_abs_error']:.1f}%"
                         for r in runs) + " |")
        print("| misses outside the spread, step costs as run | " +
              " | ".join(str(sum(x["verdict"] == "MISS" for x in r[2]["step_costs_as_run"]["rows"]))
                         for r in runs) + " |")


if __name__ == "__main__":
    main()
