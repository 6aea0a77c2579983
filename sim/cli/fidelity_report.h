// What `llmsim fidelity` found for one profile, as one struct (FidelityResult: the table of real
// against predicted figures, preemptions, and with --server-step-log the server's steps priced by
// the profile and the table again with the step costs as run), and the two ways it is written from
// that struct alone: the text on stdout (format_fidelity) and one object of --result-json
// (fidelity_json), so that the two cannot drift apart. The runs behind it are
// sim/cli/fidelity_command.cpp's.
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/engine_profile.h"

namespace llm {

// The mean of `values` (0 for none), and their spread: (max - min) / mean, 0 for fewer than two.
double mean_of_runs(const std::vector<double>& values);
double spread_of_runs(const std::vector<double>& values);

// One row of the table: the real runs' values, and the prediction.
struct FidelityRow {
  std::string figure;  // "TTFT p50 (ms)"
  std::vector<double> real;
  double predicted = 0;                // the mean of predicted_runs
  double goal = 0.10;                  // the |error| the goal allows, as a fraction
  std::vector<double> predicted_runs;  // one per replay (--sim-runs)

  double real_mean() const;
  double spread() const;            // spread_of_runs(real): 0 with one run
  double predicted_spread() const;  // spread_of_runs(predicted_runs)
  double error() const;             // (predicted - mean) / mean
  // "inside spread", "pass" or "MISS".
  std::string verdict() const;
};

// The table as text, and the median |error| over its rows.
std::string format_fidelity_table(const std::vector<FidelityRow>& rows);
double median_abs_error(const std::vector<FidelityRow>& rows);

// The server's steps during the real runs (--server-step-log), priced by the profile, and the table
// predicted again with the profile's step costs refitted to those steps.
struct FidelityAsRun {
  size_t steps = 0;
  double took_s = 0;       // execute() plus the host's short gaps between steps
  double execute_s = 0;    // in execute()
  double host_gaps_s = 0;  // in gaps under gap_limit_ms
  double gap_limit_ms = 0;
  double priced_s = 0;   // the profile's price of the steps
  double error = 0;      // priced_s / took_s - 1 (0 when they took no time)
  ProfileFit fit;        // of the refitted step costs
  bool scatter = false;  // the refit keeps a step-time scatter
  std::vector<FidelityRow> rows;
};

// One profile against the real runs.
struct FidelityResult {
  std::string trace;  // the trace's source
  size_t num_requests = 0;
  std::string profile;
  std::string url;
  int32_t real_runs = 0;
  int32_t sim_runs = 0;
  std::vector<FidelityRow> rows;
  double real_preemptions = 0;       // per real run (vllm:num_preemptions_total)
  double predicted_preemptions = 0;  // per replay
  std::optional<FidelityAsRun> as_run;
};

// The text `llmsim fidelity` prints for one profile.
std::string format_fidelity(const FidelityResult& result);

// Its object of --result-json: {"trace", "profile", "url", "real_runs", "sim_runs",
// "median_abs_error", "real_preemptions_per_run", "predicted_preemptions", "rows"} and, with the
// costs as run, "server_steps" and "step_costs_as_run".
nlohmann::ordered_json fidelity_json(const FidelityResult& result);

// A fraction as a percentage with one decimal ("+3.1%" with `sign`).
std::string fidelity_pct(double fraction, bool sign);

}  // namespace llm
