#!/usr/bin/env python3
"""What the fidelity tools share (Debian's python3 only, no third-party packages): the traces and
engine arguments of tools/fidelity-runs.sh, llmsim replay's figures read from its summary.json,
a series of `llmsim fidelity --result-json` files, and the miss rule of llmsim fidelity.

A series is the folder tools/fidelity-runs.sh fills: TRACE-LOAD.json (one table per profile,
`llmsim fidelity --profile A,B`) or TRACE-LOAD-PROFILE.json (one table), beside the profiles
(PROFILE.json) and the server's step logs (TRACE-steps.jsonl).

Used by tools/fidelity-runs.sh (through the command line below), tools/fidelity-table.py,
tools/fidelity-refit-offline.py and tools/fidelity-scatter-ab.py. Not thread-safe.

  fidelity_series.py engine-args TRACE   the llmserve / llmsim flags of TRACE, one line
  fidelity_series.py shape TRACE         the synthetic spec's prompt and output lengths of TRACE
"""
import json
import pathlib
import subprocess
import sys
import tempfile
from dataclasses import dataclass


@dataclass(frozen=True)
class Trace:
    """One trace of the fidelity series: its synthetic shape and the engine that serves it."""
    shape: str  # prompt and output lengths of a `synthetic:` spec
    engine_args: tuple  # llmserve's and llmsim's flags for it


TRACES = {
    # prompts lognormal(200) up to 1,500 tokens, outputs lognormal(100)
    "chat": Trace("prompt=lognormal:200:0.8:16:1500,output=lognormal:100:0.6:8:400",
                  ("--max-num-seqs", "16", "--num-gpu-blocks-override", "2048")),
    # prompts of 1,200-1,900 tokens past a 512-token budget (3 or 4 chunks each) and a KV cache of
    # 5,120 tokens that preempts
    "long": Trace("prompt=uniform:1200:1900,output=lognormal:60:0.5:8:200",
                  ("--max-num-seqs", "16", "--max-num-batched-tokens", "512",
                   "--num-gpu-blocks-override", "320")),
}

# Each latency figure of llmsim fidelity and its distribution's key in summary.json.
SUMMARY_KEYS = {"TTFT": "ttft_s", "TPOT": "tpot_s", "ITL": "itl_s", "E2E": "e2e_s"}


def engine_args(trace):
    """The flags the series' server and replays use for `trace` (a list)."""
    return list(TRACES[trace].engine_args)


# ---- llmsim replay ------------------------------------------------------------------------------

def replay_summary(llmsim, spec, profile, args=()):
    """Replays `spec` with `llmsim replay --profile profile ARGS` and returns its summary.json (a
    dict; distributions in seconds, see latency_ms)."""
    with tempfile.TemporaryDirectory(prefix="fidelity-replay-") as out:
        subprocess.run([llmsim, "replay", spec, "--profile", str(profile), *args,
                        "--output-dir", out, "--quiet"],
                       capture_output=True, text=True, check=True)
        return json.loads((pathlib.Path(out) / "summary.json").read_text())


def latency_ms(summary, figure, quantile):
    """A latency of a replay's summary in milliseconds: figure TTFT, TPOT, ITL or E2E, quantile
    mean, p50, p90 or p99."""
    return 1e3 * summary[SUMMARY_KEYS[figure]][quantile]


# ---- a series of llmsim fidelity --result-json files -------------------------------------------

@dataclass
class Comparison:
    """One comparison of a series: a trace at a load, with its tables (one per profile)."""
    trace: str
    load: int
    tables: list
    path: pathlib.Path

    def table(self, profile):
        """The table of the profile whose file stem is `profile`, or None."""
        return next((t for t in self.tables if pathlib.Path(t["profile"]).stem == profile), None)


def load_series(folder):
    """Every comparison in `folder`, chat first, then by trace and load."""
    comparisons = []
    for path in pathlib.Path(folder).glob("*-*.json"):
        parts = path.stem.split("-")
        if len(parts) not in (2, 3) or not parts[1].isdigit():
            continue
        tables = json.loads(path.read_text())
        comparisons.append(Comparison(parts[0], int(parts[1]),
                                      tables if isinstance(tables, list) else [tables], path))
    comparisons.sort(key=lambda c: (c.trace != "chat", c.trace, c.load, c.path.name))
    return comparisons


# ---- llmsim fidelity's verdicts -----------------------------------------------------------------

def goal(figure):
    """The error a figure may have (sim/cli/fidelity_command.cpp): 20% for p99 and throughput, 10%
    for p50 and p90."""
    name = figure.split(" (")[0]
    return 0.2 if name.endswith("p99") or name.startswith("output throughput") else 0.1


def is_miss(figure, error, spread):
    """llmsim fidelity's MISS: the error is beyond both the figure's goal and the real runs'
    spread."""
    return abs(error) > spread and abs(error) > goal(figure)


def main(argv):
    if len(argv) == 3 and argv[1] in ("engine-args", "shape") and argv[2] in TRACES:
        t = TRACES[argv[2]]
        print(" ".join(t.engine_args) if argv[1] == "engine-args" else t.shape)
        return 0
    print("usage: fidelity_series.py engine-args|shape " + "|".join(TRACES), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
