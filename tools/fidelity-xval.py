#!/usr/bin/env python3
"""The cross-validation table of docs/fidelity.md: llmsim's prediction of every recorded real run
in ../shared/gpu-truth, leaving each model out of the fit, beside BLIS's and the other simulators'
errors on the same runs, and the medians next to the goals of issue 32.

Usage:
  tools/fidelity-xval.py LLMSIM [GPU_TRUTH] [--runs SUBSTR,...] [--folds MODEL,...]
                      [--no-api-server] [--out DIR] [--check-machinery] [--markdown]

For each model of the runs (the leave-one-model-out folds): when `LLMSIM calibrate --runs` has
`--hold-out` it fits the GPU coefficients without that model's profiles, runs and KV counts
(`calibrate --runs GPU_TRUTH --hold-out MODEL`) and predicts the held-out model's runs with that
fit; until then every fold predicts with llmsim's built-in presets (nothing is fitted,
so every run is unseen) and the table says so. The predictions come from
`LLMSIM fidelity --recorded RUN --result-json` (docs/fidelity.md says how each run is rebuilt).

Columns: the signed error of each figure (whole run: TTFT and E2E mean, p90, p99), then BLIS
trained-physics' (its outputs in trainval-exact-config.json's `expected`, against measured.csv),
and blis-evolved / blis-roofline / vidur / aiconfigurator / llm-optimizer from
other-simulators.csv where they predicted that run. The medians are of |error| over the runs
each column has.

--folds predicts only those models' runs (their folds: e.g. `--folds llama-4-scout-17b-16e`), each
still fitted without it and its API-server hop fitted to every other model's runs: a quick check of
one hypothesis on the models it should move, before the whole table.

--check-machinery (the ctest): exits 1 only if the machinery broke (a run not predicted, a
figure missing, the other simulators' columns not joined), never for the numbers.
"""
import argparse
import csv
import importlib.util
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

FIGURES = ["ttft_mean", "ttft_p90", "ttft_p99", "e2e_mean", "e2e_p90", "e2e_p99"]
GOALS = {"e2e_mean": 0.05, "e2e_p90": 0.06, "e2e_p99": 0.07,
         "ttft_mean": 0.12, "ttft_p90": 0.15, "ttft_p99": 0.20}
BLIS_TP = {"e2e_mean": 0.067, "e2e_p90": 0.075, "e2e_p99": 0.092,
           "ttft_mean": 0.176, "ttft_p90": 0.213, "ttft_p99": 0.290}
PER_REQUEST_GOAL = {"ttft_mean": 0.03, "tpot_mean": 0.03, "e2e_mean": 0.03,
                    "ttft_p90": 0.08, "tpot_p90": 0.08, "e2e_p90": 0.08}
OTHERS = ["blis-evolved", "blis-roofline", "vidur", "aiconfigurator-estimate",
          "llm-optimizer-estimate"]


