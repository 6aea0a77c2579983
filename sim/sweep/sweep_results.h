// The outcome of `llmsim sweep`: each grid point's summary (or why it failed), ranked by one
// summary figure (sim/replay/summary_figures.h), and written as a text table, sweep.csv and
// sweep.json. Thread-safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/replay/replay_report.h"
#include "sim/replay/slo.h"
#include "sim/sweep/sweep_grid.h"

namespace llm {

struct SweepPointResult {
  SweepPoint point;
  std::string dir_name;  // sweep_point_dir_name
  bool ok = false;
  std::string error;  // why the point failed (when !ok)
  ReplaySummary summary;
};

struct SweepOutcome {
  std::string trace;    // the TRACE argument
  std::string sort_by;  // a summary figure key
  std::vector<SweepAxis> axes;
  std::vector<SweepPointResult> points;  // in grid order
  std::vector<SloTarget> slo;            // --slo: points meeting every target rank first
};

// Whether the point ran and meets every SLO target (true when there are none).
bool meets_slo(const SweepOutcome& outcome, const SweepPointResult& result);

// Indices into outcome.points, best first: the points that ran by the sort figure (ascending when
// lower_is_better, else descending; ties keep grid order), those meeting every SLO target before
// those missing one, then the failed points in grid order.
std::vector<size_t> sweep_ranking(const SweepOutcome& outcome);

int64_t num_failed_points(const SweepOutcome& outcome);

// The ranked table: rank, the swept values, "met" or "MISSED" under --slo, the sort figure, then
// the headline figures (seconds for latencies, as summary.json), or FAILED and the reason.
std::string format_sweep_table(const SweepOutcome& outcome);

// One row per point in rank order: rank, dir, the swept values, status, error, slo ("met",
// "missed", empty without --slo or for a failed point), then every summary figure
// (summary_figure_keys()).
std::string format_sweep_csv(const SweepOutcome& outcome);

// {"trace", "sort", "slo"?: [{"key", "target"}], "axes": [{"flag", "values"}], "points":
// [{"rank", "dir", "settings", "status", "error"?, "slo"?: [{"key", "value", "target", "met"}],
// "figures"?}]}, points in rank order; the "slo" members only under --slo.
std::string format_sweep_json(const SweepOutcome& outcome);

}  // namespace llm
