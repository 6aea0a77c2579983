// The alert section of the HTML report (for `llmsim alerts` and `--rules`): a timeline with one
// row per alert and label set, its pending window (pending until fired, or until resolved when it
// never fired) and its firing window (fired until resolved, or until the end of the trace),
// drawn as SVG bars over trace time, after a row per --fault window. Each row's label is written
// whole above its bar, wrapped over several lines when it is long.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/html_report.h"

namespace llm {

struct AlertWindow {
  std::string alert;                          // the rule's alert name
  std::map<std::string, std::string> labels;  // the label set of this instance
  std::optional<double> pending_s;            // trace time it went pending
  std::optional<double> fired_s;              // trace time it fired (after `for`)
  std::optional<double> resolved_s;           // trace time it resolved; none: still active
};

// A fault window of the replay, drawn as its own row.
struct FaultBar {
  std::string label;  // the fault's spec and description
  double from_s = 0;
  double to_s = 0;
};

// `label` cut into lines of at most max_chars, after a ',' or ' ' where one fits.
std::vector<std::string> wrap_label(const std::string& label, size_t max_chars);

// The <svg> timeline of the windows over [0, trace_end_s].
std::string render_alert_timeline(const std::vector<AlertWindow>& windows, double trace_end_s,
                                  const std::vector<FaultBar>& faults = {});

ReportSection alert_section(const std::vector<AlertWindow>& windows, double trace_end_s,
                            const std::vector<FaultBar>& faults = {});

}  // namespace llm