def fit_module():
    path = pathlib.Path(__file__).with_name("fit-api-server.py")
    spec = importlib.util.spec_from_file_location("fit_api_server", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def model_family(model):
    """The model a run belongs to for the folds ("meta-llama/Llama-2-7b-hf" -> "llama-2-7b")."""
    name = model.split("/")[-1].lower()
    for suffix in ["-instruct-fp8-dynamic", "-instruct-hf", "-instruct-2407", "-instruct",
                   "-hf", "-v0.1"]:
        name = name.removesuffix(suffix)
    return name


def run_fidelity(llmsim, path, args, out_json):
    cmd = [llmsim, "fidelity", "--recorded", str(path), "--result-json", str(out_json)] + args
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 2) or not out_json.exists():
        sys.exit(f"fidelity-xval: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(out_json.read_text())


def has_runs_fit(llmsim):
    proc = subprocess.run([llmsim, "calibrate", "--help"], capture_output=True, text=True)
    return "--hold-out" in proc.stdout


def blis_columns(truth):
    """(folder -> figure -> {simulator: signed error}) from BLIS's files."""
    blis = pathlib.Path(truth) / "blis"
    cols = {}
    measured = {}
    with open(blis / "measured.csv") as f:
        for row in csv.DictReader(f):
            if row["stage_index(-1=whole run)"] == "-1":
                measured.setdefault(row["folder"], {})[row["metric(ms)"]] = float(row["actual_ms"])
    config = json.loads((blis / "trainval-exact-config.json").read_text())
    by_id = {e["id"]: e for e in config["experiments"]}
    with open(blis / "experiments.csv") as f:
        for row in csv.DictReader(f):
            exp = by_id.get(row["exp_id"]) or next(
                (e for i, e in by_id.items() if row["folder"].startswith(i + "-")), None)
            m = measured.get(row["folder"], {})
            if not exp:
                continue
            for fig in FIGURES:
                key = fig + "_ms"
                if key in exp["expected"] and fig in m:
                    cols.setdefault(row["folder"], {}).setdefault(fig, {})["blis-trained-physics"] = (
                        exp["expected"][key] - m[fig]) / m[fig]
    with open(blis / "other-simulators.csv") as f:
        for row in csv.DictReader(f):
            if row["stage_index"] != "-1" or row["metric"] not in FIGURES:
                continue
            cols.setdefault(row["folder"], {}).setdefault(row["metric"], {})[row["simulator"]] = (
                float(row["pe_pct"]) / 100)
    return cols


def pct(x):
    return "" if x is None else f"{100 * x:+.1f}%"


def median_abs(values):
    values = [abs(v) for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("llmsim")
    ap.add_argument("truth", nargs="?", default=str(pathlib.Path(__file__).resolve().parents[2]
                                                      / "shared" / "gpu-truth"))
    ap.add_argument("--runs", default="")
    ap.add_argument("--folds", default="")
    ap.add_argument("--no-api-server", action="store_true")
    ap.add_argument("--out", default="")
    ap.add_argument("--check-machinery", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    if not (pathlib.Path(a.truth) / "blis" / "experiments.csv").exists():
        print(f"SKIP: {a.truth} has no recorded runs (blis/experiments.csv)")
        return 77
    out = pathlib.Path(a.out or tempfile.mkdtemp(prefix="fidelity-xval-"))
    out.mkdir(parents=True, exist_ok=True)
    extra = ["--no-api-server"] if a.no_api_server else []
    if a.runs:
        extra += ["--run", a.runs]

    # Every run, engine only, with the presets: the runs, their models, and the API server's
    # low-load gaps each fold fits its hop to.
    fit = fit_module()
    base = run_fidelity(a.llmsim, a.truth, ["--no-api-server"] + extra, out / "noapi.json")
    runs_fit = has_runs_fit(a.llmsim)
    ingest = fit.rtx_ingest(a.truth)
    families = sorted({model_family(r["model"]) for r in base["runs"]})
    if a.folds:
        wanted = a.folds.split(",")
        unknown = [f for f in wanted if f not in families]
        if unknown:
            sys.exit(f"fidelity-xval: --folds {','.join(unknown)}: no such model among the runs "
                     f"({', '.join(families)})")
        families = wanted
    layers = {r["run"]: fit.model_layers(r["model_config"]) for r in base["runs"]}
    results = {}
    for fam in families:
        held = [r["run"] for r in base["runs"] if model_family(r["model"]) == fam]
        train = [r for r in base["runs"] if model_family(r["model"]) != fam]
        fold = out / f"fold-{fam}"
        fold.mkdir(exist_ok=True)
        gpu_args = []
        engine_only = base
        if runs_fit:
            # The GPU coefficients fitted without this model's operator profiles, whole-run
            # stages and KV counts (calibrate --runs --hold-out), and the API server's gaps under
            # that fit.
            (fold / "gpus").mkdir(exist_ok=True)
            calibrate = [a.llmsim, "calibrate", "--runs", a.truth, "--out-dir", str(fold / "gpus")]
            fit_run = subprocess.run(calibrate + ["--hold-out", fam], capture_output=True, text=True)
            if "is of a model so named" in fit_run.stderr:
                # Nothing of this model is in the fit (its only run is overloaded and left out,
                # no profile): the whole fit has not seen it.
                fit_run = subprocess.run(calibrate, capture_output=True, text=True)
            if fit_run.returncode != 0:
                sys.exit(f"fidelity-xval: calibrate --runs {a.truth} --hold-out {fam}: "
                         f"{fit_run.stderr}")
            card = next(r["gpu"] for r in base["runs"] if r["run"] in held)
            preset = fold / "gpus" / f"{card}.json"
            gpu_args = ["--gpu", str(preset)] if preset.exists() else []
            engine_only = run_fidelity(a.llmsim, a.truth, ["--no-api-server", "--run",
                                       ",".join(r["run"] for r in train)] + gpu_args,
                                       fold / "noapi-train.json")
        if a.no_api_server:
            args = ["--no-api-server"]
        else:
            gaps = [row for row in fit.low_load_gaps(engine_only)
                    if row[1] in {r["run"] for r in train}]
            costs = None
            if gaps:
                total, per_layer = fit.gap_line(gaps, layers)
                costs = fit.costs_from(total, ingest, per_layer)
            args = []
            if costs:
                (fold / "api.json").write_text(json.dumps(costs))
                args = ["--api-server-costs", str(fold / "api.json")]
        j = run_fidelity(a.llmsim, a.truth, ["--run", ",".join(held)] + args + gpu_args,
                         fold / "held.json")
        for r in j["runs"]:
            if r["run"] in held:
                results[r["run"]] = r
    everything = base
    fit_note = ("leave-one-model-out: each model's runs predicted with the GPU coefficients "
                "(llmsim calibrate --runs) and the API server's hop fitted to the other models' "
                "runs" if runs_fit else
                "leave-one-model-out for the API server's hop (tools/fit-api-server.py's fit on the "
                "other models' runs); the GPU step model is llmsim's built-in presets (no "
                "`llmsim calibrate --runs` in this build), fitted to none of these runs")

    others = blis_columns(a.truth)
    rows = []
    for name, r in results.items():
        errors = {f["figure"]: f["error"] for f in r["figures"]}
        rows.append((name, r, errors, others.get(name, {})))

    sims = ["blis-trained-physics"] + OTHERS
    print(f"# Cross-validation on {a.truth} ({len(rows)} runs predicted; "
          f"{len(everything['not_predicted'])} not)")
    print(f"# {fit_note}; API server {'off' if a.no_api_server else 'modelled'}")
    header = ["run", "model", "view"] + FIGURES + [f"BLIS-tp {f}" for f in ("e2e_mean", "ttft_mean")]
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for name, r, errors, other in rows:
        cells = [name, r["model"].split("/")[-1], r["view"]]
        cells += [pct(errors.get(f)) for f in FIGURES]
        cells += [pct(other.get(f, {}).get("blis-trained-physics")) for f in ("e2e_mean", "ttft_mean")]
        print("| " + " | ".join(cells) + " |")
    for nr in everything["not_predicted"]:
        print(f"| {nr['run']} | not predicted: {nr['reason']} |")

    # Medians against the goals, on the client-measured runs (BLIS's), and the same runs for the
    # other simulators.
    client = [row for row in rows if row[1]["view"] == "client" and row[1]["failed_recorded"] == 0]
    overloaded = [row[0] for row in rows if row[1]["failed_recorded"] > 0]
    print()
    print(f"Medians of |error| over the {len(client)} client-measured runs without client "
          f"time-outs (left out, overloaded: {', '.join(overloaded) or 'none'}); the other "
          f"simulators' over the runs they predicted (count in brackets), and ours over the "
          f"same runs as BLIS's:")
    blis_runs = [row for row in client if row[3]]
    print("| figure | llmsim | goal | met | llmsim on BLIS's runs | " + " | ".join(sims) + " |")
    print("|" + " --- |" * (5 + len(sims)))
    machinery_ok = bool(rows) and not everything["not_predicted"]
    for f in FIGURES:
        ours = median_abs([row[2].get(f) for row in client])
        cells = [f, pct(ours).lstrip("+") if ours is not None else "n/a", f"{100 * GOALS[f]:.0f}%",
                 "yes" if ours is not None and ours <= GOALS[f] else "NO"]
        on_blis = median_abs([row[2].get(f) for row in blis_runs])
        cells.append(f"{100 * on_blis:.1f}% ({len(blis_runs)})" if on_blis is not None else "")
        for s in sims:
            vals = [row[3].get(f, {}).get(s) for row in client if row[3].get(f, {}).get(s) is not None]
            m = median_abs(vals)
            cells.append(f"{100 * m:.1f}% ({len(vals)})" if m is not None else "")
        print("| " + " | ".join(cells) + " |")
        machinery_ok &= ours is not None
    a100_l40s = [row for row in client if row[1]["card"] in ("A100", "A100-80GB", "L40S")]
    print(f"| e2e_mean on A100 / L40S | {'n/a: no such runs in ' + a.truth if not a100_l40s else pct(median_abs([row[2].get('e2e_mean') for row in a100_l40s]))} | 10% |")
    per_request = [row for row in rows if row[1]["view"] == "engine"]
    for name, r, errors, _ in per_request:
        print(f"Per-request run {name} (engine-side, goal 3% on means, 8% on p90): " + ", ".join(
            f"{f} {pct(errors.get(f))}" + ("" if errors.get(f) is None else
                                           (" ok" if abs(errors[f]) <= g else " MISS"))
            for f, g in PER_REQUEST_GOAL.items()))
    if a.check_machinery:
        joined = any(row[3] for row in rows) or not any(
            row[1]["kind"] == "blis-trainval" for row in rows)
        if not machinery_ok or not joined:
            print("fidelity-xval: the machinery broke (a run not predicted, a median missing, or "
                  "BLIS's columns not joined)", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
