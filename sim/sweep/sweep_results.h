// The outcome of `llmsim sweep`: each grid point's summary (or why it failed), ranked by one
// summary figure (sim/replay/summary_figures.h), and written as a text table, sweep.csv and
// sweep.json. Thread-safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "sim/faults/fault_window.h"
#include "sim/replay/replay_report.h"
#include "sim/replay/slo.h"
#include "sim/sweep/sweep_grid.h"

namespace llm {

// What a sweep's outputs (table, sweep.csv, sweep.json, report) show of a point that ran: taken
// from its summary by record_sweep_figures, or read back from a shard's record by sweep-merge
// (sim/sweep/sweep_shard_record.h), so that both print the same bytes.
struct SweepPointFigures {
  std::map<std::string, double> values;  // summary_figure_map: every summary_figure_keys() figure
  double sort_value = 0;                 // the sort figure (which may be another percentile)
  bool unstable = false;                 // summary.overload
  double unstable_since_s = 0;
  std::vector<SloResult> slo;  // check_slo against the outcome's targets (key, value, target, met)
  std::vector<FaultWindow> faults;  // the --fault windows the point ran under (summary.faults)
};

struct SweepPointResult {
  SweepPoint point;
  std::string dir_name;  // sweep_point_dir_name
  bool ok = false;
  std::string error;          // why the point failed (when !ok)
  ReplaySummary summary;      // the replay's (empty for a point read back from a shard)
  SweepPointFigures figures;  // what the outputs show (when ok)
};

struct SweepOutcome {
  std::string trace;    // the TRACE argument
  std::string sort_by;  // a summary figure key
  std::vector<SweepAxis> axes;
  std::vector<SweepPointResult> points;    // in grid order
  std::vector<SloTarget> slo;              // --slo: points meeting every target rank first
  std::vector<FaultWindow> faults;         // --fault: every point ran under them
  std::vector<double> metric_percentiles;  // --metric-percentiles: more percentile columns
};

// The figures sweep.csv and sweep.json show, in order: summary_figure_keys(), with each
// distribution's --metric-percentiles levels that are not among its fixed ones inserted before
// its max (ttft_p25, ttft_p75 for 25,75). Without --metric-percentiles, summary_figure_keys().
std::vector<std::string> sweep_figure_keys(const SweepOutcome& outcome);

// The --fault windows of a point that ran inside it (fault_active_s > 0), as specs joined with
// spaces: sweep.csv's "faults" cell.
std::string ran_faults_text(const SweepPointFigures& figures);

// The figures of a summary, as the outputs of `outcome` (its sort figure and SLO) show them.
SweepPointFigures sweep_point_figures(const SweepOutcome& outcome, const ReplaySummary& summary);

// Sets every point's figures from its summary (the points that ran).
void record_sweep_figures(SweepOutcome& outcome);

// Whether the point ran and meets every SLO target (true when there are none).
bool meets_slo(const SweepOutcome& outcome, const SweepPointResult& result);

// Indices into outcome.points, best first: the points that ran by the sort figure (ascending when
// lower_is_better, else descending; ties keep grid order), those meeting every SLO target before
// those missing one, then the failed points in grid order.
std::vector<size_t> sweep_ranking(const SweepOutcome& outcome);

int64_t num_failed_points(const SweepOutcome& outcome);

// The ranked table: rank, the swept values, "met" or "MISSED" under --slo, the sort figure, then
// the headline figures (seconds for latencies, as summary.json), and goodput (good requests per
// second) and attainment when --slo gives per-request targets; or FAILED and the reason.
std::string format_sweep_table(const SweepOutcome& outcome);

// One row per point in rank order: rank, dir, the swept values, status, error, slo ("met",
// "missed", empty without --slo or for a failed point), faults (only when a point had --fault
// windows: those that ran, ran_faults_text), then every figure of sweep_figure_keys().
std::string format_sweep_csv(const SweepOutcome& outcome);

// {"trace", "sort", "slo"?: [{"key", "target"}], "metric_percentiles"?, "axes": [{"flag",
// "values"}], "points": [{"rank", "dir", "settings", "status", "error"?, "slo"?: [{"key",
// "value", "target", "met"}], "faults"?: [{"spec", "from_s", "to_s", "active_s", "ran"}],
// "figures"?}]}, points in rank order; the "slo" members only under --slo, "faults" only for a
// point run under --fault windows.
std::string format_sweep_json(const SweepOutcome& outcome);

}  // namespace llm
